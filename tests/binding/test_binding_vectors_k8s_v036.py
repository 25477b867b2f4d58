"""Vectors for the fields k8s.io/api v0.36.2 added to the binding's closure.

`PodSpec.schedulingGroup` and `PodCertificateProjection.userAnnotations` are in the types
the pinned operator builds with (v0.36.2) and were not in the v0.34.3 table the binding
used before, which dropped them. Every expected value in
tests/vectors-k8s-v0.36.2/expected.jsonl was computed by Go in the pinned operator's module
(`scripts/gen-binding-go vectors tests/vectors-k8s-v0.36.2`: the real v1alpha1 and
k8s.io/api v0.36.2 types, sigs.k8s.io/json strict decoding, encoding/json); nothing here
comes from this tool's output.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from paths import TESTS

from renderer.binding import bind
from renderer.binding.gotypes import TABLE_RESOURCE, type_table
from renderer.commands.binding import command
from renderer.errors import BindingError
from renderer.source import load_paths

HERE = TESTS / "vectors-k8s-v0.36.2"
CASES: list[dict[str, Any]] = [
    json.loads(line)
    for line in (HERE / "expected.jsonl").read_text("utf-8").rstrip("\n").split("\n")
]
GOOD = [case for case in CASES if case["binding"] is not None]
STRICT = [case for case in CASES if case["strict_errors"]]
# the README's only group sharing one binding; every other digest is distinct
SAME = (
    "01-baseline",
    "04-same-as-01-scheduling-group-null",
    "06-same-as-01-user-annotations-empty",
)


def _path(case: dict[str, Any]) -> Path:
    return HERE / f"{case['case']}.input.yaml"


def test_the_vector_set_is_complete_and_uses_both_fields() -> None:
    assert [len(CASES), len(GOOD), len(STRICT)] == [10, 8, 2]
    assert all(_path(case).is_file() for case in CASES)
    assert all(case["error"] is None for case in CASES)
    canon = [case["canonical_json"] for case in GOOD]
    assert sum('"schedulingGroup":' in text for text in canon) == 4
    assert sum('"userAnnotations":' in text for text in canon) == 3


def test_the_table_is_the_one_of_the_pinned_operator() -> None:
    source = type_table().source
    assert source["k8s.io/api"] == source["k8s.io/apimachinery"] == "v0.36.2"
    assert source["k8s.io/api"] in TABLE_RESOURCE


@pytest.mark.parametrize("case", GOOD, ids=[c["case"] for c in GOOD])
def test_library_matches_go(case: dict[str, Any]) -> None:
    (obj,) = load_paths([str(_path(case))])
    bound = bind(obj)
    assert bound.canonical == case["canonical_json"]
    assert bound.binding.digest == case["sha256"]
    assert bound.value == case["binding"]
    assert bound.warnings == ()


@pytest.mark.parametrize("case", GOOD, ids=[c["case"] for c in GOOD])
def test_cli_json_matches_go(case: dict[str, Any]) -> None:
    result = CliRunner().invoke(command, [str(_path(case)), "--json"])
    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout)
    assert (record["binding"], record["digest"], record["canonical"]) == (
        case["binding"],
        case["sha256"],
        case["canonical_json"],
    )


def test_one_process_over_all_good_vectors() -> None:
    paths = [str(_path(case)) for case in GOOD]
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "binding", *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert [line.split(" ")[1] for line in proc.stdout.splitlines()] == [
        case["binding"] for case in GOOD
    ]


def test_groups_share_or_differ_as_recorded() -> None:
    by_name = {case["case"]: case["sha256"] for case in GOOD}
    assert len({by_name[name] for name in SAME}) == 1
    others = [digest for name, digest in by_name.items() if name not in SAME]
    assert len(set(others)) == len(others) == 5
    assert by_name[SAME[0]] not in others


def _key_position(path: Path, key: str) -> tuple[int, int]:
    """Line and column of the (only) `key:` in the file, 1-based."""
    (hit,) = [
        (number, line.index(key) + 1)
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if line.strip().startswith(f"{key}:")
    ]
    return hit


@pytest.mark.parametrize("case", STRICT, ids=[c["case"] for c in STRICT])
def test_a_field_go_reports_as_unknown_is_refused_at_its_key(case: dict[str, Any]) -> None:
    (go_error,) = case["strict_errors"]
    field = go_error.removeprefix('unknown field "').removesuffix('"')
    (obj,) = load_paths([str(_path(case))])
    with pytest.raises(BindingError) as info:
        bind(obj)
    error = info.value
    assert error.message.startswith(f"{field}: unknown field: ")
    assert "k8s.io/api v0.36.2" in error.message
    assert (error.line, error.column) == _key_position(_path(case), field.split(".")[-1])
    out, err = io.StringIO(), io.StringIO()
    from renderer.cli import main

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["binding", str(_path(case))])
    assert code == 2
    assert out.getvalue() == ""
    assert err.getvalue() == (
        f"dynamo-render: error: {_path(case)}:{error.line}:{error.column}: {error.message}\n"
    )
