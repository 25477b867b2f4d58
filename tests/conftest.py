"""The suite's root: pytest puts this folder on sys.path, so every group imports the shared
helpers (`paths`, `lint_support`, `render_support`, `signing_support`) by name.

Layout (README.md in this folder): one folder per package under test (binding, source,
schema, trust, config, render, lint, report, operator), `cli/` for end-to-end runs of the
command, `hardening/` for hostile input, `project/` for the repository's own contracts.
"""
