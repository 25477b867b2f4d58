"""What the binding rules' fixture tests share.

The lint fixtures are built on reference vector 02, whose snapshot name
(`checkpoint-9f1e2d3c4b5a6978`) comes from the Go vector set, not from the operator's
`checkpoint-<DGDCheckpointID>` for the fixture workloads: rule checkpoint-outdated rightly
reports every one of them. Renaming the snapshot would change its binding, which the
vectors fix, so these tests leave that one rule out; its own tests are in
test_lint_checkpoint_outdated.py.
"""

from __future__ import annotations

from click.testing import CliRunner

from renderer.cli import cli

VECTOR_FIXTURES = ("--disable", "checkpoint-outdated")
OUTDATED_RULE = "checkpoint-outdated"
VECTOR_SNAPSHOT = "tests/vectors/02-worker-baseline.input.yaml"


def lint_in_format(fmt: str, *paths: str) -> tuple[int, str]:
    """`lint PATHS --checkpoint <vector 02> --format FMT` through the CLI (no config):
    exit code and stdout."""
    result = CliRunner().invoke(
        cli,
        [
            "--no-config",
            "lint",
            *VECTOR_FIXTURES,
            *paths,
            "--checkpoint",
            VECTOR_SNAPSHOT,
            "--format",
            fmt,
        ],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout
