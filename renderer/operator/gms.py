"""internal/gms: the intra-pod GPU Memory Service server sidecar and its clients.

Intra-pod GMS (``gpuMemoryService`` without ``mode: InterPod``) runs the GMS server as a
native sidecar (an init container with ``restartPolicy: Always``) beside the engine; each
client container mounts the shared emptyDir for the UDS sockets, gets ``GMS_SOCKET_DIR``
and the shared DRA claim instead of scalar GPUs. Every step is idempotent: an existing
volume, mount or env var of the operator's name is replaced, not duplicated.
"""

from __future__ import annotations

from typing import Any, Final

from renderer.goruntime.strconv import quote as go_quote
from renderer.jsoncopy import deep_copy
from renderer.operator.admission.conversion_spec import convert_to_gpu_memory_service_spec
from renderer.operator.dra import CLAIM_NAME, remove_gpu_resources

JSON = dict[str, Any]

#: ServerContainerName: the GMS server init sidecar.
SERVER_CONTAINER_NAME: Final = "gms-server"
#: SharedVolumeName: the emptyDir shared with the engine for UDS sockets.
SHARED_VOLUME_NAME: Final = "gms-intrapod-control"
SHARED_MOUNT_PATH: Final = "/gms-intrapod-control"
ENV_SOCKET_DIR: Final = "GMS_SOCKET_DIR"
SERVER_MODULE: Final = "gpu_memory_service.cli.server"


def ensure_server_sidecar(pod_spec: JSON | None, main_container: JSON | None) -> None:
    """EnsureServerSidecar: wire the main container as a client and add the server."""
    if pod_spec is None or main_container is None:
        return
    ensure_client(pod_spec, main_container)
    sidecar = container(SERVER_CONTAINER_NAME, SERVER_MODULE, main_container.get("image", ""))
    sidecar["restartPolicy"] = "Always"
    init_containers = pod_spec.get("initContainers") or []
    if any(c.get("name", "") == SERVER_CONTAINER_NAME for c in init_containers):
        return
    pod_spec["initContainers"] = [*init_containers, sidecar]


def _replace_or_append(items: list[JSON], key: str, name: str, item: JSON) -> list[JSON]:
    for i, existing in enumerate(items):
        if existing.get(key, "") == name:
            items[i] = item
            return items
    return [*items, item]


def ensure_client(pod_spec: JSON | None, client: JSON | None) -> None:
    """EnsureClient: socket volume, mount, GMS_SOCKET_DIR and the DRA claim on ``client``."""
    if pod_spec is None or client is None:
        return
    pod_spec["volumes"] = _replace_or_append(
        pod_spec.get("volumes") or [],
        "name",
        SHARED_VOLUME_NAME,
        {"name": SHARED_VOLUME_NAME, "emptyDir": {}},
    )
    client["volumeMounts"] = _replace_or_append(
        client.get("volumeMounts") or [],
        "name",
        SHARED_VOLUME_NAME,
        {"name": SHARED_VOLUME_NAME, "mountPath": SHARED_MOUNT_PATH},
    )
    client["env"] = _replace_or_append(
        client.get("env") or [],
        "name",
        ENV_SOCKET_DIR,
        {"name": ENV_SOCKET_DIR, "value": SHARED_MOUNT_PATH},
    )
    resources = client.setdefault("resources", {})
    remove_gpu_resources(resources.get("limits"))
    remove_gpu_resources(resources.get("requests"))
    claims = resources.get("claims") or []
    if not any(c.get("name", "") == CLAIM_NAME for c in claims):
        resources["claims"] = [*claims, {"name": CLAIM_NAME}]


def container(name: str, module: str, image: str) -> JSON:
    """Container: a GMS container running ``python3 -m module`` on the shared socket dir."""
    built: JSON = {
        "name": name,
        "command": ["python3", "-m", module],
        "env": [{"name": ENV_SOCKET_DIR, "value": SHARED_MOUNT_PATH}],
        "volumeMounts": [{"name": SHARED_VOLUME_NAME, "mountPath": SHARED_MOUNT_PATH}],
        "resources": {"claims": [{"name": CLAIM_NAME}]},
    }
    if image:
        built["image"] = image
    return deep_copy(built)


# --- internal/gms/clients.go -------------------------------------------------------------


def to_alpha_spec(src: JSON | None) -> JSON | None:
    """ToAlphaSpec: a component's (v1beta1) GMS settings in the checkpoint's v1alpha1 shape."""
    return None if src is None else convert_to_gpu_memory_service_spec(src)


class OverlayError(ValueError):
    """OverlayClients' error: the component restores GMS from a checkpoint without it."""


def overlay_clients(
    checkpoint_gms: JSON | None,
    checkpoint_name: str,
    checkpoint_exists: bool,
    service_gms: JSON | None,
) -> JSON | None:
    """OverlayClients: the checkpoint's GMS settings once the component's are applied.

    Go rewrites ``*checkpointGMS`` in place; this returns the new value. A component with
    GMS restoring from a checkpoint that has it enabled takes the component's settings
    (mode, device class, client containers): the snapshot's are only a record of capture.
    """
    converted = to_alpha_spec(service_gms)
    if converted is None or not converted.get("enabled"):
        return checkpoint_gms
    enabled = checkpoint_gms is not None and bool(checkpoint_gms.get("enabled"))
    if checkpoint_exists and not enabled:
        raise OverlayError(
            f"gpuMemoryService restore requires resolved checkpoint {go_quote(checkpoint_name)}"
            " to enable gpuMemoryService"
        )
    if not enabled:
        return checkpoint_gms
    return deep_copy(converted)
