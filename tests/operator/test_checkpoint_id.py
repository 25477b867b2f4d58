"""internal/checkpoint hash.go/resolve.go and the controller's checkpoint resolution.

References: the identity-hash vectors and DGDCheckpointID relations of the operator's
internal/checkpoint/hash_test.go, and the oracle's checkpoint mode (checkpoint-resolution.yaml
and expected-error.txt of both corpora: found by name with the right ID, a wrong
status.checkpointID, the ID from identityHash or the label, checkpointRef found / missing,
the DGD UID from metadata, from an owner reference, or none).
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_corpus import load_yaml
from test_dcd import all_cases, checkpoint_objects

from renderer.operator.checkpoint_hash import (
    checkpoint_id_of,
    checkpoint_name,
    compute_identity_hash,
    dgd_checkpoint_id,
)
from renderer.operator.checkpoint_id import (
    CheckpointResolutionError,
    apply_checkpoint_startup_policy,
    dgd_uid_for,
    resolve_dgd_checkpoints,
)
from renderer.operator.hash import compute_dgd_workers_spec_hash

CHECKPOINT_CASES = [c for c in all_cases() if c.checkpoint_mode]


def test_identity_hash_vectors() -> None:
    """TestComputeIdentityHash's known hashes."""
    assert (
        compute_identity_hash({"model": "meta-llama/Llama-2-7b-hf", "backendFramework": "vllm"})
        == "96429b2725761a09"
    )
    assert (
        compute_identity_hash(
            {
                "model": "meta-llama/Llama-2-13b-hf",
                "backendFramework": "sglang",
                "dynamoVersion": "0.4.2",
                "tensorParallelSize": 2,
                "pipelineParallelSize": 1,
                "dtype": "float16",
                "maxModelLen": 4096,
                "extraParameters": {"gpu_memory_utilization": "0.9"},
            }
        )
        == "f4ba65bccbb8e4fb"
    )
    # TP/PP default to 1, so explicit 1 and omitted hash alike.
    assert compute_identity_hash({"model": "m", "tensorParallelSize": 1}) == compute_identity_hash(
        {"model": "m"}
    )


def test_dgd_checkpoint_id_relations() -> None:
    """TestDGDCheckpointID."""
    base = dgd_checkpoint_id("ns", "dgd", "uid-1", "worker", "hash-1")
    assert len(base) == 32 and all(ch in "0123456789abcdef" for ch in base)
    assert base == dgd_checkpoint_id("ns", "dgd", "uid-1", "worker", "hash-1")
    assert base != dgd_checkpoint_id("ns", "dgd", "uid-2", "worker", "hash-1")
    assert base != dgd_checkpoint_id("ns", "dgd", "uid-1", "worker", "hash-2")
    assert base != dgd_checkpoint_id("ns", "dgd", "uid-1", "prefill", "hash-1")
    assert checkpoint_name(base) == f"checkpoint-{base}"


@pytest.mark.parametrize(
    "case", [c for c in CHECKPOINT_CASES if not c.refused], ids=lambda c: c.name
)
def test_automatic_ids_equal_the_oracle(case: Any) -> None:
    """DGDCheckpointID(namespace, name, uid, component, v2 hash) is the name the oracle used."""
    report = case.checkpoint_resolution()
    dgd = case.admitted_dgd()
    worker_hash = compute_dgd_workers_spec_hash(dgd)
    assert worker_hash == report["workerHashV2"]
    types = {c["name"]: c.get("type", "") for c in dgd["spec"]["components"]}
    for component, entry in report["components"].items():
        if entry["lookup"] != "auto (by name)":
            continue
        hash_for_id = worker_hash if types[component] in ("worker", "prefill", "decode") else ""
        want = dgd_checkpoint_id(
            dgd["metadata"]["namespace"],
            dgd["metadata"]["name"],
            report["dgdUID"],
            component,
            hash_for_id,
        )
        assert entry["checkpointName"] == checkpoint_name(want)


def _resolve(case: Any) -> tuple[dict[str, Any], str, str]:
    """Resolve as the oracle did: the UID from the input DGD (the admitted one carries it)."""
    dgd = case.admitted_dgd()
    objects = checkpoint_objects(case)
    given = load_yaml(case.path / "input-dgd.yaml")
    uid, source = dgd_uid_for(given, objects, None)
    resolution = resolve_dgd_checkpoints(dgd, compute_dgd_workers_spec_hash(dgd), objects, uid)
    return resolution, uid, source


