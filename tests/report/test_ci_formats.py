"""The formats CI systems read: JUnit XML, GitLab Code Quality, and the paths and line
breaks of SARIF and GitHub annotations.

Paths in these formats are relative to the repository root whatever the working
directory (a job that runs in a subfolder still gets its annotations on the right file),
and a multi-line message (render-drift's diff) reaches the CI system as real lines.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from lint_support import VECTOR_FIXTURES, lint_in_format
from paths import REPO

from renderer.cli import cli

FIXTURE = "tests/fixtures/lint/report/several-rules.yaml"
SNAPSHOT = "tests/vectors/02-worker-baseline.input.yaml"
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "CI_PROJECT_DIR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["--no-config", "lint", *args], catch_exceptions=False)


def lint(fmt: str, *paths: str) -> tuple[int, str]:
    return lint_in_format(fmt, *paths)


def from_subfolder(monkeypatch: pytest.MonkeyPatch, fmt: str) -> tuple[int, str]:
    """Lint run from tests/report/ with paths typed relative to it, as a job whose
    working directory is a subfolder of the checkout."""
    monkeypatch.chdir(REPO / "tests" / "report")
    result = CliRunner().invoke(
        cli,
        [
            "--no-config",
            "lint",
            *VECTOR_FIXTURES,
            "../../" + FIXTURE,
            "--checkpoint",
            "../../" + SNAPSHOT,
            "--format",
            fmt,
        ],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout


def _json_findings() -> list[dict[str, object]]:
    """The fixture's findings as the json report gives them: what the CI formats must show."""
    code, out = lint("json", FIXTURE)
    assert code == 1
    found: list[dict[str, object]] = json.loads(out)["findings"]
    return [f for f in found if f["file"] == FIXTURE]


def test_junit_is_xml_with_a_failure_per_object_with_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    findings = _json_findings()
    objects: dict[str, list[dict[str, object]]] = {}
    for f in findings:
        label = "/".join(str(f[k]) for k in ("kind", "namespace", "name") if f[k])
        objects.setdefault(label, []).append(f)
    with_errors = {k for k, fs in objects.items() if any(f["severity"] == "error" for f in fs)}
    assert with_errors and len(with_errors) < len(objects)  # the fixture has both kinds
    code, out = lint("junit", FIXTURE)
    assert code == 1
    suites = ET.fromstring(out)
    assert suites.tag == "testsuites"
    [suite] = [s for s in suites.findall("testsuite") if s.get("name") == FIXTURE]
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == set(objects)
    assert suite.get("tests") == str(len(objects))
    assert suite.get("failures") == str(len(with_errors))
    every = suites.findall("testsuite")
    assert suites.get("failures") == str(sum(int(s.get("failures") or 0) for s in every))
    for label, fs in objects.items():
        failure = cases[label].find("failure")
        if label in with_errors:
            # every rule with an error in `type`, every finding of the object in the body
            assert failure is not None and failure.text is not None
            errors = [f["rule"] for f in fs if f["severity"] == "error"]
            assert failure.get("type") == ",".join(dict.fromkeys(str(r) for r in errors))
            assert failure.text.strip().count("\n") == len(fs) - 1
        else:  # warnings alone do not fail
            assert failure is None
            out_text = cases[label].findtext("system-out") or ""
            assert all(str(f["rule"]) in out_text for f in fs)


def test_junit_names_a_clean_file_as_one_passing_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    rendered = "examples/rendered/llama-disagg-v1beta1/dcd.yaml"
    result = invoke(rendered, "--checkpoint", "examples/snapshots", "--format", "junit")
    assert result.exit_code == 0
    suites = ET.fromstring(result.stdout)
    [suite] = [s for s in suites.findall("testsuite") if s.get("name") == rendered]
    [case] = suite.findall("testcase")
    assert case.get("name") == rendered and list(case) == []
    assert suites.get("failures") == "0"


