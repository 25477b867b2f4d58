"""Issue 22 through the real CLI: lint checks what `kubectl apply -f` sends, no more, no less.

Each case of tests/fixtures/kubectl (see its README) was a way to commit a stale binding
that lint passed; `<case>.kubectl.json` is what the kubectl oracle recorded for it. Every
test here failed before the reading layer followed kubectl: lint reported nothing (or
refused a file kubectl applies), where it now finds the stale binding kubectl would send,
and reads exactly the recorded objects.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from kubectl_support import compare, loads_sent
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, VECTORS

from renderer.cli import cli
from renderer.source.files import read_objects

CASES = FIXTURES / "kubectl"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
WORKER = "llama-disagg-vllmdecodeworker-5f8d2c1a9b"


def lint(*args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(
        cli,
        ["lint", *VECTOR_FIXTURES, "--format", "json", "--checkpoint", SNAPSHOT, *args],
        catch_exceptions=False,
    )
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, report, result.stderr


def lint_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m renderer lint ...` in a child process (errors included, as users see them)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "renderer",
            "lint",
            *VECTOR_FIXTURES,
            "--checkpoint",
            SNAPSHOT,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def recorded(case: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = loads_sent((CASES / f"{case}.kubectl.json").read_text())
    return found


STALE = [
    ("items-configmap", "items-configmap.yaml"),
    ("items-dcdlist", "items-dcdlist.yaml"),
    ("items-on-bound-dcd", "items-on-bound-dcd.yaml"),
    ("json-emoji", "json-emoji.json"),
    ("json-lone-surrogate", "json-lone-surrogate.json"),
    ("json-lines", "json-lines.json"),
    ("json-concatenated", "json-concatenated.json"),
    ("template-comment-dots", "template-comment-dots.yaml"),
    ("template-tab-comment", "template-tab-comment.yaml"),
    ("json-escapes", "json-escapes.json"),
    ("chart-templates", "chart/templates"),
    ("folder-json", "folder-json"),
]


@pytest.mark.parametrize(("case", "path"), STALE, ids=[c for c, _ in STALE])
def test_the_stale_binding_kubectl_sends_is_found(case: str, path: str) -> None:
    code, report, stderr = lint(str(CASES / path))
    assert code == 1, (stderr, report)
    rules = {f["rule"] for f in report["findings"]}
    assert "binding-stale" in rules, report["findings"]
    assert report["summary"]["skippedFiles"] == []


@pytest.mark.parametrize(("case", "path"), STALE, ids=[c for c, _ in STALE])
def test_lint_reads_the_objects_kubectl_recorded(case: str, path: str) -> None:
    for per_file in (False, True):
        found, skipped = read_objects([str(CASES / path)], per_file=per_file)
        assert skipped == []
        compare(recorded(case), found)


def test_chart_template_named_on_the_command_line_is_read() -> None:
    path = CASES / "chart" / "templates" / "worker.yaml"
    code, report, _ = lint(str(path))
    assert code == 1
    assert {f["rule"] for f in report["findings"]} >= {"binding-stale"}


def test_a_bare_items_line_sends_nothing_of_the_dcd() -> None:
    """kubectl reads the DCD with `items:` (null) as an empty list: it applies neither
    the DCD nor anything else from that document, so there is nothing to check."""
    code, report, _ = lint(str(CASES / "items-bare.yaml"))
    assert (code, report["summary"]["objects"]) == (0, 0)
    found, _ = read_objects([str(CASES / "items-bare.yaml")])
    compare(recorded("items-bare"), found)


def test_a_bound_dcd_with_items_is_not_what_kubectl_applies() -> None:
    """kubectl applies the stale item, not the bound DCD that holds it."""
    _, report, _ = lint(str(CASES / "items-on-bound-dcd.yaml"))
    names = {f["message"] for f in report["findings"] if f["rule"] == "binding-stale"}
    assert names and all(WORKER in m or "stale" in m for m in names)


def test_a_tag_directive_before_the_split_is_refused_as_kubectl_refuses_it() -> None:
    """kubectl cuts the stream at the `---` line first: the directive's piece holds no
    document ("did not find expected <document start>", tag-directive.kubectl.err)."""
    assert (
        "did not find expected <document start>"
        in (CASES / "tag-directive.kubectl.err").read_text()
    )
    proc = lint_process(str(CASES / "tag-directive.yaml"))
    assert proc.returncode == 2, proc.stderr
    assert "tag-directive.yaml:2:1: invalid YAML: did not find expected <document start>" in (
        proc.stderr
    )


def test_the_alias_budget_is_per_file(tmp_path: Path) -> None:
    """Documents the pre-scan skips used to restart the alias budget: 88 KB took 1 GB.
    Now the file's aliases share one budget: a clean exit 2, quickly."""
    bomb = (
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoComponentDeployment\n"
        "metadata: {name: w}\n"
        "spec:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
        "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n  d: [*c, *c, *c, *c, *c, *c, *c, *c]\n"
    )
    other = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
    path = tmp_path / "bombs.yaml"
    path.write_text((bomb + other) * 300)
    assert path.stat().st_size < 150_000
    start = time.perf_counter()
    proc = lint_process(str(path))
    assert proc.returncode == 2, proc.stderr
    assert "aliases expand to more than 100000 nodes" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.perf_counter() - start < 30  # it took 9-14 s of CPU and 1 GB before


def test_yaml_integers_past_int64_are_the_floats_kubectl_sends() -> None:
    # go-yaml reads 2**63 .. 2**64-1 as a uint64 and kubectl's JSON decoding of the object
    # keeps only int64 or float64: the cluster gets a float64 (the file has no binding, so
    # the objects are compared, not the verdict).
    for per_file in (False, True):
        found, skipped = read_objects([str(CASES / "yaml-uint64.yaml")], per_file=per_file)
        assert skipped == []
        compare(recorded("yaml-uint64"), found)
    assert isinstance(recorded("yaml-uint64")[0]["x"]["c"], float)