@pytest.mark.parametrize(
    "case", [c for c in CHECKPOINT_CASES if not c.refused], ids=lambda c: c.name
)
def test_resolution_equals_the_oracle_report(case: Any) -> None:
    report = case.checkpoint_resolution()
    resolution, uid, source = _resolve(case)
    assert uid == report["dgdUID"]
    assert source == report["dgdUIDSource"]
    assert set(resolution) == set(report["components"])
    for name, res in resolution.items():
        assert res.ok, res.reason
        entry = report["components"][name]
        mine = res.report()
        # restoreInjectedAtRender is the Grove path's (pod-spec restore), not decided here.
        theirs = {k: v for k, v in entry.items() if k != "restoreInjectedAtRender"}
        assert mine == theirs, name
        status = report["dgdStatusCheckpoints"][name]
        assert status["checkpointName"] == res.checkpoint_name
        assert status["checkpointID"] == res.checkpoint_id
        assert bool(status.get("ready")) == res.ready


@pytest.mark.parametrize("case", [c for c in CHECKPOINT_CASES if c.refused], ids=lambda c: c.name)
def test_refusals_equal_the_oracle(case: Any) -> None:
    """A wrong ID on the object of that name, or a missing checkpointRef, stops the render."""
    error = (case.path / "expected-error.txt").read_text(encoding="utf-8").strip()
    prefix = "failed to reconcile checkpoints: "
    assert error.startswith(prefix)
    resolution, _, _ = _resolve(case)
    failed = [r for r in resolution.values() if not r.ok]
    assert len(failed) == 1
    assert prefix + str(failed[0].reason) == error
    # A wrong ID on the object of that name, or a missing reference, names the checkpoint
    # the operator looks for (createCheckpointCR's earlier checks fail before any name).
    if "already exists with checkpoint ID" in error or "referenced checkpoint" in error:
        assert failed[0].checkpoint_name in error


def test_wrong_id_names_what_was_found() -> None:
    case = next(c for c in CHECKPOINT_CASES if c.name == "auto-wrong-id")
    resolution, _, _ = _resolve(case)
    (res,) = resolution.values()
    assert res.found is not None and res.checkpoint_id == "f" * 32
    assert res.expected_id != res.checkpoint_id


def test_checkpoint_id_of_precedence() -> None:
    """CheckpointID: status.checkpointID, then status.identityHash, then the label."""
    label = {"metadata": {"labels": {"nvidia.com/snapshot-checkpoint-id": "from-label"}}}
    assert checkpoint_id_of(label) == "from-label"
    both = {**label, "status": {"identityHash": "from-identity"}}
    assert checkpoint_id_of(both) == "from-identity"
    assert checkpoint_id_of({**both, "status": {"checkpointID": "id", "identityHash": "x"}}) == "id"
    identity = {
        "spec": {"identity": {"model": "meta-llama/Llama-2-7b-hf", "backendFramework": "vllm"}}
    }
    assert checkpoint_id_of(identity) == "96429b2725761a09"


def test_gate_off_is_the_operator_error() -> None:
    dgd = {
        "metadata": {"name": "d", "namespace": "ns"},
        "spec": {
            "components": [
                {"name": "w", "type": "worker", "experimental": {"checkpoint": {"enabled": True}}}
            ]
        },
    }
    with pytest.raises(CheckpointResolutionError, match="checkpoint functionality is disabled"):
        resolve_dgd_checkpoints(dgd, "h", [], "", checkpoint_gate_enabled=False)


def test_startup_policy_gate_and_restore_metadata() -> None:
    """applyCheckpointStartupPolicy: WaitForCheckpoint gates an unready checkpoint to 0."""
    info = {
        "Enabled": True,
        "Exists": True,
        "CheckpointName": "c1",
        "Ready": False,
        "StartupPolicy": "WaitForCheckpoint",
    }
    dcd: dict[str, Any] = {"spec": {"replicas": 3}}
    apply_checkpoint_startup_policy(dcd, info)
    assert dcd["spec"]["replicas"] == 0
    assert dcd["spec"]["experimental"]["checkpoint"]["checkpointRef"] == "c1"
    assert "podTemplate" not in dcd["spec"]
    ready = {**info, "Ready": True, "StartupPolicy": "Immediate", "RestoreTargetContainers": []}
    dcd = {"spec": {"replicas": 3}}
    apply_checkpoint_startup_policy(dcd, ready)
    annotations = dcd["spec"]["podTemplate"]["metadata"]["annotations"]
    assert dcd["spec"]["replicas"] == 3
    assert annotations["nvidia.com/dynamo-checkpoint-restore-candidate"] == "true"
    assert annotations["nvidia.com/snapshot-target-containers"] == "main"
