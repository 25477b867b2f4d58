"""Lint reads the checkpoint a DCD restores from where the operator reads it: the DCD's
`spec.experimental.checkpoint.checkpointRef`.

The pinned operator's DCD controller resolves that name (internal/controller/
dynamocomponentdeployment_renderer.go, ResolveCheckpointForService) and sets or drops the
pods' `nvidia.com/dynamo-checkpoint-name` itself (internal/checkpoint/podspec.go), so a
value of that annotation the DGD wrote into the DCD's pod template is never what restores.
The manifest is the bundled example (examples/rendered), edited one fact at a time.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from paths import REPO

from renderer.cli import main

DCDS = REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml"
SNAPSHOTS = str(REPO / "examples" / "snapshots")
SNAPSHOT = "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1"  # the example snapshot's name
ANNOTATION = f"nvidia.com/dynamo-checkpoint-name: {SNAPSHOT}"
REF = f"checkpointRef: {SNAPSHOT}"


def _lint(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "dcd.yaml"
    path.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--no-config", "lint", str(path), "--checkpoint", SNAPSHOTS, "--strict"])
    return code, out.getvalue()


def test_a_dgd_written_checkpoint_name_does_not_hide_the_checkpoint_ref(tmp_path: Path) -> None:
    text = DCDS.read_text()
    assert text.count(ANNOTATION) == 1 and text.count(REF) == 1
    code, output = _lint(tmp_path, text.replace(ANNOTATION, ANNOTATION + "-other"))
    assert code == 0, output
    assert "0 errors, 0 warnings" in output


def test_the_checkpoint_ref_is_what_lint_resolves(tmp_path: Path) -> None:
    # the control: the same DCD whose checkpointRef names a snapshot not given
    code, output = _lint(tmp_path, DCDS.read_text().replace(REF, REF + "-other"))
    assert code == 1, output
    assert f"checkpoint {SNAPSHOT}-other is not among the snapshots" in output
