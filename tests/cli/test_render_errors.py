"""Every way `render` refuses: the message (snapshotted), exit code 2, and nothing printed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import HOSTILE, REPO, VECTORS
from render_support import (
    BASELINE,
    BASELINE_TWIN,
    FRONTEND_BETA,
    MINIMAL_NAME,
    MISSING_UID,
    decode_beta,
    v1beta1_dgd,
)
from syrupy.assertion import SnapshotAssertion

from renderer.cli import main

SINGLE = v1beta1_dgd(FRONTEND_BETA + decode_beta())


def _write(tmp_path: Path, text: str, name: str = "dgd.yaml") -> str:
    (tmp_path / name).write_text(text)
    return name


def _copy(tmp_path: Path, source: Path, name: str) -> str:
    snaps = tmp_path / "snaps"
    snaps.mkdir(exist_ok=True)
    shutil.copy(source, snaps / name)
    return f"snaps/{name}"


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """Run main() (the real error mapping) inside tmp_path; (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    code = main(["render", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


CASES: dict[str, tuple[str, list[tuple[Path, str]]]] = {
    "checkpoint-ref-no-snapshot": (SINGLE, []),
    "two-candidates": (SINGLE, [(BASELINE, "a.yaml"), (BASELINE_TWIN, "b.yaml")]),
    "unbindable-missing-uid": (SINGLE, [(MISSING_UID, "a.yaml")]),
    # marked automatic, without its ID label: a broken automatic checkpoint (vector 53's
    # Go-computed error); one without the marker is manual and renders unbound instead
    "unbindable-missing-id-label": (
        SINGLE,
        [(VECTORS / "53-error-missing-id-label.input.yaml", "a.yaml")],
    ),
    "binding-error-wrong-type": (
        v1beta1_dgd(decode_beta(checkpoint=f"          checkpointRef: {MINIMAL_NAME}\n")),
        [(HOSTILE / "image-as-number.yaml", "a.yaml")],
    ),
    "checkpoint-ref-not-found": (
        v1beta1_dgd(decode_beta(checkpoint="          checkpointRef: checkpoint-missing\n")),
        [(BASELINE, "a.yaml")],
    ),
    "conflicting-backends": (
        v1beta1_dgd(
            decode_beta(name="Decode", command="dynamo.vllm")
            + decode_beta(name="Prefill", component_type="prefill", command="dynamo.sglang")
        ).replace(
            "        checkpoint:\n          enabled: true\n",
            "        checkpoint:\n          enabled: false\n",
        ),
        [],
    ),
    "duplicate-lowercased-names": (
        v1beta1_dgd(FRONTEND_BETA + FRONTEND_BETA.replace("name: Frontend", "name: FRONTEND")),
        [],
    ),
    "grove-budget-exceeded": (
        v1beta1_dgd(
            decode_beta(
                name="VllmDecodeWorker",
                checkpoint="          checkpointRef: checkpoint-9f1e2d3c4b5a6978\n",
                experimental="        gpuMemoryService:\n          mode: InterPod\n",
            )
        ),
        [(BASELINE, "a.yaml")],
    ),
    # Grove needs unique clique names: "dec-ldr" is both a component and the leader
    # clique of the multinode component "dec".
    "grove-clique-name-collision": (
        v1beta1_dgd(
            FRONTEND_BETA.replace("name: Frontend", "name: dec-ldr")
            + FRONTEND_BETA.replace("name: Frontend", "name: dec").replace(
                "      replicas: 1\n", "      multinode:\n        nodeCount: 2\n"
            )
        ),
        [],
    ),
    "label-value-too-long": (
        v1beta1_dgd(FRONTEND_BETA, name="a" * 60),
        [],
    ),
    "not-a-dgd": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: y\n",
        [],
    ),
    "no-namespace": (SINGLE.replace("  namespace: dynamo-prod\n", "", 1), []),
}
GROVE_CASES = {"grove-budget-exceeded", "grove-clique-name-collision"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error(
    case: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    snapshot: SnapshotAssertion,
) -> None:
    text, snapshots = CASES[case]
    args = [_write(tmp_path, text)]
    for source, name in snapshots:
        args += ["--checkpoint", _copy(tmp_path, source, name)]
    if case in GROVE_CASES:
        args += ["--target", "grove"]
    code, out, err = _run(tmp_path, monkeypatch, capsys, *args)
    assert code == 2
    assert out == ""  # nothing printed on stdout
    lines = err.splitlines()
    assert len(lines) == 1, err  # no warnings before the error, one line
    assert lines[0].startswith("dynamo-render: error: ")
    assert "Traceback" not in err
    assert lines[0] == snapshot


def test_error_names_component_and_files(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [_write(tmp_path, SINGLE)]
    args += ["--checkpoint", _copy(tmp_path, BASELINE, "a.yaml")]
    args += ["--checkpoint", _copy(tmp_path, BASELINE_TWIN, "b.yaml")]
    _, _, err = _run(tmp_path, monkeypatch, capsys, *args)
    assert "'VllmDecodeWorker'" in err
    assert "snaps/a.yaml" in err and "snaps/b.yaml" in err


def test_error_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    args = [_write(tmp_path, SINGLE), "-o", "out"]
    code, _, _ = _run(tmp_path, monkeypatch, capsys, *args)
    assert code == 2
    assert not out.exists()


def test_check_needs_output_dir(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(tmp_path, monkeypatch, capsys, _write(tmp_path, SINGLE), "--check")
    assert (code, out) == (2, "")
    assert "--check needs -o DIR" in err


def test_unknown_target_is_a_usage_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(
        tmp_path, monkeypatch, capsys, _write(tmp_path, SINGLE), "--target", "helm"
    )
    assert (code, out) == (2, "")
    assert "'helm' is not one of 'dcd', 'grove'" in err


def test_real_process_error(tmp_path: Path) -> None:
    """The same failure through a real `python -m renderer` process."""
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(SINGLE)
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "render", str(dgd)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"dynamo-render: error: {dgd}:")
    assert "component 'VllmDecodeWorker': checkpointRef" in proc.stderr
    assert "no DynamoCheckpoint of that name" in proc.stderr
    assert "Traceback" not in proc.stderr
