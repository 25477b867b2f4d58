"""`dynamo-render binding` prints names from the snapshot escaped, as lint's reports do:
no terminal escape sequence, no line break that starts a CI workflow command
(`::warning::`), no bidi override or line separator, in the lines, `--verify` and `--json`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO, VECTORS

from renderer.cli import main

HOSTILE_NAME = "evil\x1b[31m\n::warning::pwned\u202e\u2028x\x85\x7f"
HOSTILE_NAMESPACE = "ns\u2029\u2066y"
# Characters that must never reach the output raw (besides each line's own final LF).
RAW = ["\x1b", "\u202e", "\u2028", "\u2029", "\u2066", "\x85", "\x7f"]


def _snapshot(tmp_path: Path) -> Path:
    """Reference vector 02's checkpoint (as JSON), renamed with control characters."""
    rows = (json.loads(line) for line in (VECTORS / "expected.jsonl").read_text().splitlines())
    row = next(r for r in rows if r["case"] == "02-worker-baseline")
    snapshot = json.loads(row["input_json"])
    snapshot["metadata"]["name"] = HOSTILE_NAME
    snapshot["metadata"]["namespace"] = HOSTILE_NAMESPACE
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snapshot))
    return path


def _assert_safe(out: str, lines: int) -> None:
    assert out.count("\n") == lines, out
    assert not any(char in out for char in RAW), ascii(out)
    assert not any(line.startswith("::") for line in out.splitlines())


def test_lines_and_verify_escape_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = str(_snapshot(tmp_path))
    assert main(["binding", snap]) == 0
    out = capsys.readouterr().out
    _assert_safe(out, 1)
    assert out.startswith("ns\\u2029\\u2066y/evil\\x1b[31m\\n::warning::pwned\\u202e\\u2028x")
    assert main(["binding", snap, "--verify", "v1/x/1/abc"]) == 1
    _assert_safe(capsys.readouterr().out, 1)


def test_json_escapes_names_and_decodes_to_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["binding", str(_snapshot(tmp_path)), "--json"]) == 0
    out = capsys.readouterr().out
    assert not any(char in out for char in RAW), ascii(out)
    (record,) = json.loads(out)
    # the escapes are JSON's own: the decoded values are the snapshot's names
    assert (record["namespace"], record["name"]) == (HOSTILE_NAMESPACE, HOSTILE_NAME)


def test_real_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "renderer", "binding", str(_snapshot(tmp_path))],
        capture_output=True,
        timeout=60,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    _assert_safe(done.stdout.decode("utf-8"), 1)
