"""The operator's intra-pod GMS and DRA tests, transcribed (pinned commit).

Sources: internal/gms/gms_test.go and the render-path part of internal/dra/dra_test.go (the
ResourceClaim resolution tests need a cluster's claim templates and device classes, which
an offline render never has). Each test keeps the Go test's name and asserts what it asserts.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.operator import dra, gms
from renderer.operator.backend import BackendError


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


def _has_volume(pod_spec: dict[str, Any], name: str) -> bool:
    return any(v["name"] == name for v in pod_spec.get("volumes") or [])


# --- internal/gms/gms_test.go ---


def test_ensure_server_sidecar() -> None:
    pod_spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": "test-image:latest",
                "resources": {"claims": [{"name": dra.CLAIM_NAME}]},
            }
        ]
    }
    gms.ensure_server_sidecar(pod_spec, pod_spec["containers"][0])
    assert len(pod_spec["initContainers"]) == 1
    server = pod_spec["initContainers"][0]
    assert server["name"] == gms.SERVER_CONTAINER_NAME
    assert server["command"] == ["python3", "-m", gms.SERVER_MODULE]
    assert server["restartPolicy"] == "Always"
    assert server.get("startupProbe") is None
    assert server["resources"]["claims"] == [{"name": dra.CLAIM_NAME}]
    assert _env(pod_spec["containers"][0])["GMS_SOCKET_DIR"] == gms.SHARED_MOUNT_PATH
    assert _has_volume(pod_spec, gms.SHARED_VOLUME_NAME)


def test_ensure_server_sidecar_idempotent() -> None:
    pod_spec: dict[str, Any] = {"containers": [{"name": "main", "image": "test:latest"}]}
    gms.ensure_server_sidecar(pod_spec, pod_spec["containers"][0])
    gms.ensure_server_sidecar(pod_spec, pod_spec["containers"][0])
    assert len(pod_spec["initContainers"]) == 1


def test_ensure_server_sidecar_does_not_add_checkpoint_control() -> None:
    pod_spec: dict[str, Any] = {"containers": [{"name": "main", "image": "test:latest"}]}
    gms.ensure_server_sidecar(pod_spec, pod_spec["containers"][0])
    assert not _has_volume(pod_spec, "gms-control")


def test_ensure_client_overrides_operator_owned_socket_fields() -> None:
    pod_spec: dict[str, Any] = {
        "volumes": [{"name": gms.SHARED_VOLUME_NAME, "hostPath": {"path": "/wrong"}}],
        "containers": [
            {
                "name": "main",
                "env": [{"name": gms.ENV_SOCKET_DIR, "valueFrom": {}}],
                "volumeMounts": [{"name": gms.SHARED_VOLUME_NAME, "mountPath": "/wrong"}],
            }
        ],
    }
    gms.ensure_client(pod_spec, pod_spec["containers"][0])
    assert pod_spec["volumes"][0].get("emptyDir") is not None
    main = pod_spec["containers"][0]
    assert main["volumeMounts"][0]["mountPath"] == gms.SHARED_MOUNT_PATH
    assert main["env"][0]["value"] == gms.SHARED_MOUNT_PATH
    assert main["env"][0].get("valueFrom") is None
    assert main["resources"]["claims"] == [{"name": dra.CLAIM_NAME}]


# --- internal/dra/dra_test.go (render path) ---


def base_pod_spec() -> dict[str, Any]:
    """basePodSpec."""
    return {
        "containers": [
            {
                "name": "main",
                "image": "test-image:latest",
                "command": ["python3", "-m", "dynamo.vllm"],
                "env": [{"name": "DYN_SYSTEM_PORT", "value": "9090"}],
                "ports": [{"name": "system", "containerPort": 9090, "protocol": "TCP"}],
                "startupProbe": {"httpGet": {"path": "/health", "port": "system"}},
                "resources": {"limits": {"nvidia.com/gpu": "2"}},
            }
        ]
    }


def test_apply_claim_empty_containers() -> None:
    with pytest.raises(BackendError, match="at least one container"):
        dra.apply_claim({}, "myapp-worker-gpu")


def test_apply_claim_replaces_gpu_with_dra_claim() -> None:
    pod_spec = base_pod_spec()
    dra.apply_claim(pod_spec, "myapp-worker-gpu")
    main = pod_spec["containers"][0]
    assert "nvidia.com/gpu" not in main["resources"]["limits"]
    assert main["resources"]["claims"] == [{"name": dra.CLAIM_NAME}]
    assert pod_spec["resourceClaims"] == [
        {"name": dra.CLAIM_NAME, "resourceClaimTemplateName": "myapp-worker-gpu"}
    ]
    assert any(
        t["key"] == "nvidia.com/gpu" and t["effect"] == "NoSchedule"
        for t in pod_spec["tolerations"]
    )
    assert not pod_spec.get("initContainers")


def test_apply_claim_replaces_mig_resource_with_dra_claim() -> None:
    mig = "nvidia.com/mig-3g.20gb"
    pod_spec = base_pod_spec()
    pod_spec["containers"][0]["resources"] = {"limits": {mig: "1"}, "requests": {mig: "1"}}
    dra.apply_claim(pod_spec, "myapp-worker-gpu")
    resources = pod_spec["containers"][0]["resources"]
    assert mig not in resources["limits"] and mig not in resources["requests"]
    assert resources["claims"] == [{"name": dra.CLAIM_NAME}]


def test_apply_claim_overrides_operator_owned_claim() -> None:
    pod_spec = base_pod_spec()
    pod_spec["resourceClaims"] = [
        {"name": dra.CLAIM_NAME, "resourceClaimTemplateName": "old-template"}
    ]
    dra.apply_claim(pod_spec, "new-template")
    assert len(pod_spec["resourceClaims"]) == 1
    assert pod_spec["resourceClaims"][0]["resourceClaimTemplateName"] == "new-template"


def test_apply_claim_always_targets_first_container() -> None:
    pod_spec = base_pod_spec()
    pod_spec["containers"].append({"name": "sidecar", "image": "sidecar:latest"})
    dra.apply_claim(pod_spec, "myapp-worker-gpu")
    assert pod_spec["containers"][0]["resources"]["claims"] == [{"name": dra.CLAIM_NAME}]
    assert not (pod_spec["containers"][1].get("resources") or {}).get("claims")


def test_extract_gpu_count_deterministic_resource_selection() -> None:
    resources = {"limits": {"nvidia.com/mig-3g.20gb": "1", "nvidia.com/gpu": "4"}}
    assert dra.extract_gpu_count_from_resource_requirements(resources) == 4


def test_extract_gpu_count_mig_resource() -> None:
    resources = {"requests": {"nvidia.com/mig-3g.20gb": "2"}}
    assert dra.extract_gpu_count_from_resource_requirements(resources) == 2


def test_extract_gpu_count_rejects_fractional_gpu() -> None:
    with pytest.raises(BackendError, match="must be a whole number") as info:
        dra.extract_gpu_count_from_resource_requirements({"limits": {"nvidia.com/gpu": "500m"}})
    assert "500m" in info.value.message


def test_resolve_gpu_count_prefers_scalar_resources() -> None:
    resources = {"limits": {"nvidia.com/gpu": "8"}, "claims": [{"name": "missing"}]}
    assert dra.resolve_gpu_count("default", None, resources) == 8


def test_resource_claim_template_name() -> None:
    assert dra.resource_claim_template_name("myapp", "Worker") == "myapp-worker-gpu"
    assert dra.resource_claim_template_name("app", "VllmDecodeWorker") == "app-vllmdecodeworker-gpu"