def test_gitlab_code_quality_has_the_required_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    findings = _json_findings()
    code, out = lint("gitlab", FIXTURE)
    assert code == 1
    issues = [i for i in json.loads(out) if i["location"]["path"] == FIXTURE]
    assert [i["check_name"] for i in issues] == [f["rule"] for f in findings]
    for issue in issues:
        # the fields GitLab requires of a Code Quality issue
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert isinstance(issue["location"]["lines"]["begin"], int)
    severities = {"error": "major", "warning": "minor"}
    assert [i["severity"] for i in issues] == [severities[str(f["severity"])] for f in findings]
    assert {"major", "minor"} <= {i["severity"] for i in issues}
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_fingerprints_survive_a_line_move(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """GitLab tells new issues from old by fingerprint: lines added above an issue do not
    make it new."""
    text = (REPO / FIXTURE).read_text()
    before, after = tmp_path / "before", tmp_path / "after"
    for folder, body in ((before, text), (after, "# a comment\n# another\n" + text)):
        folder.mkdir()
        (folder / "manifest.yaml").write_text(body)
    prints = []
    lines = []
    for name in ("before", "after"):
        monkeypatch.chdir(tmp_path / name)
        result = invoke(
            *VECTOR_FIXTURES,
            "manifest.yaml",
            "--checkpoint",
            str(REPO / SNAPSHOT),
            "--format",
            "gitlab",
        )
        issues = json.loads(result.stdout)
        prints.append([i["fingerprint"] for i in issues])
        lines.append([i["location"]["lines"]["begin"] for i in issues])
    assert prints[0] == prints[1]
    assert [b + 2 for b in lines[0]] == lines[1]


@pytest.mark.parametrize("fmt", ["sarif", "github", "gitlab", "junit"])
def test_ci_paths_are_relative_to_the_repository_root_from_a_subfolder(
    monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.chdir(REPO)
    _, at_root = lint(fmt, FIXTURE)
    _, in_subfolder = from_subfolder(monkeypatch, fmt)
    assert in_subfolder == at_root
    assert FIXTURE in at_root and "../../tests" not in at_root


def test_sarif_uri_is_relative_to_srcroot(monkeypatch: pytest.MonkeyPatch) -> None:
    _, out = from_subfolder(monkeypatch, "sarif")
    results = json.loads(out)["runs"][0]["results"]
    location = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": FIXTURE, "uriBaseId": "%SRCROOT%"}


def test_github_workspace_is_the_root_when_the_job_sets_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Under GitHub Actions the checkout is GITHUB_WORKSPACE, which need not hold `.git`
    (a job may download the files instead)."""
    workspace = tmp_path / "checkout"
    (workspace / "deploy" / "rendered").mkdir(parents=True)
    (workspace / "deploy" / "rendered" / "m.yaml").write_text((REPO / FIXTURE).read_text())
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.chdir(workspace / "deploy")
    result = invoke(
        *VECTOR_FIXTURES,
        "rendered/m.yaml",
        "--checkpoint",
        str(REPO / SNAPSHOT),
        "--format",
        "github",
    )
    assert result.stdout.startswith("::error file=deploy/rendered/m.yaml,line=")


def test_a_file_outside_the_root_keeps_its_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    outside = tmp_path / "m.yaml"
    outside.write_text((REPO / FIXTURE).read_text())
    monkeypatch.chdir(REPO)
    _, out = lint("sarif", str(outside))
    location = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].startswith("file://")
    assert "uriBaseId" not in location["artifactLocation"]


def drift_message(fmt: str, tmp_path: Path) -> str:
    committed = (EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    changed = committed.replace("replicas: 1", "replicas: 3", 1)
    assert changed != committed
    path = tmp_path / "committed.yaml"
    path.write_text(changed)
    dgd = str(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml")
    result = invoke(
        str(path), "--checkpoint", str(EXAMPLES / "snapshots"), "--dgd", dgd, "--format", fmt
    )
    assert result.exit_code == 1
    return result.stdout


def test_github_drift_diff_reaches_the_runner_as_lines(tmp_path: Path) -> None:
    out = drift_message("github", tmp_path)
    [drift] = [line for line in out.splitlines() if "render-drift" in line]
    # the runner decodes %0A inside a message into a line break; a literal backslash-n
    # would be shown as is
    assert "%0A" in drift and "\\n" not in drift
    assert drift.startswith("::error ")


def test_sarif_drift_diff_is_real_lines(tmp_path: Path) -> None:
    results = json.loads(drift_message("sarif", tmp_path))["runs"][0]["results"]
    [drift] = [r for r in results if r["ruleId"] == "render-drift"]
    text = drift["message"]["text"]
    assert "\n" in text and "\\n" not in text
    assert "-" in text and "+" in text
