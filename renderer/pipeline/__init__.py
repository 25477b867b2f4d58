"""What a command does, as library calls that return plain results (no click, no printing).

- `renderer.pipeline.lint.run_lint(LintRequest) -> LintOutcome`: load, lint, fix, lint again.
- `renderer.pipeline.render.run_render(RenderRequest) -> RenderOutcome`: load, check,
  render, and plan the -o folder (nothing written); `run_renders` for several.
- `renderer.pipeline.requests`: those requests and outcomes, light enough for a command's
  module to extend without importing the pipeline.

A pipeline sits above the packages it strings together (source, render, lint, fix, trust,
schema), so none of them imports it back.
"""
