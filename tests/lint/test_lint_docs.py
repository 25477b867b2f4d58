"""docs/lint.md documents every rule (from its docstring), the json report, and exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner
from paths import REPO

from renderer.cli import cli

PAGE = REPO / "docs" / "lint.md"
RULE_LEVEL = 2  # heading level scripts/update-docs uses for docs/lint.md


def test_rule_section_is_generated_from_the_docstrings() -> None:
    """Regenerate with `scripts/update-docs` when this fails."""
    from renderer.lint.ruledoc import replace_section

    page = PAGE.read_text(encoding="utf-8")
    assert page == replace_section(page, RULE_LEVEL)


def test_every_rule_docstring_is_on_the_page() -> None:
    from renderer.lint.rules import all_rules

    page = PAGE.read_text(encoding="utf-8")
    for rule in all_rules():
        assert f"## `{rule.id}` ({rule.severity})" in page, rule.id
        for line in rule.doc.splitlines():  # examples become fenced blocks, text stays
            assert line.removeprefix("    ") in page, (rule.id, line)


def test_every_json_report_field_is_documented() -> None:
    page = PAGE.read_text(encoding="utf-8")
    snapshot = str(REPO / "tests" / "vectors" / "02-worker-baseline.input.yaml")
    fixture = str(REPO / "tests" / "fixtures" / "lint" / "report" / "several-rules.yaml")
    result = CliRunner().invoke(
        cli, ["--no-config", "lint", fixture, "--checkpoint", snapshot, "--format", "json"]
    )
    report = json.loads(result.stdout)
    fields = {*report, *report["summary"], *report["findings"][0]}
    fields |= {key for f in report["findings"] for action in f["fix"] for key in action}
    for field in fields:
        assert f"`{field}`" in page, field


def test_exit_codes_and_formats_are_documented() -> None:
    from renderer.report import FORMATS

    page = PAGE.read_text(encoding="utf-8")
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in page
    for fmt in FORMATS:
        assert f"### {fmt}" in page
