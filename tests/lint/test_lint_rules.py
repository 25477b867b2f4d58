"""Every lint rule on committed fixtures for DCD v1alpha1, DCD v1beta1 and PCS.

Fixture bindings come from the reference vectors (see tests/fixtures/lint/make_variants.py);
the snapshot is vector 02. Each case states (rule, line, column) and the exit code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, REPO, VECTORS

from renderer.cli import cli

FIXTURES = FIXTURES / "lint"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")

# (kind folder, fixture, exit code, {(rule, line, column), ...} = every finding expected)
CASES = [
    ("dcd-v1alpha1", "clean", 0, set()),
    ("dcd-v1alpha1", "binding-absent", 1, {("binding-absent", 22, 5)}),
    (
        "dcd-v1alpha1",
        "binding-disagree",
        1,
        {("binding-disagree", 24, 45), ("binding-provenance", 24, 45)},
    ),
    (
        "dcd-v1alpha1",
        "binding-replaced",
        1,
        {("binding-replaced", 12, 43), ("binding-replaced", 24, 45)},
    ),
    ("dcd-v1alpha1", "binding-stale", 1, {("binding-stale", 12, 43), ("binding-stale", 24, 45)}),
    (
        "dcd-v1alpha1",
        "binding-provenance",
        1,
        {("binding-provenance", 12, 43), ("binding-provenance", 24, 45)},
    ),
    (
        "dcd-v1alpha1",
        "binding-malformed",
        1,
        {("binding-malformed", 12, 43), ("binding-malformed", 24, 45)},
    ),
    ("dcd-v1alpha1", "binding-misplaced", 0, {("binding-misplaced", 38, 43)}),
    ("dcd-v1alpha1", "checkpoint-unverifiable", 0, {("checkpoint-pending", 25, 42)}),
    ("dcd-v1beta1", "clean", 0, set()),
    ("dcd-v1beta1", "binding-absent", 1, {("binding-absent", 23, 7)}),
    (
        "dcd-v1beta1",
        "binding-disagree",
        1,
        {("binding-disagree", 24, 47), ("binding-provenance", 24, 47)},
    ),
    (
        "dcd-v1beta1",
        "binding-replaced",
        1,
        {("binding-replaced", 13, 43), ("binding-replaced", 24, 47)},
    ),
    ("dcd-v1beta1", "binding-stale", 1, {("binding-stale", 13, 43), ("binding-stale", 24, 47)}),
    (
        "dcd-v1beta1",
        "binding-provenance",
        1,
        {("binding-provenance", 13, 43), ("binding-provenance", 24, 47)},
    ),
    (
        "dcd-v1beta1",
        "binding-malformed",
        1,
        {("binding-malformed", 13, 43), ("binding-malformed", 24, 47)},
    ),
    ("dcd-v1beta1", "binding-misplaced", 0, {("binding-misplaced", 40, 43)}),
    ("dcd-v1beta1", "checkpoint-unverifiable", 0, {("checkpoint-pending", 25, 44)}),
    ("pcs", "clean", 0, set()),
    ("pcs", "binding-absent", 1, {("binding-absent", 29, 9)}),
    ("pcs", "binding-disagree", 1, {("binding-disagree", 30, 49), ("binding-provenance", 30, 49)}),
    *[
        ("pcs", rule, 1, {(rule, 11, 44), (rule, 30, 49), (rule, 47, 49)})
        for rule in ("binding-replaced", "binding-stale", "binding-provenance", "binding-malformed")
    ],
    ("pcs", "binding-misplaced", 0, {("binding-misplaced", 59, 49)}),
    (
        "pcs",
        "checkpoint-unverifiable",
        0,
        {("checkpoint-pending", 31, 46), ("checkpoint-pending", 48, 46)},
    ),
]


def run_lint(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["lint", *VECTOR_FIXTURES, *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def findings(*args: str) -> tuple[int, list[dict[str, object]]]:
    code, out, _ = run_lint("--format", "json", *args)
    return code, json.loads(out)["findings"]


@pytest.mark.parametrize(("kind", "fixture", "exit_code", "expected"), CASES)
def test_rule_fixture(
    kind: str, fixture: str, exit_code: int, expected: set[tuple[str, int, int]]
) -> None:
    path = str(FIXTURES / kind / f"{fixture}.yaml")
    code, found = findings(path, "--checkpoint", SNAPSHOT)
    got = {(f["rule"], f["line"], f["column"]) for f in found}
    # the multiset collapses duplicates at one place (two map entries): compare as sets
    assert got == expected
    assert code == exit_code
    for f in found:
        assert f["file"] == path
        assert f["kind"] in ("DynamoComponentDeployment", "PodCliqueSet")
        assert f["namespace"] == "dynamo-prod"
        assert f["hint"]


@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
def test_unverifiable_is_an_error_with_strict(kind: str) -> None:
    path = str(FIXTURES / kind / "checkpoint-unverifiable.yaml")
    code, found = findings(path, "--checkpoint", SNAPSHOT, "--strict")
    assert code == 1
    assert {f["severity"] for f in found} == {"error"}


@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
def test_no_snapshot_means_pending_not_clean(kind: str) -> None:
    """Without the snapshot the checkpoint is pending (admission §3): a warning naming the
    command that saves it, never a pass."""
    code, found = findings(str(FIXTURES / kind / "clean.yaml"))
    assert code == 0
    assert found and {f["rule"] for f in found} == {"checkpoint-pending"}
    assert all(
        "kubectl get dynamocheckpoint checkpoint-9f1e2d3c4b5a6978 -n dynamo-prod -o yaml"
        in str(f["hint"])
        for f in found
    )


@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
def test_checkpoint_invalid(kind: str) -> None:
    snapshot = str(VECTORS / "47-error-missing-uid.input.yaml")
    code, found = findings(str(FIXTURES / kind / "clean.yaml"), "--checkpoint", snapshot)
    assert code == 1
    invalid = [f for f in found if f["rule"] == "checkpoint-invalid"]
    invalid = [f for f in invalid if f["file"] == snapshot] + [
        f for f in invalid if f["file"] != snapshot
    ]
    assert [f["file"] for f in invalid if f["file"] == snapshot] == [snapshot]
    assert "automatic checkpoint UID is missing" in str(invalid[0]["message"])
    # the workloads bound to it are denied (the webhook cannot verify their binding)
    bound = [f for f in found if f["rule"] == "checkpoint-invalid" and f["file"] != snapshot]
    assert bound and all(f["severity"] == "error" for f in bound)
    assert all("admission: denied" in str(f["message"]) for f in bound)


@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
def test_manual_snapshot_is_not_invalid(kind: str) -> None:
    """A manual checkpoint (auto marker not "true") is never bound and is no error itself;
    the bindings these workloads carry anyway are denied at admission (a binding on a
    checkpoint that is not automatic), and --fix removes them."""
    snapshot = str(FIXTURES / "snapshots" / "not-automatic.yaml")
    code, found = findings(str(FIXTURES / kind / "clean.yaml"), "--checkpoint", snapshot)
    assert code == 1
    assert {f["rule"] for f in found} == {"binding-misplaced"}
    assert all(f["severity"] == "error" for f in found)
    assert all("is a manual checkpoint" in str(f["message"]) for f in found)
    assert all(f["fix"] for f in found)


@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
def test_checkpoint_untrusted(kind: str, tmp_path: Path) -> None:
    from renderer.trust import generate_key_pair

    _private, public, _fp = generate_key_pair()
    key = tmp_path / "team.pub"
    key.write_bytes(public)
    code, found = findings(
        str(FIXTURES / kind / "clean.yaml"), "--checkpoint", SNAPSHOT, "--trusted-key", str(key)
    )
    assert code == 1
    rules = {(f["rule"], f["file"], f["line"]) for f in found}
    assert ("checkpoint-untrusted", SNAPSHOT, 1) in rules
    assert any(f["rule"] == "checkpoint-unverifiable" for f in found)


def test_snapshot_among_linted_paths_is_used(tmp_path: Path) -> None:
    code, found = findings(str(FIXTURES / "pcs" / "binding-stale.yaml"), SNAPSHOT)
    assert code == 1
    assert {f["rule"] for f in found} == {"binding-stale"}


def test_list_rules_and_explain() -> None:
    from renderer.lint.rules import RULE_MODULES

    code, out, _ = run_lint("--list-rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list(RULE_MODULES)
    code, out, _ = run_lint("--explain", "binding-stale")
    assert code == 0
    assert "Bad" in out and "Fixed" in out
    assert CliRunner().invoke(cli, ["lint", "--explain", "nope"]).exit_code != 0


def test_text_format_and_summary() -> None:
    path = str(FIXTURES / "dcd-v1beta1" / "binding-absent.yaml")
    code, out, err = run_lint(path, "--checkpoint", SNAPSHOT, "--format", "text")
    assert code == 1
    assert out.startswith(f"{path}:23:7: error [binding-absent] ")
    assert "\033[" not in out
    assert err.strip().splitlines()[-1].startswith("dynamo-render lint: 1 error, 0 warnings")


def test_github_is_the_default_under_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(REPO)
    path = FIXTURES / "dcd-v1beta1" / "binding-absent.yaml"
    code, out, _ = run_lint(str(path), "--checkpoint", SNAPSHOT)
    assert code == 1
    # annotations name the file from the repository root, as the runner attaches them
    relative = path.relative_to(REPO).as_posix()
    assert out.startswith(f"::error file={relative},line=23,col=7,title=binding-absent::")


def test_disable_leaves_a_rule_out_and_refuses_an_unknown_one() -> None:
    stale = str(FIXTURES / "dcd-v1beta1" / "binding-stale.yaml")
    code, out, _ = run_lint(stale, "--checkpoint", SNAPSHOT)
    assert code == 1 and "[binding-stale]" in out
    code, out, _ = run_lint(stale, "--checkpoint", SNAPSHOT, "--disable", "binding-stale")
    assert "[binding-stale]" not in out
    import contextlib
    import io

    from renderer.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["lint", stale, "--disable", "no-such-rule"]) == 2
    assert "--disable no-such-rule: no such rule (see --list-rules)" in err.getvalue()
