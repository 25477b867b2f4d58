"""Every golden vector, through the library, the click command (--json) and a real process.

Expected values come only from tests/vectors/expected.jsonl (computed by Go with the real
Kubernetes types); nothing here is derived from the tool's own output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from paths import VECTORS

from renderer.binding import bind, canonical_projection
from renderer.commands.binding import command
from renderer.errors import BindingError
from renderer.source import load_paths

CASES: list[dict[str, Any]] = [
    json.loads(line) for line in (VECTORS / "expected.jsonl").read_text("ascii").splitlines()
]
BY_NAME = {case["case"]: case for case in CASES}
GOOD = [case for case in CASES if case["error"] is None]
BAD = [case for case in CASES if case["error"] is not None]


def _path(case: dict[str, Any]) -> Path:
    return VECTORS / f"{case['case']}.input.yaml"


def test_the_vector_set_is_complete() -> None:
    assert len(CASES) == 55
    assert len(GOOD) == 46
    assert len(BAD) == 9
    assert all(_path(case).is_file() for case in CASES)


@pytest.mark.parametrize("case", GOOD, ids=[c["case"] for c in GOOD])
def test_library_matches_go(case: dict[str, Any]) -> None:
    (obj,) = load_paths([str(_path(case))])
    bound = bind(obj)
    assert bound.canonical == case["canonical_json"]
    assert bound.binding.digest == case["sha256"]
    assert bound.value == case["binding"]
    assert canonical_projection(obj) == case["canonical_json"]
    assert str(bound.binding) == case["binding"]


@pytest.mark.parametrize("case", BAD, ids=[c["case"] for c in BAD])
def test_library_rejects_with_the_operator_message(case: dict[str, Any]) -> None:
    (obj,) = load_paths([str(_path(case))])
    with pytest.raises(BindingError) as info:
        bind(obj)
    assert info.value.message == case["error"]
    assert info.value.file == str(_path(case))
    assert info.value.line is not None


@pytest.mark.parametrize("case", GOOD, ids=[c["case"] for c in GOOD])
def test_cli_json_matches_go(case: dict[str, Any]) -> None:
    result = CliRunner().invoke(command, [str(_path(case)), "--json"])
    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout)
    uid, generation = case["binding"].split("/")[1:3]
    assert record == {
        "namespace": record["namespace"],
        "name": record["name"],
        "uid": uid,
        "generation": int(generation),
        "checkpointID": record["checkpointID"],
        "binding": case["binding"],
        "digest": case["sha256"],
        "canonical": case["canonical_json"],
    }
    projection = json.loads(case["canonical_json"])
    assert (record["namespace"], record["name"], record["checkpointID"]) == (
        projection["namespace"],
        projection["name"],
        projection["checkpointID"],
    )
    assert list(record) == [
        "namespace",
        "name",
        "uid",
        "generation",
        "checkpointID",
        "binding",
        "digest",
        "canonical",
    ]


@pytest.mark.parametrize("case", BAD, ids=[c["case"] for c in BAD])
def test_cli_rejects_with_exit_2_and_the_reason(case: dict[str, Any]) -> None:
    from renderer.cli import main

    runner = CliRunner()
    result = runner.invoke(command, [str(_path(case))])
    assert result.exit_code != 0
    assert isinstance(result.exception, BindingError)
    assert result.exception.message == case["error"]
    # through main(): one line, file:line:col, exit 2, nothing on stdout
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["binding", str(_path(case))])
    assert code == 2
    assert out.getvalue() == ""
    assert err.getvalue().startswith(f"dynamo-render: error: {_path(case)}:")
    assert err.getvalue().rstrip("\n").endswith(case["error"])


def test_one_process_over_all_good_vectors() -> None:
    """`python -m renderer binding` over every good vector at once: lines in input order."""
    paths = [str(_path(case)) for case in GOOD]
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "binding", *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(" ")[1] for line in lines] == [case["binding"] for case in GOOD]
    for line, case in zip(lines, GOOD, strict=True):
        projection = json.loads(case["canonical_json"])
        assert line.split(" ")[0] == f"{projection['namespace']}/{projection['name']}"


def test_one_process_json_over_all_good_vectors() -> None:
    paths = [str(_path(case)) for case in GOOD]
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "binding", "--json", *paths],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert [r["canonical"] for r in records] == [c["canonical_json"] for c in GOOD]
    assert [r["digest"] for r in records] == [c["sha256"] for c in GOOD]


def test_a_directory_of_vectors_fails_on_the_first_unbindable_one() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "binding", str(VECTORS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""  # no partial output
    first_bad = BAD[0]
    assert f"{_path(first_bad)}:" in proc.stderr
    assert proc.stderr.rstrip("\n").endswith(first_bad["error"])


def _digest(name: str) -> str:
    (obj,) = load_paths([str(VECTORS / f"{name}.input.yaml")])
    return bind(obj).binding.digest


def _binding(name: str) -> str:
    (obj,) = load_paths([str(VECTORS / f"{name}.input.yaml")])
    return bind(obj).value


def test_groups_share_or_differ_as_recorded() -> None:
    checked = 0
    for case in GOOD:
        for key in ("same_binding_as", "same_sha256_as"):
            other = case.get(key)
            if other:
                assert _digest(case["case"]) == _digest(other), (case["case"], key, other)
                assert case["sha256"] == BY_NAME[other]["sha256"]
                if key == "same_binding_as":
                    assert _binding(case["case"]) == _binding(other) == case["binding"]
                checked += 1
        other = case.get("differs_from")
        if other:
            assert _digest(case["case"]) != _digest(other), (case["case"], other)
            checked += 1
    assert checked >= 10


def test_distinct_cases_have_distinct_digests() -> None:
    digests = {case["case"]: _digest(case["case"]) for case in GOOD}
    for case in GOOD:
        assert digests[case["case"]] == case["sha256"]
    # the README's groups are the only collisions
    assert len(set(digests.values())) == len({c["sha256"] for c in GOOD})
