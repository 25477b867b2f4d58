"""Suppressions through the real CLI: a comment with a reason in the object's document, a
baseline written by `--write-baseline` and read by `--baseline`, and `lint: disable`.

The manifests are the hand-made lint fixtures (one wrong binding each, against reference
vector 02's checkpoint); the rule checkpoint-outdated is left out as in every fixture test
(tests/lint_support.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import pytest
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, TESTS, VECTORS

from renderer.cli import main

SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
BETA = FIXTURES / "lint" / "dcd-v1beta1"
STALE = (BETA / "binding-stale.yaml").read_text()
MISPLACED = (FIXTURES / "lint" / "pcs" / "binding-misplaced.yaml").read_text()
CLEAN = (BETA / "clean.yaml").read_text()
REASON = "staging is re-captured after the 2.1 rollout (OPS-412)"
IGNORE_STALE = f"# dynamo-render: ignore binding-stale: {REASON}\n"


class Result(NamedTuple):
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture(autouse=True)
def _capture(capsys: pytest.CaptureFixture[str]) -> None:
    global _capsys  # noqa: PLW0603 - the fixture the helper below reads
    _capsys = capsys


_capsys: pytest.CaptureFixture[str] | None = None


def lint(*args: str, config: bool = False) -> Result:
    """`dynamo-render lint ARGS` as the installed command runs it (exit codes and error
    lines included); with `config`, the repository's config supplies what it sets (its
    `disable` too, so the fixtures' rule left out is in it)."""
    assert _capsys is not None
    _capsys.readouterr()
    head = ["lint"] if config else ["--no-config", "lint", *VECTOR_FIXTURES]
    code = main([*head, *args, "--checkpoint", SNAPSHOT])
    captured = _capsys.readouterr()
    return Result(code, captured.out, captured.err)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_stale_fixture_fails_without_a_suppression(repo: Path) -> None:
    Path("stale.yaml").write_text(STALE)
    result = lint("stale.yaml")
    assert result.exit_code == 1
    assert "error [binding-stale]" in result.stdout


def test_a_comment_accepts_the_rule_in_its_document_and_stays_loud(repo: Path) -> None:
    Path("stale.yaml").write_text(IGNORE_STALE + STALE)
    result = lint("stale.yaml")
    assert result.exit_code == 0, result.output
    # binding-stale is denied by the pod webhook: printed on every run, saying so
    lines = [line for line in result.stdout.splitlines() if "[binding-stale]" in line]
    assert len(lines) == 2  # the metadata copy and the pod template copy
    for line in lines:
        assert line.startswith("stale.yaml:")
        assert ": suppressed error [binding-stale] " in line
        assert line.endswith(f"(suppressed: {REASON}; the cluster still refuses this)")
    assert "0 errors, 0 warnings in 1 file (2 objects); 2 suppressed (2 the cluster refuses)" in (
        result.stderr
    )


