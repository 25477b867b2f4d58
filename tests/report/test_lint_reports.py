"""Snapshots of the four lint report formats for one fixture with findings of several rules.

The fixture (tests/fixtures/lint/report/several-rules.yaml, from make_variants.py) has a
stale copy, a disagreeing provenance-changed copy, a misplaced binding and an
unverifiable checkpoint name. Paths are relative to the repository root so the reports
are the same on every machine. Snapshots are in __snapshots__/test_lint_reports.ambr.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from syrupy.assertion import SnapshotAssertion

from renderer.cli import cli

FIXTURE = "tests/fixtures/lint/report/several-rules.yaml"
SNAPSHOT = "tests/vectors/02-worker-baseline.input.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    monkeypatch.chdir(request.config.rootpath)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def run(fmt: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        [
            "--no-config",
            "lint",
            *VECTOR_FIXTURES,
            FIXTURE,
            "--checkpoint",
            SNAPSHOT,
            "--format",
            fmt,
        ],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab", "junit"])
def test_report(fmt: str, snapshot: SnapshotAssertion) -> None:
    code, out, err = run(fmt)
    assert code == 1  # four errors
    assert out == snapshot(name="stdout")
    # only the text format writes the summary line
    assert err == (snapshot(name="stderr") if fmt == "text" else "")


def test_text_report_in_colour(snapshot: SnapshotAssertion) -> None:
    """On a terminal (and without NO_COLOR) severities and rule names are coloured."""
    from lint_support import OUTDATED_RULE

    from renderer.lint.engine import LintOptions, lint_objects
    from renderer.lint.rules import RULE_MODULES
    from renderer.report import get_format
    from renderer.source import load_paths

    rules = [rule for rule in RULE_MODULES if rule != OUTDATED_RULE]
    result = lint_objects(load_paths([FIXTURE]), load_paths([SNAPSHOT]), LintOptions(rules=rules))
    coloured = get_format("text")(result, color=True)
    assert coloured == snapshot
    plain = get_format("text")(result, color=False)
    assert plain == run("text")[1]
    assert "\033[" in coloured and "\033[" not in plain
