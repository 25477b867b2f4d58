"""TestGeneratePodSpecForComponent_SGLang / _VLLM and the GMS extra-client tests
(graph_test.go, pinned commit) as data.

The backends are the backend module's; these Go tests check what reaches the main
container's command line through generatePodSpecForComponent. v1alpha1 inputs go through
the emulated conversion (betaComponent); the DGD carries no origin-version annotation, as
in Go, and the GPU count is the component's resolved one.
"""

from __future__ import annotations

from typing import Any

import pytest
from podspec_support import (
    base_pod_spec,
    beta_component,
    env_map,
    main_container,
    template,
)

from renderer.operator.config import OperatorConfig
from renderer.operator.graph_podspec import (
    PodSpecError,
    generate_pod_spec_for_component,
    resolve_container_gpus,
)

DGD = {"metadata": {"name": "test-deployment", "namespace": "default"}, "spec": {}}
CONFIG = OperatorConfig(discovery_backend="")


def _worker(args: list[str]) -> dict[str, Any]:
    return {"componentType": "worker", "extraPodSpec": {"mainContainer": {"args": args}}}


SGLANG = {
    "componentType": "worker",
    "extraPodSpec": {"mainContainer": {"args": ["python3 -m dynamo.sglang"]}},
}
VLLM_TP = {
    "componentType": "worker",
    "extraPodSpec": {
        "mainContainer": {
            "args": ["python3", "-m", "dynamo.vllm", "--tensor-parallel-size", "4",
                     "--pipeline-parallel-size", "1"],
        }
    },
    "resources": {"limits": {"gpu": "2"}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("alpha", "backend", "role", "nodes", "contains", "not_contains"),
    [
        pytest.param(SGLANG, "sglang", "main", 1, ["python3", "-m", "dynamo.sglang"],
                     ["dist-init-addr", "nnodes", "tp-size"], id="SGLang single node worker"),
        pytest.param(SGLANG, "sglang", "leader", 3,
                     ["python3", "-m", "dynamo.sglang", "dist-init-addr", "nnodes", "node-rank"],
                     [], id="SGLang multinode leader"),
        pytest.param(SGLANG, "sglang", "worker", 3,
                     ["python3", "-m", "dynamo.sglang", "dist-init-addr", "nnodes", "node-rank"],
                     [], id="SGLang multinode worker"),
        pytest.param({"componentType": "worker",
                      "extraPodSpec": {"mainContainer": {"command": ["custom", "command"]}}},
                     "sglang", "main", 1, [], [], id="SGLang with user command override"),
        pytest.param(_worker(["python3", "-m", "dynamo.vllm"]),
                     "vllm", "main", 1, ["python3", "-m", "dynamo.vllm"], ["ray start"],
                     id="VLLM single node worker"),
        pytest.param(VLLM_TP, "vllm", "leader", 3,
                     ["ray start --head --port=6379", "python3", "-m", "dynamo.vllm"], [],
                     id="VLLM multinode leader"),
        pytest.param(VLLM_TP, "vllm", "worker", 3,
                     ["ray start --address=$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-ldr-0."
                      "$(GROVE_HEADLESS_SERVICE):6379 --block"],
                     ["python3 -m dynamo.vllm"], id="VLLM multinode worker"),
        pytest.param(_worker(["python3", "-m", "dynamo.vllm", "--disaggregation-mode", "prefill"]),
                     "vllm", "main", 1,
                     ["python3", "-m", "dynamo.vllm", "--disaggregation-mode", "prefill"],
                     ["ray start"], id="VLLM worker single node"),
    ],
)  # fmt: skip
def test_generate_pod_spec_for_component_backends(  # noqa: PLR0917 - pytest parameters
    alpha: dict[str, Any],
    backend: str,
    role: str,
    nodes: int,
    contains: list[str],
    not_contains: list[str],
) -> None:
    component = beta_component(alpha)
    gpus = resolve_container_gpus("default", component)
    pod_spec = generate_pod_spec_for_component(
        component, backend, None, DGD, role, nodes, CONFIG, "grove", "worker",
        None, None, None, lambda: gpus,
    )  # fmt: skip
    container = pod_spec["containers"][0]
    command_line = " ".join([*(container.get("command") or []), *(container.get("args") or [])])
    for text in contains:
        assert text in command_line
    for text in not_contains:
        assert text not in command_line
    assert container["name"] == "main"


# --- TestGenerateBasePodSpec_GPUMemoryServiceRejectsMissingExtraClientContainers ----------


def test_gms_rejects_missing_extra_client_containers() -> None:
    component = {
        "type": "worker",
        "experimental": {
            "gpuMemoryService": {
                "enabled": True,
                "mode": "IntraPod",
                "extraClientContainers": ["missing-b", "missing-a"],
            }
        },
        "podTemplate": template(
            {"containers": [main_container(resources={"limits": {"nvidia.com/gpu": "1"}})]}
        ),
    }
    with pytest.raises(PodSpecError) as info:
        base_pod_spec(component, backend="vllm", service="worker")
    message = info.value.message
    assert "gpuMemoryService.extraClientContainers" in message
    assert "missing-a" in message
    assert "missing-b" in message


# --- TestGenerateBasePodSpec_GPUMemoryServiceExtraClientContainers ---------------------------

# internal/gms and internal/dra constants at the pinned commit.
GMS_SERVER = "gms-server"
GMS_VOLUME, GMS_MOUNT_PATH, GMS_SOCKET_ENV = (
    "gms-intrapod-control",
    "/gms-intrapod-control",
    "GMS_SOCKET_DIR",
)
DRA_CLAIM = "intrapod-shared-gpu"


def test_gms_wires_every_extra_client_container() -> None:
    component = beta_component(
        {
            "componentType": "worker",
            "gpuMemoryService": {
                "enabled": True,
                "mode": "intraPod",
                "extraClientContainers": ["gms-loader", "metrics-client"],
            },
            "extraPodSpec": {
                "mainContainer": {"resources": {"limits": {"nvidia.com/gpu": "1"}}},
                "containers": [
                    {"name": "gms-loader", "image": "loader:latest"},
                    {"name": "metrics-client", "image": "metrics:latest"},
                ],
            },
        }
    )
    pod_spec = base_pod_spec(component, backend="vllm", service="worker")
    assert any(c["name"] == GMS_SERVER for c in pod_spec.get("initContainers") or [])
    by_name = {c["name"]: c for c in pod_spec["containers"]}
    for name in ("main", "gms-loader", "metrics-client"):
        container = by_name[name]
        assert env_map(container)[GMS_SOCKET_ENV] == GMS_MOUNT_PATH
        mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts") or []}
        assert mounts[GMS_VOLUME] == GMS_MOUNT_PATH
        assert [c["name"] for c in container["resources"]["claims"]] == [DRA_CLAIM]
