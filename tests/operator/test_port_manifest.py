"""renderer/operator/PORT.tsv against the pinned operator's source.

Every function of each Go file the manifest names is listed once, nothing else is listed,
and every Python counterpart exists. The source is the operator module the oracle was
built from (../shared/operator-oracle/operator-source.tar.xz beside the checkout, as in
CI); without it the source checks are skipped, saying so.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import subprocess
import sys
import tarfile
from functools import cache
from typing import Any

import pytest
from paths import REPO

# A script, not a package module: loaded from its file.
_SPEC = importlib.util.spec_from_file_location(
    "operator_port", REPO / "scripts" / "operator_port.py"
)
assert _SPEC is not None and _SPEC.loader is not None
operator_port: Any = importlib.util.module_from_spec(_SPEC)
sys.modules["operator_port"] = operator_port
_SPEC.loader.exec_module(operator_port)

TARBALL = REPO.parent / "shared" / "operator-oracle" / "operator-source.tar.xz"


@cache
def _rows() -> list[Any]:
    rows: list[Any] = operator_port.read_manifest()
    return rows


@cache
def _go_sources() -> dict[str, str]:
    """The manifest's Go files, read from the pinned module."""
    wanted = {row.go_file for row in _rows()}
    found: dict[str, str] = {}
    with tarfile.open(TARBALL) as tar:
        for member in tar:
            name = member.name.removeprefix("./")
            if name in wanted and member.isfile():
                handle = tar.extractfile(member)
                assert handle is not None
                found[name] = handle.read().decode("utf-8")
    return found


needs_source = pytest.mark.skipif(
    not TARBALL.is_file(), reason=f"the pinned operator source is not at {TARBALL}"
)


def test_no_function_is_listed_twice() -> None:
    keys = [(row.go_file, row.function) for row in _rows()]
    assert len(keys) == len(set(keys))
    assert len(keys) > 700


def test_every_python_counterpart_exists() -> None:
    missing: list[str] = []
    for row in _rows():
        if not row.ported:
            continue
        module_name, _, qualname = row.python.partition(":")
        target: object = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part, None)
        if not callable(target):
            missing.append(f"{row.go_file} {row.function}: {row.python}")
    assert missing == []


def test_a_not_ported_row_says_why() -> None:
    assert all(len(r.python) > len(operator_port.NOT_PORTED) + 10 for r in _rows())


def test_no_row_is_left_to_review() -> None:
    # A placeholder is not an answer: each row names its counterpart or a real reason.
    pending = [f"{r.go_file} {r.function}" for r in _rows() if "to review" in r.python]
    assert pending == []


@needs_source
def test_the_manifest_lists_every_function_of_its_go_files() -> None:
    sources = _go_sources()
    assert sorted(sources) == sorted({row.go_file for row in _rows()})
    listed = {(row.go_file, row.function) for row in _rows()}
    in_go = {(f, name) for f, text in sources.items() for name in operator_port.go_functions(text)}
    assert sorted(in_go - listed) == []  # a function of those files the manifest omits
    assert sorted(listed - in_go) == []  # a listed function Go does not have


@needs_source
def test_the_functions_the_port_was_deduplicated_around_are_mapped_once() -> None:
    mapped = {(row.go_file, row.function): row.python for row in _rows()}
    assert mapped[("internal/dynamo/graph.go", "PCSNameForDGD")] == (
        "renderer.operator.graph_grove_roles:pcs_name_for_dgd"
    )
    assert mapped[("internal/runtimeversion/runtimeversion.go", "Resolve")] == (
        "renderer.operator.admission.runtimeversion:resolve"
    )
    assert (
        mapped[
            (
                "api/v1beta1/dynamocomponentdeployment_types.go",
                "DynamoComponentDeploymentSharedSpec.UsesPCSG",
            )
        ]
        == "renderer.operator.v1beta1_helpers:uses_pcsg"
    )


def test_go_functions_reads_methods_generics_and_doc_comments() -> None:
    text = (
        "package p\n\n// A says hi.\nfunc A() {}\n\n"
        "func (s *Spec) B(x int) int {\n\treturn x\n}\n\n"
        "func C[T any](t T) T {\n\treturn t\n}\n"
    )
    found = operator_port.go_functions(text)
    assert list(found) == ["A", "Spec.B", "C"]
    assert found["A"] == "// A says hi.\nfunc A() {}\n"
    assert found["Spec.B"].endswith("return x\n}\n")


def _git(repo: Any, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit(repo: Any, files: dict[str, str | None]) -> str:
    """Write (or delete, for None) files under deploy/operator and commit them."""
    for name, text in files.items():
        path = repo / "deploy" / "operator" / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "step")
    return _git(repo, "rev-parse", "HEAD")


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_changed_lists_what_a_bump_must_look_at(tmp_path: Any) -> None:
    repo = tmp_path / "upstream"
    repo.mkdir()
    _git(repo, "init", "-q")
    head = "package p\n\n"
    old = _commit(
        repo,
        {
            "p/a.go": head + "func Kept() {}\n\nfunc Edited() int {\n\treturn 1\n}\n\n"
            "func Gone() {}\n\nfunc Unlisted() {}\n",
            "p/b.go": head + "func InB() {}\n",
            "p/same.go": head + "func Same() {}\n",
        },
    )
    new = _commit(
        repo,
        {
            "p/a.go": head + "func Kept() {}\n\nfunc Edited() int {\n\treturn 2\n}\n\n"
            "func Fresh() {}\n\nfunc Listed() {}\n",
            "p/b.go": None,
            "p/c.go": head + "func InC() {}\n",
        },
    )
    rows = [
        operator_port.Row("p/a.go", name, python)
        for name, python in (
            ("Kept", "m:kept"),
            ("Edited", "m:edited"),
            ("Gone", "not ported: a reason"),
            ("Listed", "m:listed"),
        )
    ] + [
        operator_port.Row("p/b.go", "InB", "m:in_b"),
        operator_port.Row("p/c.go", "InC", "m:in_c"),
        operator_port.Row("p/same.go", "Same", "m:same"),
    ]
    git_dir = str(repo / ".git")
    assert list(operator_port.changed(git_dir, old, new, rows)) == [
        "p/a.go\tEdited\tchanged\tm:edited",
        "p/a.go\tGone\tremoved\tnot ported: a reason",
        "p/a.go\tListed\tadded\tm:listed",
        "p/a.go\tFresh\tadded\t(not in the manifest)",
        "p/a.go\tUnlisted\tremoved\t(not in the manifest)",
        f"p/b.go\t(file missing at {new})",
        "p/b.go\tInB\tremoved\tm:in_b",
        f"p/c.go\t(file missing at {old})",
        "p/c.go\tInC\tadded\tm:in_c",
    ]
    assert list(operator_port.changed(git_dir, new, new, rows)) == [
        f"p/b.go\t(file missing at {new} and {new})"
    ]


@needs_git
def test_changed_refuses_a_revision_the_mirror_lacks(tmp_path: Any, capsys: Any) -> None:
    repo = tmp_path / "upstream"
    repo.mkdir()
    _git(repo, "init", "-q")
    rev = _commit(repo, {"p/a.go": "package p\n"})
    git_dir = str(repo / ".git")
    assert operator_port.main(["changed", "--git-dir", git_dir, "no-such-rev", rev]) == 2
    assert "'no-such-rev' is not a commit" in capsys.readouterr().err
    assert operator_port.main(["changed", "--git-dir", git_dir, rev, rev]) == 0
