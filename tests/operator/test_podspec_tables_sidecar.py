"""TestGenerateBasePodSpec_FrontendSidecar (graph_test.go, pinned commit) transcribed as data.

The v1alpha1 components go through the emulated conversion (the Go test's betaComponent),
which turns ``frontendSidecar`` into a ``sidecar-frontend`` container; GenerateBasePodSpec
then merges the frontend defaults into it (mergeFrontendSidecarDefaults). The operator
configuration carries the test's MPI secret; the discovery backend is empty, as in Go.
"""

from __future__ import annotations

from typing import Any

import pytest
from podspec_support import beta_component

from renderer.operator.config import OperatorConfig
from renderer.operator.graph_podspec import generate_base_pod_spec

CONFIG = OperatorConfig(discovery_backend="", mpi_ssh_secret_name="mpi-ssh-secret")
SIDECAR = "sidecar-frontend"
IMAGE = "my-frontend:latest"
MODEL_CACHE = {"name": "model-cache", "mountPoint": "/opt/models"}


def _case(name: str, component: dict[str, Any], **want: Any) -> Any:
    return pytest.param(component, want, id=name)


CASES = [
    _case("worker without frontendSidecar has no sidecar", {"componentType": "worker"}, count=1),
    _case(
        "worker with frontendSidecar gets auto-generated sidecar",
        {
            "componentType": "worker",
            "frontendSidecar": {
                "image": IMAGE,
                "args": ["-m", "dynamo.frontend", "--router-mode", "direct"],
            },
        },
        count=2,
        args=["-m", "dynamo.frontend", "--router-mode", "direct"],
        env={
            "DYN_NAMESPACE": "test-ns-test-dgd",
            "DYN_COMPONENT": "frontend",
            "DYN_DISCOVERY_BACKEND": "kubernetes",
            "DYN_HTTP_PORT": "8000",
            "DYN_PARENT_DGD_K8S_NAME": "test-dgd",
            "DYN_PARENT_DGD_K8S_NAMESPACE": "test-ns",
        },
    ),
    _case(
        "frontendSidecar with envFromSecret",
        {
            "componentType": "worker",
            "frontendSidecar": {"image": IMAGE, "envFromSecret": "hf-token-secret"},
        },
        count=2,
        args=["-m", "dynamo.frontend"],
        env_from=1,
    ),
    _case(
        "frontendSidecar with custom env vars",
        {
            "componentType": "worker",
            "frontendSidecar": {
                "image": IMAGE,
                "envs": [{"name": "CUSTOM_VAR", "value": "custom_value"}],
            },
        },
        count=2,
        env={"CUSTOM_VAR": "custom_value"},
    ),
    _case(
        "frontendSidecar inherits worker PVC volume mount",
        {
            "componentType": "worker",
            "volumeMounts": [MODEL_CACHE],
            "sharedMemory": {"disabled": True},
            "frontendSidecar": {"image": IMAGE},
        },
        count=2,
        sidecar_mounts=[{"name": "model-cache", "mountPath": "/opt/models"}],
        volumes={"model-cache": 1},
    ),
    _case(
        "frontendSidecar inherits user PVC mounts but not shared memory",
        {
            "componentType": "worker",
            "volumeMounts": [MODEL_CACHE, {"name": "extra-data", "mountPoint": "/mnt/data"}],
            "frontendSidecar": {"image": IMAGE},
        },
        count=2,
        sidecar_mounts=[
            {"name": "model-cache", "mountPath": "/opt/models"},
            {"name": "extra-data", "mountPath": "/mnt/data"},
        ],
        absent=["shared-memory"],
        volumes={"model-cache": 1, "extra-data": 1, "shared-memory": 1},
    ),
    _case(
        "frontendSidecar does not inherit TRT-LLM multinode SSH mount",
        {
            "componentType": "worker",
            "volumeMounts": [MODEL_CACHE],
            "frontendSidecar": {"image": IMAGE},
        },
        backend="trtllm",
        nodes=2,
        count=2,
        sidecar_mounts=[{"name": "model-cache", "mountPath": "/opt/models"}],
        absent=["mpi-ssh-secret", "shared-memory"],
        worker_mounts=[("model-cache", "/opt/models"), ("mpi-ssh-secret", "/ssh-pk")],
    ),
]


def _sorted(mounts: list[dict[str, Any]]) -> list[str]:
    return sorted(repr(sorted(m.items())) for m in mounts)


@pytest.mark.parametrize(("alpha", "want"), CASES)
def test_generate_base_pod_spec_frontend_sidecar(
    alpha: dict[str, Any], want: dict[str, Any]
) -> None:
    nodes = want.get("nodes", 1)
    pod_spec = generate_base_pod_spec(
        beta_component(alpha), want.get("backend", "vllm"), None, "test-dgd", "test-ns",
        "leader" if nodes > 1 else "main", nodes, CONFIG, "grove", "test-service",
        None, None, lambda: 0,
    )  # fmt: skip
    containers = pod_spec["containers"]
    assert len(containers) == want["count"]
    if want["count"] <= 1:
        return
    sidecar = containers[-1]
    assert sidecar["name"] == SIDECAR
    assert sidecar["image"] == IMAGE
    if "args" in want:
        assert sidecar["args"] == want["args"]
    assert sidecar["command"] == ["python3"]
    env = {e["name"]: e.get("value", "") for e in sidecar.get("env") or []}
    for key, value in want.get("env", {}).items():
        assert env[key] == value
    if "env_from" in want:
        assert len(sidecar["envFrom"]) == want["env_from"]
        assert sidecar["envFrom"][0]["secretRef"]["name"] == "hf-token-secret"
    assert sidecar["livenessProbe"]["httpGet"]["path"] == "/live"
    assert sidecar["readinessProbe"]["httpGet"]["path"] == "/health"
    assert sidecar["ports"][0]["containerPort"] == 8000
    downward = {e["name"] for e in sidecar["env"] if (e.get("valueFrom") or {}).get("fieldRef")}
    assert {"POD_NAME", "POD_NAMESPACE", "POD_UID"} <= downward
    if "sidecar_mounts" in want:
        assert _sorted(sidecar.get("volumeMounts") or []) == _sorted(want["sidecar_mounts"])
    names = {m["name"] for m in sidecar.get("volumeMounts") or []}
    for absent in want.get("absent", []):
        assert absent not in names
    worker_mounts = {(m["name"], m["mountPath"]) for m in containers[0].get("volumeMounts") or []}
    for mount in want.get("worker_mounts", []):
        assert mount in worker_mounts
    if "volumes" in want:
        counts: dict[str, int] = {}
        for volume in pod_spec.get("volumes") or []:
            counts[volume["name"]] = counts.get(volume["name"], 0) + 1
        assert counts == want["volumes"]
