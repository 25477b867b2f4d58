"""`lint --format sarif` validates against the official SARIF 2.1.0 schema (tests/sarif/).

The fixture set has findings of several rules (errors and a warning) in DCD v1alpha1,
DCD v1beta1 and PCS files; the log must carry real regions (the findings' line and column)
and the rule catalogue (id, short description, help from each rule's docstring).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES, lint_in_format
from paths import TESTS

from renderer.cli import cli

SCHEMA = TESTS / "sarif" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "ddddcccbf95c7c50c037b5b07eff4140556278ca574ff374db46786b5fce7949"
# Paths relative to the repository root, as a CI job passes them.
SNAPSHOT = "tests/vectors/02-worker-baseline.input.yaml"
PATHS = [
    "tests/fixtures/lint/dcd-v1alpha1/binding-stale.yaml",
    "tests/fixtures/lint/dcd-v1beta1/binding-disagree.yaml",
    "tests/fixtures/lint/pcs/binding-misplaced.yaml",
    "tests/fixtures/lint/pcs/checkpoint-unverifiable.yaml",
    "tests/schema-broken/dcd-replicas-string.yaml",
    "tests/hardening/inputs/generation-as-string.yaml",  # a snapshot that cannot be bound
]

SARIF = ("--format", "sarif")


def lint(fmt: str) -> tuple[int, str]:
    return lint_in_format(fmt, *PATHS)


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(TESTS.parent)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data = SCHEMA.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256  # the vendored copy is intact
    loaded: dict[str, Any] = json.loads(data)
    return loaded


def test_the_schema_is_draft_4_and_valid(schema: dict[str, Any]) -> None:
    from jsonschema import Draft4Validator
    from jsonschema.validators import validator_for

    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert validator_for(schema) is Draft4Validator
    Draft4Validator.check_schema(schema)


@pytest.mark.usefixtures("at_root")
def test_sarif_output_validates_with_regions_and_rules(schema: dict[str, Any]) -> None:
    from jsonschema import Draft4Validator, FormatChecker

    from renderer.lint.rules import all_rules

    code, out = lint("sarif")
    assert code == 1
    log = json.loads(out)
    validator = Draft4Validator(schema, format_checker=FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]

    [run] = log["runs"]
    results = run["results"]
    _, json_out = lint("json")
    findings = json.loads(json_out)["findings"]
    # one result per finding, same order, same place
    assert [
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        )
        for r in results
    ] == [(f["rule"], f["severity"], f["file"], f["line"], f["column"]) for f in findings]
    rules_seen = {r["ruleId"] for r in results}
    assert {
        "binding-stale",
        "binding-disagree",
        "binding-provenance",
        "binding-misplaced",
        "checkpoint-pending",
        "checkpoint-invalid",
        "schema",
    } <= rules_seen
    assert {r["level"] for r in results} == {"error", "warning"}
    # regions are the findings' positions, not document starts
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] > 1 for r in results)

    catalogue = run["tool"]["driver"]["rules"]
    expected = all_rules()
    assert [entry["id"] for entry in catalogue] == [rule.id for rule in expected]
    for entry, rule in zip(catalogue, expected, strict=True):
        assert entry["shortDescription"]["text"] == rule.summary
        assert entry["help"]["text"] == rule.doc
        assert "Bad" in rule.doc and "Fixed" in rule.doc, rule.id
        assert entry["defaultConfiguration"]["level"] == rule.severity
    for result in results:
        assert catalogue[result["ruleIndex"]]["id"] == result["ruleId"]


@pytest.mark.usefixtures("at_root")
def test_an_empty_run_validates(schema: dict[str, Any], tmp_path: Path) -> None:
    from jsonschema import Draft4Validator

    clean = "tests/fixtures/lint/dcd-v1beta1/clean.yaml"
    result = CliRunner().invoke(
        cli,
        ["--no-config", "lint", *VECTOR_FIXTURES, clean, "--checkpoint", SNAPSHOT, *SARIF],
    )
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    Draft4Validator(schema).validate(log)
    assert log["runs"][0]["results"] == []


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("rendered/a b.yaml", "rendered/a%20b.yaml"),
        ("/srv/repo/x.yaml", "file:///srv/repo/x.yaml"),  # not a path relative to nothing
        ("<stdin>", "stdin"),
    ],
)
def test_artifact_uris(name: str, uri: str) -> None:
    from renderer.report.sarif import _uri

    assert _uri(name) == uri
