"""renderer/operator/PORT.tsv against the pinned operator's source.

Every function of each Go file the manifest names is listed once, nothing else is listed,
and every Python counterpart exists. The source is the operator module the oracle was
built from (../shared/operator-oracle/operator-source.tar.xz beside the checkout, as in
CI); without it the source checks are skipped, saying so.
"""

from __future__ import annotations

import importlib
import importlib.util
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
