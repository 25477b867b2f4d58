"""internal/dynamo/shared_memory.go: the /dev/shm tmpfs volume of the main container."""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import quantity_is_zero, quantity_text
from renderer.operator import consts

JSON = dict[str, Any]


def build_shared_memory_volume_and_mount(size_spec: Any) -> tuple[JSON, JSON] | None:
    """buildSharedMemoryVolumeAndMount: None when the size is zero (disabled).

    ``size_spec`` is the component's ``sharedMemorySize`` (None = 8Gi default).
    """
    size: Any = consts.DEFAULT_SHARED_MEMORY_SIZE
    if size_spec is not None:
        if quantity_is_zero(size_spec):
            return None
        size = quantity_text(size_spec, "sharedMemorySize")
    volume: JSON = {
        "name": consts.KUBE_VALUE_NAME_SHARED_MEMORY,
        "emptyDir": {"medium": "Memory", "sizeLimit": size},
    }
    mount: JSON = {
        "name": consts.KUBE_VALUE_NAME_SHARED_MEMORY,
        "mountPath": consts.DEFAULT_SHARED_MEMORY_MOUNT_PATH,
    }
    return volume, mount


def apply_shared_memory_volume_and_mount(
    pod_spec: JSON, main_container: JSON, size_spec: Any
) -> None:
    """ApplySharedMemoryVolumeAndMount (in place): replace the volume, mount last."""
    built = build_shared_memory_volume_and_mount(size_spec)
    if built is None:
        return
    volume, mount = built
    volumes = [v for v in pod_spec.get("volumes") or [] if v.get("name", "") != volume["name"]]
    pod_spec["volumes"] = [*volumes, volume]
    mounts = [
        m
        for m in main_container.get("volumeMounts") or []
        if m.get("name", "") != mount["name"] and m.get("mountPath", "") != mount["mountPath"]
    ]
    main_container["volumeMounts"] = [*mounts, mount]
