"""lint's verdict on a committed workload is the operator's pod webhook's verdict on the pods
it makes, for every case of the webhook's own test table that a committed DCD or
PodCliqueSet can produce (tests/fixtures/webhook/README.md)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from paths import FIXTURES

from renderer.cli import main

TABLE = json.loads((FIXTURES / "webhook" / "restore-cases.json").read_text())
CASES = {case["name"]: case for case in TABLE["cases"]}
APPLICABLE = sorted(name for name, case in CASES.items() if case["applicable"])
SHAPES = ["dcd-v1beta1", "dcd-v1alpha1", "pcs"]
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"


def _workload(shape: str, namespace: str, pod: dict[str, Any]) -> dict[str, Any]:
    """A committed object whose pods carry `pod`'s labels and annotations."""
    meta = {"labels": dict(pod["labels"]), "annotations": dict(pod["annotations"])}
    container = {"name": "main", "image": IMAGE}
    if shape == "dcd-v1beta1":
        return {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": "worker", "namespace": namespace},
            "spec": {
                "type": "worker",
                "replicas": 1,
                "podTemplate": {"metadata": meta, "spec": {"containers": [container]}},
            },
        }
    if shape == "dcd-v1alpha1":
        return {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": "worker", "namespace": namespace},
            "spec": {
                "componentType": "worker",
                "serviceName": "worker",
                "replicas": 1,
                "extraPodMetadata": meta,
                "extraPodSpec": {"mainContainer": {"image": IMAGE}},
            },
        }
    return {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "worker", "namespace": namespace},
        "spec": {
            "replicas": 1,
            "template": {
                "cliques": [
                    {
                        "name": "worker",
                        **meta,
                        "spec": {
                            "roleName": "worker",
                            "replicas": 1,
                            "podSpec": {"containers": [container]},
                        },
                    }
                ]
            },
        },
    }


def _lint(tmp_path: Path, capsys: pytest.CaptureFixture[str], obj: dict[str, Any]) -> Any:
    (tmp_path / "workload.yaml").write_text(json.dumps(obj))
    (tmp_path / "snapshots.yaml").write_text(
        "\n".join(json.dumps(c) for c in TABLE["checkpoints"])  # JSON Lines, as kubectl reads
    )
    code = main(
        [
            "--no-config",
            "lint",
            str(tmp_path / "workload.yaml"),
            "--checkpoint",
            str(tmp_path / "snapshots.yaml"),
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    return code, report["findings"]


def test_the_table_is_the_webhooks() -> None:
    assert TABLE["source"].startswith("ai-dynamo/dynamo 2a6da14c83617f5412caba5777dbf0e2399e9c5f")
    assert len(CASES) == 4  # the four t.Run cases of TestPodCheckpointRestoreMutatorHandle
    assert {case["verdict"] for case in CASES.values()} <= {"allowed", "denied"}
    assert len(APPLICABLE) == 3


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", APPLICABLE)
def test_lint_gives_the_webhooks_verdict(
    name: str, shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES[name]
    code, findings = _lint(tmp_path, capsys, _workload(shape, case["namespace"], case["pod"]))
    errors = [f for f in findings if f["severity"] == "error"]
    if case["verdict"] == "denied":
        assert code == 1
        assert errors
    else:
        assert (code, errors) == (0, []), findings
        # and nothing is said at all: a manual checkpoint without a binding is fine
        assert findings == []


@pytest.mark.parametrize("shape", SHAPES)
def test_the_same_workload_on_an_automatic_checkpoint_needs_its_binding(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: what makes the cases pass is the checkpoint being manual. Marked
    automatic (with the uid and generation a live one has), the same unbound workload is
    refused (binding-absent), so the agreement above is not lint saying nothing."""
    case = CASES["ready checkpoint restore-shapes pod create"]
    automatic = copy.deepcopy(TABLE["checkpoints"])
    meta = automatic[0]["metadata"]
    meta["annotations"]["nvidia.com/dynamo-auto-checkpoint"] = "true"
    meta["uid"] = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    meta["generation"] = 1
    automatic[0]["spec"] = {
        "job": {"podTemplateSpec": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    }
    table = {**TABLE, "checkpoints": automatic}
    (tmp_path / "workload.yaml").write_text(
        json.dumps(_workload(shape, case["namespace"], case["pod"]))
    )
    (tmp_path / "snapshots.yaml").write_text(
        "\n".join(json.dumps(c) for c in table["checkpoints"])  # JSON Lines, as kubectl reads
    )
    code = main(
        [
            "--no-config",
            "lint",
            str(tmp_path / "workload.yaml"),
            "--checkpoint",
            str(tmp_path / "snapshots.yaml"),
            "--format",
            "json",
        ]
    )
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert "binding-absent" in {f["rule"] for f in findings}
