"""`lint --fix`: only the intended lines change, idempotent, untouched files keep their mtime."""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, VECTORS

from renderer.cli import cli

FIXTURES = FIXTURES / "lint"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
KINDS = ["dcd-v1alpha1", "dcd-v1beta1", "pcs"]
FIXABLE = [
    "binding-absent",
    "binding-disagree",
    "binding-replaced",
    "binding-stale",
    "binding-provenance",
    "binding-malformed",
    "binding-misplaced",
]


def lint(*args: str) -> int:
    return (
        CliRunner().invoke(cli, ["lint", *VECTOR_FIXTURES, *args], catch_exceptions=False).exit_code
    )


def changed_lines(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rule", FIXABLE)
def test_fix_restores_the_clean_manifest(kind: str, rule: str, tmp_path: Path) -> None:
    clean = (FIXTURES / kind / "clean.yaml").read_text()
    broken = (FIXTURES / kind / f"{rule}.yaml").read_text()
    target = tmp_path / "manifest.yaml"
    target.write_text(broken)
    assert lint(str(target), "--checkpoint", SNAPSHOT, "--fix") == 1
    fixed = target.read_text()
    assert lint(str(target), "--checkpoint", SNAPSHOT) == 0
    if rule == "binding-absent":
        # the re-inserted line may differ in quoting from the clean one; only it changes
        assert len(changed_lines(broken, fixed)) == 1
        assert changed_lines(broken, fixed)[0].startswith("+")
    elif rule == "binding-misplaced":
        assert all(line.startswith("-") for line in changed_lines(broken, fixed))
    else:
        # value edits keep each line's quoting, so the result is the clean file exactly
        assert fixed == clean
    # idempotent: nothing left to fix, file untouched
    mtime = target.stat().st_mtime_ns
    assert lint(str(target), "--checkpoint", SNAPSHOT, "--fix") == 0
    assert target.read_text() == fixed
    assert target.stat().st_mtime_ns == mtime


def test_comments_survive_and_only_intended_lines_change(tmp_path: Path) -> None:
    broken = (FIXTURES / "dcd-v1alpha1" / "binding-stale.yaml").read_text()
    target = tmp_path / "stale.yaml"
    target.write_text(broken)
    assert lint(str(target), "--checkpoint", SNAPSHOT, "--fix") == 1
    after = target.read_text()
    changes = changed_lines(broken, after)
    assert len(changes) == 4  # two bindings, each one line out and one line in
    assert all("nvidia.com/dynamo-checkpoint-binding" in line for line in changes)
    assert "# restore from the captured checkpoint" in after
    assert "'v1/" in after  # the single-quoted copy stays single-quoted


def test_untouched_files_keep_their_mtime(tmp_path: Path) -> None:
    clean = tmp_path / "clean.yaml"
    stale = tmp_path / "stale.yaml"
    shutil.copy(FIXTURES / "pcs" / "clean.yaml", clean)
    shutil.copy(FIXTURES / "pcs" / "binding-stale.yaml", stale)
    past = 1_000_000_000
    os.utime(clean, ns=(past, past))
    assert lint(str(tmp_path), "--checkpoint", SNAPSHOT, "--fix") == 1
    assert clean.stat().st_mtime_ns == past
    assert stale.read_text() == clean.read_text()


def test_unfixable_findings_are_left_and_reported(tmp_path: Path) -> None:
    target = tmp_path / "unverifiable.yaml"
    shutil.copy(FIXTURES / "dcd-v1beta1" / "binding-stale.yaml", target)
    before = target.read_bytes()
    # no snapshot: stale cannot be told, nothing is written
    result = CliRunner().invoke(cli, ["lint", *VECTOR_FIXTURES, str(target), "--fix", "--strict"])
    assert result.exit_code == 1
    assert target.read_bytes() == before
    assert "checkpoint-pending" in result.stdout


def test_fix_refuses_stdin() -> None:
    result = CliRunner().invoke(cli, ["lint", "-", "--fix"], input="")
    assert result.exit_code != 0


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    broken = (FIXTURES / "dcd-v1beta1" / "binding-absent.yaml").read_text()
    target = tmp_path / "crlf.yaml"
    target.write_bytes(b"\xef\xbb\xbf" + broken.replace("\n", "\r\n").encode())
    assert lint(str(target), "--checkpoint", SNAPSHOT, "--fix") == 1
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert lint(str(target), "--checkpoint", SNAPSHOT) == 0
