"""The committed type table and Go vectors are what the Go programs print today.

Each test builds a program of scripts/binding-go inside the pinned operator's module
(scripts/gen-binding-go: the operator-source archive beside the repository, Go on PATH) and
compares its output with the committed file, so a table or vector edited by hand, or a
generator changed without regenerating, fails here. Minutes each (an offline Go build):
slow, and skipped where Go or the archive is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from paths import REPO, TESTS, VECTORS

from renderer.binding.gotypes import TABLE_RESOURCE

SCRIPT = REPO / "scripts" / "gen-binding-go"
ARCHIVE = REPO.parent / "shared" / "operator-oracle" / "operator-source.tar.xz"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("go") is None, reason="no Go toolchain on PATH"),
    pytest.mark.skipif(
        not (os.environ.get("DYNAMO_OPERATOR_SOURCE") or ARCHIVE.is_file()),
        reason="the pinned operator's source archive is not available",
    ),
]


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=1800,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_type_table_is_what_the_generator_prints() -> None:
    committed = (REPO / "renderer" / "data" / TABLE_RESOURCE).read_text("utf-8")
    assert _run("types") == committed


def test_the_new_vectors_are_what_go_computes() -> None:
    folder = TESTS / "vectors-k8s-v0.36.2"
    assert _run("vectors", str(folder)) == (folder / "expected.jsonl").read_text("utf-8")


def test_go_at_the_pinned_versions_reproduces_the_55_vectors() -> None:
    computed = [json.loads(line) for line in _run("vectors", str(VECTORS)).rstrip("\n").split("\n")]
    recorded = [json.loads(line) for line in (VECTORS / "expected.jsonl").read_text().splitlines()]
    fields = ("case", "canonical_json", "sha256", "binding", "error", "input_json")
    assert [[c[f] for f in fields] for c in computed] == [[r[f] for f in fields] for r in recorded]
    assert all(c["strict_errors"] == [] for c in computed)