def test_json_lists_each_suppressed_finding_with_its_reason(repo: Path) -> None:
    Path("stale.yaml").write_text(IGNORE_STALE + STALE)
    result = lint("stale.yaml", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["findings"] == []
    assert report["summary"]["suppressed"] == 2
    assert report["summary"]["suppressedRefused"] == 2
    assert report["summary"]["errors"] == 0
    assert {s["rule"] for s in report["suppressed"]} == {"binding-stale"}
    for entry in report["suppressed"]:
        assert entry["suppression"] == {
            "kind": "inSource",
            "justification": REASON,
            "source": "stale.yaml:1",
            "refused": True,
        }


def test_sarif_carries_suppressions_and_validates(repo: Path) -> None:
    Path("stale.yaml").write_text(IGNORE_STALE + STALE)
    result = lint("stale.yaml", "--format", "sarif")
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    schema = json.loads((TESTS / "sarif" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["binding-stale", "binding-stale"]
    for item in results:
        assert item["suppressions"] == [
            {"kind": "inSource", "status": "accepted", "justification": REASON}
        ]


def test_github_annotates_a_suppressed_refused_finding_as_a_warning(repo: Path) -> None:
    Path("stale.yaml").write_text(IGNORE_STALE + STALE)
    result = lint("stale.yaml", "--format", "github")
    assert result.exit_code == 0
    *lines, notice = result.stdout.splitlines()
    assert (
        notice
        == "::notice title=dynamo-render lint::2 findings suppressed (2 the cluster still refuses)"
    )
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("::warning file=stale.yaml,line=")
        assert "title=binding-stale (suppressed)::" in line
        assert f"suppressed ({REASON}), but the cluster still refuses this" in line


def test_a_policy_rule_suppressed_is_counted_not_printed(repo: Path) -> None:
    # binding-misplaced: a stray binding is harmless at admission
    Path("pcs.yaml").write_text(
        "# dynamo-render: ignore binding-misplaced: kept for the migration (OPS-7)\n" + MISPLACED
    )
    result = lint("pcs.yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "; 1 suppressed\n" in result.stderr
    github = lint("pcs.yaml", "--format", "github")
    assert github.stdout == "::notice title=dynamo-render lint::1 finding suppressed\n"


def test_a_comment_covers_only_its_own_document(repo: Path) -> None:
    # the fixture is two documents, the stale decode worker first: four in all here
    other = STALE.replace("5f8d", "6a9e")
    Path("two.yaml").write_text(IGNORE_STALE + STALE + "---\n" + other)
    result = lint("two.yaml", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert {f["docIndex"] for f in report["findings"]} == {2}
    assert {s["docIndex"] for s in report["suppressed"]} == {0}
    # in the third document, it covers that one only
    Path("two.yaml").write_text(STALE + "---\n" + IGNORE_STALE + other)
    report = json.loads(lint("two.yaml", "--format", "json").stdout)
    assert {f["docIndex"] for f in report["findings"]} == {0}
    assert {s["docIndex"] for s in report["suppressed"]} == {2}


def test_a_comment_for_another_rule_accepts_nothing(repo: Path) -> None:
    Path("stale.yaml").write_text(
        "# dynamo-render: ignore binding-misplaced: not this one\n" + STALE
    )
    result = lint("stale.yaml")
    assert result.exit_code == 1
    assert "suppressed" not in result.stderr


@pytest.mark.parametrize(
    ("comment", "message"),
    [
        ("# dynamo-render: ignore binding-stale\n", "gives a reason"),
        ("# dynamo-render: ignore binding-stale:   \n", "gives a reason"),
        ("# dynamo-render: ignore : because\n", "gives a reason"),
        ("# dynamo-render: ignore binding-stal: typo\n", "'binding-stal': no such rule"),
    ],
)
def test_a_suppression_without_a_reason_or_rule_is_an_input_error(
    repo: Path, comment: str, message: str
) -> None:
    Path("stale.yaml").write_text("# header\n" + "  " + comment + STALE)
    result = lint("stale.yaml")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("dynamo-render: error: stale.yaml:2:3: ")
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_fix_leaves_a_suppressed_finding_alone(repo: Path) -> None:
    Path("stale.yaml").write_text(IGNORE_STALE + STALE)
    result = lint("stale.yaml", "--fix")
    assert result.exit_code == 0
    assert Path("stale.yaml").read_text() == IGNORE_STALE + STALE


def _baseline_run(*args: str) -> Result:
    return lint("manifests", *args)


def test_a_baseline_accepts_the_findings_it_records_across_line_moves(repo: Path) -> None:
    Path("manifests").mkdir()
    Path("manifests/stale.yaml").write_text(STALE)
    written = _baseline_run("--write-baseline", "lint-baseline.json")
    assert written.exit_code == 0, written.output
    assert "wrote lint-baseline.json (2 findings)" in written.stderr
    assert "2 suppressed (2 the cluster refuses)" in written.stderr
    first = Path("lint-baseline.json").read_bytes()
    baseline = json.loads(first)
    assert baseline["version"] == 1
    assert {row["file"] for row in baseline["findings"]} == {"manifests/stale.yaml"}
    assert {row["rule"] for row in baseline["findings"]} == {"binding-stale"}
    # writing it again gives the same bytes
    assert _baseline_run("--write-baseline", "lint-baseline.json").exit_code == 0
    assert Path("lint-baseline.json").read_bytes() == first
    # lines move (a header comment, blank lines): still accepted
    Path("manifests/stale.yaml").write_text("# moved\n\n\n" + STALE)
    kept = _baseline_run("--baseline", "lint-baseline.json", "--format", "json")
    assert kept.exit_code == 0, kept.output
    report = json.loads(kept.stdout)
    assert report["findings"] == []
    assert {s["suppression"]["kind"] for s in report["suppressed"]} == {"external"}
    # a new finding is not in the baseline: it fails
    Path("manifests/second.yaml").write_text(STALE.replace("5f8d", "6a9e"))
    new = _baseline_run("--baseline", "lint-baseline.json")
    assert new.exit_code == 1
    assert new.stdout.count(": error [binding-stale] ") == 2
    assert "manifests/second.yaml" in new.stdout


def test_a_baseline_matches_from_another_working_directory(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Path("manifests").mkdir()
    Path("manifests/stale.yaml").write_text(STALE)
    assert _baseline_run("--write-baseline", "lint-baseline.json").exit_code == 0
    monkeypatch.chdir(repo / "manifests")
    result = lint("stale.yaml", "--baseline", "../lint-baseline.json")
    assert result.exit_code == 0, result.output
    assert "2 suppressed" in result.stderr


def test_one_baseline_entry_accepts_one_finding(repo: Path) -> None:
    Path("manifests").mkdir()
    Path("manifests/stale.yaml").write_text(STALE)
    assert _baseline_run("--write-baseline", "lint-baseline.json").exit_code == 0
    document: dict[str, Any] = json.loads(Path("lint-baseline.json").read_text())
    document["findings"] = document["findings"][:1]
    Path("lint-baseline.json").write_text(json.dumps(document))
    result = _baseline_run("--baseline", "lint-baseline.json")
    assert result.exit_code == 1
    assert "1 error, 0 warnings" in result.stderr
    assert "1 suppressed" in result.stderr


@pytest.mark.parametrize(
    "content",
    ["", "{", "[]", '{"version": 2, "findings": []}', '{"version": 1, "findings": [{}]}'],
)
def test_a_bad_baseline_is_exit_2_even_on_a_clean_run(repo: Path, content: str) -> None:
    Path("clean.yaml").write_text(CLEAN)
    Path("lint-baseline.json").write_text(content)
    result = lint("clean.yaml", "--baseline", "lint-baseline.json")
    assert result.exit_code == 2
    assert result.stderr.startswith("dynamo-render: error: lint-baseline.json: ")
    assert "baseline" in result.stderr
    assert "Traceback" not in result.output


def test_a_missing_baseline_is_exit_2(repo: Path) -> None:
    Path("clean.yaml").write_text(CLEAN)
    result = lint("clean.yaml", "--baseline", "nowhere.json")
    assert result.exit_code == 2
    assert "nowhere.json" in result.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [(("--fix",), "--write-baseline records findings"), (("-",), "stdin")],
)
def test_write_baseline_refuses_fix_and_stdin(
    repo: Path, extra: tuple[str, ...], message: str
) -> None:
    Path("stale.yaml").write_text(STALE)
    result = lint("stale.yaml", *extra, "--write-baseline", "b.json")
    assert result.exit_code == 2
    assert message in result.stderr
    assert not Path("b.json").exists()
    assert Path("stale.yaml").read_text() == STALE


CONFIG = "apiVersion: dynamo-render/v1\nkind: Config\nlint:\n  paths: [manifests]\n"
LEFT_OUT = "  disable: [checkpoint-outdated]\n"


def test_config_disable_turns_a_rule_off(repo: Path) -> None:
    Path("manifests").mkdir()
    Path("manifests/stale.yaml").write_text(STALE)
    Path(".dynamo-render.yaml").write_text(
        CONFIG + "  disable: [checkpoint-outdated, binding-stale]\n"
    )
    result = lint(config=True)
    assert result.exit_code == 0, result.output
    assert "0 errors" in result.stderr
    assert "suppressed" not in result.stderr  # not run at all: nothing to count


def test_config_disable_of_an_unknown_rule_is_at_its_line(repo: Path) -> None:
    Path(".dynamo-render.yaml").write_text(CONFIG + "  disable:\n    - binding-stal\n")
    result = lint(config=True)
    assert result.exit_code == 2
    assert result.stderr.startswith("dynamo-render: error: .dynamo-render.yaml:6:7: ")
    assert "no rule 'binding-stal'" in result.stderr


def test_config_baseline_is_read(repo: Path) -> None:
    Path("manifests").mkdir()
    Path("manifests/stale.yaml").write_text(STALE)
    Path(".dynamo-render.yaml").write_text(CONFIG + LEFT_OUT + "  baseline: lint-baseline.json\n")
    assert lint("--write-baseline", "lint-baseline.json", config=True).exit_code == 0
    result = lint(config=True)
    assert result.exit_code == 0, result.output
    assert "2 suppressed" in result.stderr


def test_a_large_input_split_across_processes_suppresses_the_same(repo: Path) -> None:
    """Past 64 files lint splits the run by file (renderer.lint.split): suppressions apply
    to its merged findings exactly as to a one-pass run."""
    Path("many").mkdir()
    for n in range(70):
        Path(f"many/clean-{n:02d}.yaml").write_text(CLEAN)
    Path("many/stale.yaml").write_text(IGNORE_STALE + STALE)
    Path("many/misplaced.yaml").write_text(MISPLACED)
    assert lint("many", "--write-baseline", "b.json", "-j", "2").exit_code == 0
    Path("many/misplaced.yaml").write_text("# moved down\n" + MISPLACED)
    reports = [
        json.loads(lint("many", "--baseline", "b.json", "--format", "json", "-j", jobs).stdout)
        for jobs in ("1", "2")
    ]
    assert reports[0] == reports[1]
    report = reports[0]
    assert report["findings"] == []
    kinds = sorted((s["rule"], s["suppression"]["kind"]) for s in report["suppressed"])
    assert kinds == [
        ("binding-misplaced", "external"),
        ("binding-stale", "inSource"),
        ("binding-stale", "inSource"),
    ]
