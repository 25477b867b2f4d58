"""A snapshot render does not use says why, naming the snapshot's file and what differs:
its namespace (the operator reads its DGD's namespace only) or its owner (the DGD was
created again since the capture, so its uid and the checkpoint name changed).

The example DGD and its captured snapshot are the bundled ones (examples/), which the
render tests check against the operator oracle; each test changes one thing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main

EXAMPLES = REPO / "examples"
SNAPSHOT = "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1"
OWNER_UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"  # the snapshot's controller ownerReference


def _render(capsys: pytest.CaptureFixture[str], dgd: str = "dgd.yaml") -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--no-config", "render", dgd, "--checkpoint", "snap.yaml"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_unchanged_example_renders(
    example_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _render(capsys)[0] == 0


def test_a_snapshot_in_another_namespace_is_named_with_its_file_and_namespace(
    example_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = Path("snap.yaml")
    snap.write_text(snap.read_text().replace("namespace: dynamo-prod", "namespace: staging"))
    code, _, err = _render(capsys)
    # not captured in the DGD's namespace: rendered as before the capture, with a warning
    assert code == 0
    assert "its checkpoint cannot be named yet" in err
    assert (
        f"snapshot {SNAPSHOT} (snap.yaml:6:3) is in namespace 'staging', not the DGD's"
        " 'dynamo-prod', and the operator reads its own namespace only" in err
    )


def test_a_snapshot_of_an_earlier_dgd_names_its_owner(
    example_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dgd = Path("dgd.yaml")
    recreated = "11111111-2222-3333-4444-555555555555"
    dgd.write_text(
        dgd.read_text().replace(
            "  name: llama-disagg\n", f"  name: llama-disagg\n  uid: {recreated}\n", 1
        )
    )
    code, _, err = _render(capsys)
    # the operator handles it (a new checkpoint for the new DGD): a warning, not a refusal
    assert code == 0
    assert "dynamo-render: warning: snap.yaml:" in err
    assert f"snapshot {SNAPSHOT} is outdated" in err
    assert (
        f"its owner is DGD 'llama-disagg' uid {OWNER_UID} (its controller ownerReference),"
        f" not uid {recreated}: the DGD was deleted and created again since the capture" in err
    )
