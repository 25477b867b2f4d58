"""The operator's inter-pod GMS and failover tests, transcribed (pinned commit).

Source: internal/dynamo/failover_test.go. Each test keeps the Go test's name and asserts
what it asserts (the intra-pod GMS and DRA tests are in test_backends_dra.py).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

import pytest

from renderer.operator import dra, failover, gms
from renderer.operator.backend import BackendError
from renderer.operator.multinode import GroveMultinodeDeployer

DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@dataclass(frozen=True)
class Role:
    """The ServiceRole fields the GMS helpers read."""

    name: str
    role: str
    rank: int
    replicas: int


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


def _has_env(container: dict[str, Any], name: str, value: str = "") -> bool:
    return any(
        e["name"] == name and (not value or e.get("value", "") == value)
        for e in container.get("env") or []
    )


def _mount(container: dict[str, Any], path: str) -> dict[str, Any] | None:
    return next((m for m in container.get("volumeMounts") or [] if m["mountPath"] == path), None)


def _has_volume(pod_spec: dict[str, Any], name: str) -> bool:
    return any(v["name"] == name for v in pod_spec.get("volumes") or [])


def _has_toleration(pod_spec: dict[str, Any], key: str) -> bool:
    return any(t.get("key") == key for t in pod_spec.get("tolerations") or [])


# --- failover_test.go: inter-pod GMS ---


def test_gms_weight_server_pod_spec() -> None:
    base = {
        "containers": [
            {
                "name": "engine",
                "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--model", "meta-llama/Llama-3-8B"],
                "livenessProbe": {"httpGet": {"path": "/health"}},
                "readinessProbe": {"httpGet": {"path": "/ready"}},
                "resources": {"limits": {"nvidia.com/gpu": "8", "memory": "64Gi"}},
            }
        ]
    }
    result = failover.gms_weight_server_pod_spec(base, 0, 8)
    assert len(result["containers"]) == 1
    c = result["containers"][0]
    assert c["command"] == ["bash", "-c"]
    assert len(c["args"]) == 1 and gms.SERVER_MODULE in c["args"][0]
    assert c.get("livenessProbe") is None and c.get("readinessProbe") is None
    assert c["startupProbe"]["exec"]["command"] == failover.gms_startup_probe_command(8)
    assert "nvidia.com/gpu" not in c["resources"]["limits"]
    assert "memory" in c["resources"]["limits"]
    assert _has_toleration(result, "nvidia.com/gpu")
    assert _has_volume(result, failover.GMS_SHARED_VOLUME_NAME)
    assert _mount(c, failover.GMS_SHARED_MOUNT_PATH) is not None
    assert _has_env(c, gms.ENV_SOCKET_DIR, failover.GMS_SHARED_MOUNT_PATH)
    assert len(result["initContainers"]) == 1
    init = result["initContainers"][0]
    assert init["name"] == failover.GMS_PERM_FIX_INIT_NAME
    assert init.get("image", "") == c.get("image", "")
    assert init["securityContext"]["runAsUser"] == 0
    assert len(base["containers"][0]["command"]) == 3  # the original is not mutated


def test_gms_weight_server_pod_spec_empty_containers() -> None:
    assert not failover.gms_weight_server_pod_spec({}, 0, 1).get("containers")


@pytest.mark.parametrize("rank", [0, 3])
def test_gms_weight_server_pod_spec_sub_path_expr(rank: int) -> None:
    result = failover.gms_weight_server_pod_spec({"containers": [{"name": "engine"}]}, rank, 4)
    mount = _mount(result["containers"][0], failover.GMS_SHARED_MOUNT_PATH)
    assert mount is not None
    assert mount["subPathExpr"] == f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-{rank}"


def test_augment_engine_for_gms() -> None:
    pod_spec: dict[str, Any] = {
        "containers": [
            {
                "name": "engine",
                "env": [
                    {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": "true"},
                    {"name": "KEEP_ME", "value": "yes"},
                ],
                "resources": {"limits": {"nvidia.com/gpu": "4"}},
            }
        ]
    }
    failover.augment_engine_for_gms(pod_spec, 1, True)
    c = pod_spec["containers"][0]
    assert _has_env(c, "ENGINE_ID")
    assert _has_env(c, gms.ENV_SOCKET_DIR, failover.GMS_SHARED_MOUNT_PATH)
    assert _has_env(c, "FAILOVER_LOCK_PATH", "/run/gms/shared/failover.lock")
    assert not _has_env(c, "DYN_VLLM_GMS_SHADOW_MODE", "true")
    assert _has_env(c, "DYN_SYSTEM_STARTING_HEALTH_STATUS", "notready")
    assert _has_env(c, "KEEP_ME", "yes")
    assert not _has_env(c, "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS")
    assert "nvidia.com/gpu" not in c["resources"]["limits"]
    assert _has_toleration(pod_spec, "nvidia.com/gpu")
    assert _has_volume(pod_spec, failover.GMS_SHARED_VOLUME_NAME)
    assert len(pod_spec["initContainers"]) == 1
    init = pod_spec["initContainers"][0]
    assert init["name"] == failover.GMS_PERM_FIX_INIT_NAME
    assert init.get("image", "") == c.get("image", "")
    assert init["securityContext"]["runAsUser"] == 0
    init_mount = _mount(init, failover.GMS_SHARED_MOUNT_PATH)
    assert init_mount is not None
    assert init_mount["subPathExpr"] == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-1"
    assert pod_spec["restartPolicy"] == "Never"


def test_augment_engine_for_gms_standalone_does_not_force_restart_never() -> None:
    pod_spec: dict[str, Any] = {
        "containers": [{"name": "engine", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]
    }
    failover.augment_engine_for_gms(pod_spec, 0, False)
    assert pod_spec.get("restartPolicy", "") == ""
    assert _has_volume(pod_spec, failover.GMS_SHARED_VOLUME_NAME)
    assert _has_env(pod_spec["containers"][0], gms.ENV_SOCKET_DIR, failover.GMS_SHARED_MOUNT_PATH)


def test_augment_engine_for_gms_empty_containers() -> None:
    pod_spec: dict[str, Any] = {}
    failover.augment_engine_for_gms(pod_spec, 0, True)
    assert not pod_spec.get("containers")


def test_remove_gpu_from_limits() -> None:
    mig = "nvidia.com/mig-3g.20gb"
    c = {
        "resources": {
            "limits": {"nvidia.com/gpu": "8", mig: "1", "memory": "64Gi"},
            "requests": {"nvidia.com/gpu": "8", mig: "1"},
        }
    }
    failover.remove_gpu_from_limits(c)
    assert c["resources"]["limits"] == {"memory": "64Gi"}
    assert c["resources"]["requests"] == {}


def test_add_gpu_toleration_idempotent() -> None:
    pod_spec: dict[str, Any] = {}
    failover.add_gpu_toleration(pod_spec)
    failover.add_gpu_toleration(pod_spec)
    assert sum(t["key"] == "nvidia.com/gpu" for t in pod_spec["tolerations"]) == 1


def test_remove_env_var() -> None:
    c = {
        "env": [
            {"name": "A", "value": "1"},
            {"name": "REMOVE_ME", "value": "x"},
            {"name": "B", "value": "2"},
            {"name": "REMOVE_ME", "value": "y"},
        ]
    }
    failover.remove_env_var(c, "REMOVE_ME")
    assert [e["name"] for e in c["env"]] == ["A", "B"]


@pytest.mark.parametrize(
    ("resources", "want"),
    [
        ({}, 0),
        ({"limits": {}}, 0),
        ({"limits": {"nvidia.com/gpu": "8"}}, 8),
        ({"requests": {"nvidia.com/gpu": "4"}}, 4),
        ({"limits": {"nvidia.com/mig-3g.20gb": "1"}}, 1),
    ],
    ids=[
        "empty resources",
        "empty limits",
        "valid limit gpu count",
        "valid request gpu count",
        "valid MIG limit gpu count",
    ],
)
def test_get_gpu_count(resources: dict[str, Any], want: int) -> None:
    assert failover.get_gpu_count(resources) == want


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        (None, "gpu.nvidia.com"),
        ({}, "gpu.nvidia.com"),
        ({"deviceClassName": "gpu.nvidia.com/h100"}, "gpu.nvidia.com/h100"),
    ],
    ids=["nil spec", "empty device class", "custom device class"],
)
def test_get_device_class_name(spec: dict[str, Any] | None, want: str) -> None:
    assert failover.get_device_class_name(spec) == want


def test_gms_engine_env_vars() -> None:
    envs = {e["name"]: e for e in failover.gms_engine_env_vars()}
    for name in ("ENGINE_ID", gms.ENV_SOCKET_DIR, "FAILOVER_LOCK_PATH"):
        assert name in envs
    assert "DYN_SYSTEM_STARTING_HEALTH_STATUS" in envs
    assert "DYN_VLLM_GMS_SHADOW_MODE" not in envs
    assert "grove.io/podclique-pod-index" in envs["ENGINE_ID"]["valueFrom"]["fieldRef"]["fieldPath"]


def test_grove_multinode_deployer_gms() -> None:
    assert GroveMultinodeDeployer(is_inter_pod_gms=True, rank=2).get_node_rank() == ("2", False)
    rank, shell = GroveMultinodeDeployer().get_node_rank()
    assert "GROVE_PCLQ_POD_INDEX" in rank and shell
    names = GroveMultinodeDeployer(is_inter_pod_gms=True, rank=0).get_host_names("svc", 3)
    assert len(names) == 3
    assert "ldr-$(GROVE_PCLQ_POD_INDEX)" in names[0]
    assert "wkr-1-$(GROVE_PCLQ_POD_INDEX)" in names[1]
    assert "wkr-2-$(GROVE_PCLQ_POD_INDEX)" in names[2]
    names = GroveMultinodeDeployer().get_host_names("svc", 3)
    assert len(names) == 3
    assert "ldr" in names[0] and "wkr-0" in names[1] and "wkr-1" in names[2]


@pytest.mark.parametrize(
    ("service", "rank", "expected"),
    [
        ("my-svc", 0, "my-svc-gpu-rank-0"),
        ("llama", 2, "llama-gpu-rank-2"),
        ("VllmWorker", 0, "vllmworker-gpu-rank-0"),
        ("VLLMWorker", 2, "vllmworker-gpu-rank-2"),
        ("Vllm.Worker", 1, "vllm-worker-gpu-rank-1"),
    ],
    ids=["already normalized", "lowercase", "camel case", "uppercase", "dot"],
)
def test_gms_rct_name(service: str, rank: int, expected: str) -> None:
    name = failover.gms_rct_name(service, rank)
    assert name == expected
    assert DNS1123_SUBDOMAIN.fullmatch(name)


SINGLE_ROLES = [Role("svc-gms-0", "gms", 0, 1), Role("svc", "main", 0, 2)]
MULTI_ROLES = [
    Role("svc-gms-0", "gms", 0, 1),
    Role("svc-ldr", "leader", 0, 3),
    Role("svc-gms-1", "gms", 1, 1),
    Role("svc-wkr-1", "worker", 1, 3),
]


def test_gms_resource_claim_template_configs_single_node() -> None:
    configs = failover.gms_resource_claim_template_configs(
        "VllmWorker",
        {"deviceClassName": "gpu.nvidia.com/h100"},
        {"limits": {"nvidia.com/gpu": "8"}},
        SINGLE_ROLES,
    )
    assert [c["name"] for c in configs] == ["vllmworker-gpu-rank-0"]
    exactly = configs[0]["templateSpec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["deviceClassName"] == "gpu.nvidia.com/h100"
    assert exactly["count"] == 8


def test_gms_resource_claim_template_configs_multinode() -> None:
    configs = failover.gms_resource_claim_template_configs(
        "VllmDecodeWorker", {}, {"limits": {"nvidia.com/gpu": "4"}}, MULTI_ROLES
    )
    assert [c["name"] for c in configs] == [
        "vllmdecodeworker-gpu-rank-0",
        "vllmdecodeworker-gpu-rank-1",
    ]
    exactly = configs[1]["templateSpec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["deviceClassName"] == "gpu.nvidia.com"
    assert exactly["count"] == 4


def test_gms_resource_sharing_entries_single_node() -> None:
    refs = failover.gms_resource_sharing_entries("VllmWorker", SINGLE_ROLES)
    assert len(refs) == 1
    assert refs[0]["name"] == "vllmworker-gpu-rank-0"
    assert refs[0]["scope"] == "PerReplica"
    assert refs[0]["filter"]["childCliqueNames"] == ["svc-gms-0", "svc"]


def test_gms_resource_sharing_entries_multinode() -> None:
    refs = failover.gms_resource_sharing_entries("VllmDecodeWorker", MULTI_ROLES)
    assert [r["name"] for r in refs] == [
        "vllmdecodeworker-gpu-rank-0",
        "vllmdecodeworker-gpu-rank-1",
    ]
    assert all(r["scope"] == "PerReplica" for r in refs)
    assert refs[0]["filter"]["childCliqueNames"] == ["svc-gms-0", "svc-ldr"]
    assert refs[1]["filter"]["childCliqueNames"] == ["svc-gms-1", "svc-wkr-1"]


def test_gms_resource_sharing_entries_includes_future_client_pods() -> None:
    roles = [*SINGLE_ROLES, Role("svc-loader-0", "gms-client", 0, 1)]
    refs = failover.gms_resource_sharing_entries("svc", roles)
    assert len(refs) == 1
    assert refs[0]["filter"]["childCliqueNames"] == ["svc-gms-0", "svc", "svc-loader-0"]


# --- failover_test.go: intra-pod failover ---


def intra_pod_failover_pod_spec() -> dict[str, Any]:
    """intraPodFailoverPodSpec: a pod already wired for intra-pod GMS, plus a sidecar."""
    probe = {"httpGet": {"path": "/health", "port": "system"}}
    return {
        "containers": [
            {
                "name": "main",
                "image": "test-image:latest",
                "command": ["python3", "-m", "dynamo.vllm"],
                "env": [
                    {"name": "DYN_SYSTEM_PORT", "value": "9090"},
                    {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
                    {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": "true"},
                    {"name": "DYN_HEALTH_CHECK_ENABLED", "value": "true"},
                    {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
                    {"name": "CONTAINER_NAME", "value": "main"},
                    {"name": "DYN_KUBE_DISCOVERY_MODE", "value": "container"},
                    {"name": "TMPDIR", "value": gms.SHARED_MOUNT_PATH},
                ],
                "ports": [{"name": "system", "containerPort": 9090, "protocol": "TCP"}],
                "startupProbe": copy.deepcopy(probe),
                "livenessProbe": copy.deepcopy(probe),
                "readinessProbe": copy.deepcopy(probe),
                "resources": {"claims": [{"name": dra.CLAIM_NAME}]},
                "volumeMounts": [
                    {"name": gms.SHARED_VOLUME_NAME, "mountPath": gms.SHARED_MOUNT_PATH}
                ],
            },
            {"name": "frontend-sidecar", "image": "test-image:latest"},
        ]
    }


def _failover(nodes: int = 1) -> dict[str, Any]:
    pod_spec = intra_pod_failover_pod_spec()
    failover.build_failover_pod(pod_spec, nodes, "vllm")
    return pod_spec


def test_build_failover_pod_two_engines_plus_sidecar() -> None:
    names = [c["name"] for c in _failover()["containers"]]
    assert names == ["engine-0", "engine-1", "frontend-sidecar"]


def test_build_failover_pod_empty_containers() -> None:
    with pytest.raises(BackendError, match="at least one container"):
        failover.build_failover_pod({}, 1, "vllm")


def test_build_failover_pod_rejects_non_vllm() -> None:
    with pytest.raises(BackendError, match="currently supported only for vLLM"):
        failover.build_failover_pod(intra_pod_failover_pod_spec(), 1, "sglang")


def test_build_failover_pod_engine_env_vars() -> None:
    pod_spec = _failover()
    for i in range(2):
        env = _env(pod_spec["containers"][i])
        assert env["ENGINE_ID"] == str(i)
        assert env["CONTAINER_NAME"] == f"engine-{i}"
        assert env["DYN_KUBE_DISCOVERY_MODE"] == "container"
        assert env["FAILOVER_LOCK_PATH"] == failover.INTRA_POD_FAILOVER_LOCK_FILE
        assert env["DYN_SYSTEM_STARTING_HEALTH_STATUS"] == "notready"
        assert env["DYN_SYSTEM_ENABLED"] == "true"
        assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in env
        assert "DYN_HEALTH_CHECK_ENABLED" not in env


def test_build_failover_pod_staggered_ports() -> None:
    pod_spec = _failover()
    for i in range(2):
        engine = pod_spec["containers"][i]
        assert _env(engine)["DYN_SYSTEM_PORT"] == str(9090 + i)
        assert len(engine["ports"]) == 1
        assert engine["ports"][0]["containerPort"] == 9090 + i
        assert engine["ports"][0]["name"] == f"system-{i}"


def test_build_failover_pod_probes_retargeted_to_named_port() -> None:
    pod_spec = _failover()
    for i in range(2):
        engine = pod_spec["containers"][i]
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            assert engine[probe]["httpGet"]["port"] == f"system-{i}"


def test_build_failover_pod_preserves_dra_claim() -> None:
    pod_spec = _failover()
    for i in range(2):
        assert pod_spec["containers"][i]["resources"]["claims"] == [{"name": dra.CLAIM_NAME}]


def test_build_failover_pod_preserves_discovery_backend() -> None:
    pod_spec = _failover()
    for i in range(2):
        assert _env(pod_spec["containers"][i])["DYN_DISCOVERY_BACKEND"] == "kubernetes"


def test_build_failover_pod_multinode_nnodes() -> None:
    pod_spec = _failover(4)
    for i in range(2):
        assert _env(pod_spec["containers"][i])["NNODES"] == "4"


def test_build_failover_pod_single_node_no_nnodes() -> None:
    pod_spec = _failover()
    for i in range(2):
        assert "NNODES" not in _env(pod_spec["containers"][i])


def test_is_intra_pod_failover_enabled() -> None:
    # betaComponent drops a disabled failover block; IntraPod/InterPod as converted.
    assert failover.is_intra_pod_failover_enabled(
        {"experimental": {"failover": {"mode": "IntraPod"}}}
    )
    assert not failover.is_intra_pod_failover_enabled(
        {"experimental": {"failover": {"mode": "InterPod"}}}
    )
    assert not failover.is_intra_pod_failover_enabled({})
    assert not failover.is_intra_pod_failover_enabled({})
    assert not failover.is_intra_pod_failover_enabled(None)


def test_intra_pod_failover_engine_container_names() -> None:
    assert failover.intra_pod_failover_engine_container_names() == ["engine-0", "engine-1"]
