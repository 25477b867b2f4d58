"""render finds a snapshot as the operator does, and renders without one the operator would
not read (a warning says which and why).

Expected checkpoint names and IDs are the oracle's (tests/operator/goldens/bound/*/
checkpoint-resolution.yaml: what the pinned operator resolves for the example DGD);
the stale snapshot is reference vector 02 (captured for worker hash 5f8d2c1a9b, named
checkpoint-9f1e2d3c4b5a6978), which the labels match but the operator never reads.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from paths import OPERATOR_GOLDENS
from render_support import BASELINE

from renderer.cli import main

BOUND = OPERATOR_GOLDENS / "bound" / "example-v1beta1"


def _oracle_resolution() -> dict[str, str]:
    report = yaml.safe_load((BOUND / "checkpoint-resolution.yaml").read_text())
    entry = report["components"]["VllmDecodeWorker"]
    return {
        "name": entry["checkpointName"],
        "id": entry["checkpointID"],
        "hash": str(report["workerHashV2"]),
    }


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copy(BOUND / "dgd.yaml", tmp_path / "dgd.yaml")
    (tmp_path / "snaps").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _render(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["render", "dgd.yaml", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_snapshot_the_operator_resolves_is_bound(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(BOUND / "checkpoint.yaml", work / "snaps" / "decode.yaml")
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    assert (code, err) == (0, "")
    assert "nvidia.com/dynamo-checkpoint-bindings:" in out
    assert f"nvidia.com/dynamo-checkpoint-name: {_oracle_resolution()['name']}" in out


def test_stale_snapshot_matched_by_labels_is_outdated_and_the_component_pending(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # state 3 of admission.md: the operator creates the checkpoint for the new worker
    # hash and never reads the old one, so render renders that, and says both
    shutil.copy(BASELINE, work / "snaps" / "decode.yaml")
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    want = _oracle_resolution()
    assert code == 0, err
    assert "nvidia.com/dynamo-checkpoint-binding" not in out
    assert f"nvidia.com/dynamo-checkpoint-name: {want['name']}" in out
    outdated, pending = (line for line in err.splitlines() if "warning:" in line)
    assert outdated.startswith("dynamo-render: warning: snaps/decode.yaml:")
    assert "snapshot checkpoint-9f1e2d3c4b5a6978 is outdated" in outdated
    assert "worker hash 5f8d2c1a9b" in outdated and f"now {want['hash']}" in outdated
    # the old advice pinned the old process: it is only given as a caveat now
    assert "would restore a process captured from another spec" in outdated
    assert "dgd.yaml:" in pending and "is not captured yet" in pending
    assert (
        f"`kubectl get dynamocheckpoint {want['name']} -n dynamo-prod -o yaml >"
        f" snaps/{want['name']}.yaml`"
    ) in pending


def test_found_name_with_another_checkpoint_id_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (BOUND / "checkpoint.yaml").read_text()
    want = _oracle_resolution()
    wrong = "0" * 32
    text = text.replace(f'checkpointID: "{want["id"]}"', f'checkpointID: "{wrong}"')
    (work / "snaps" / "decode.yaml").write_text(text)
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    assert (code, out) == (2, "")
    assert f"checkpoint ID {wrong}" in err and want["id"] in err
    # located at the status.checkpointID value
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("  checkpointID"))
    assert f"snaps/decode.yaml:{line}:" in err


def test_without_owner_reference_the_check_could_not_run(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load((BOUND / "checkpoint.yaml").read_text())
    del data["metadata"]["ownerReferences"]
    (work / "snaps" / "decode.yaml").write_text(yaml.safe_dump(data))
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    assert code == 0
    assert "warning:" in err and "could not check" in err and "ownerReference" in err
    # the restore metadata names the snapshot that was given
    assert f"nvidia.com/dynamo-checkpoint-name: {data['metadata']['name']}" in out


def test_no_snapshot_names_the_checkpoint_the_operator_looks_for(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load((BOUND / "checkpoint.yaml").read_text())
    data["metadata"]["labels"]["nvidia.com/dynamo-component"] = "Other"
    data["metadata"]["name"] = "checkpoint-unrelated"
    (work / "snaps" / "other.yaml").write_text(yaml.safe_dump(data))
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    # state 1: rendered before the capture, the checkpoint named with the uid of the
    # given snapshot's ownerReference
    assert code == 0, err
    assert "nvidia.com/dynamo-checkpoint-binding" not in out
    assert "dgd.yaml:" in err and _oracle_resolution()["name"] in err
    assert "is not captured yet" in err
    assert "checkpoint-unrelated matches no checkpoint-enabled component" in err


def test_manual_checkpoint_by_ref_is_not_bound(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the oracle corpus case: checkpointRef to a manual DynamoCheckpoint
    case = OPERATOR_GOLDENS / "oracle" / "beta-checkpoint-ref-ready"
    shutil.copy(case / "input-dgd.yaml", work / "dgd.yaml")
    shutil.copy(case / "checkpoint.yaml", work / "snaps" / "manual.yaml")
    code, out, err = _render(capsys, "--checkpoint", "snaps")
    assert (code, err) == (0, "")
    assert "dynamo-checkpoint-binding" not in out
    assert "nvidia.com/dynamo-checkpoint-name: qwen3-06b-bf16" in out


def test_admission_refusal_is_located_in_the_input(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = OPERATOR_GOLDENS / "oracle" / "beta-refused-update-strategy"
    shutil.copy(case / "input-dgd.yaml", work / "dgd.yaml")
    code, out, err = _render(capsys)
    assert (code, out) == (2, "")
    expected = (case / "expected-error.txt").read_text().strip()
    assert expected.split(": ")[-1] in err
    lines = (work / "dgd.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if "grove-update-strategy" in t)
    assert f"dgd.yaml:{line}:" in err
