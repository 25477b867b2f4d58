"""What a command does, as library calls that return plain results (no click, no printing).

- `renderer.pipeline.lint.run_lint(LintRequest) -> LintOutcome`: load, lint, fix, lint again.

A pipeline sits above the packages it strings together (source, lint, fix, trust, schema),
so none of them imports it back.
"""
