"""graph.go's volume helpers on the pod-spec path: the compilation cache mount and PVC,
mount validation, PVC volumes for bare mounts, and the volume order that follows the main
container's mounts.

Functions raise ValueError with the operator's message where the Go ones return an error.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator import consts
from renderer.operator.errors import OperatorError

JSON = dict[str, Any]

_DEFAULT_VLLM_CACHE_MOUNT_POINT = consts.DEFAULT_VLLM_CACHE_MOUNT_POINT


def get_default_compilation_cache_mount_point(backend_framework: str) -> str:
    """getDefaultCompilationCacheMountPoint: only vLLM has one."""
    return _DEFAULT_VLLM_CACHE_MOUNT_POINT if backend_framework == "vllm" else ""


def apply_compilation_cache(container: JSON, component: JSON, backend_framework: str) -> None:
    """applyCompilationCache: mount the cache PVC once, writable, at its path (in place).

    The resolved default mount path is written back into ``component.compilationCache``.
    """
    cache = component.get("compilationCache")
    if cache is None:
        return
    pvc_name = cache.get("pvcName", "")
    if pvc_name == "":
        raise OperatorError("compilationCache.pvcName is required when compilationCache is set")
    mount_path = cache.get("mountPath", "")
    if mount_path == "":
        mount_path = get_default_compilation_cache_mount_point(backend_framework)
        if mount_path == "":
            raise OperatorError(
                "compilationCache.mountPath is required for backend framework"
                f" {backend_framework} (no default available)"
            )
        cache["mountPath"] = mount_path
    normalized: list[JSON] = []
    already_mounted = False
    for original in container.get("volumeMounts") or []:
        mount = dict(original)
        # Older conversions left the cache mount without a path.
        if mount.get("name", "") == pvc_name and mount.get("mountPath", "") == "":
            mount["mountPath"] = mount_path
        if mount.get("mountPath", "") != mount_path:
            normalized.append(mount)
            continue
        if mount.get("name", "") != pvc_name:
            raise OperatorError(
                f"compilationCache.mountPath {go_quote(mount_path)} is already used by volume"
                f" {go_quote(mount.get('name', ''))}"
            )
        if mount.get("readOnly"):
            raise OperatorError(
                f"compilation cache volume {go_quote(pvc_name)} at {go_quote(mount_path)}"
                " must be writable"
            )
        if already_mounted:
            continue
        normalized.append(mount)
        already_mounted = True
    if not already_mounted:
        normalized.append({"name": pvc_name, "mountPath": mount_path})
    container["volumeMounts"] = normalized


def validate_container_volume_mounts(volume_mounts: list[JSON] | None) -> None:
    """validateContainerVolumeMounts: every mount has a name and a path."""
    for mount in volume_mounts or []:
        if mount.get("name", "") == "":
            raise OperatorError("volumeMount.name is required")
        if mount.get("mountPath", "") == "":
            raise OperatorError(f"volumeMount.mountPath is required for {mount['name']}")


def apply_compilation_cache_volume(pod_spec: JSON, compilation_cache: JSON | None) -> None:
    """applyCompilationCacheVolume: the cache PVC volume, checked or added (in place)."""
    if compilation_cache is None:
        return
    pvc_name = compilation_cache.get("pvcName", "")
    found = False
    for volume in pod_spec.get("volumes") or []:
        if volume.get("name", "") != pvc_name:
            continue
        claim = volume.get("persistentVolumeClaim")
        if claim is None:
            raise OperatorError(
                f"compilation cache volume {go_quote(volume.get('name', ''))} must reference"
                f" PVC {go_quote(pvc_name)}"
            )
        if claim.get("claimName", "") != pvc_name:
            raise OperatorError(
                f"compilation cache volume {go_quote(volume.get('name', ''))} references PVC"
                f" {go_quote(claim.get('claimName', ''))} instead of {go_quote(pvc_name)}"
            )
        if claim.get("readOnly"):
            raise OperatorError(f"compilation cache PVC {go_quote(pvc_name)} must be writable")
        if found:
            raise OperatorError(
                f"compilation cache volume {go_quote(pvc_name)} is defined more than once"
            )
        found = True
    if found:
        return
    pod_spec["volumes"] = [
        *(pod_spec.get("volumes") or []),
        {"name": pvc_name, "persistentVolumeClaim": {"claimName": pvc_name}},
    ]


def append_missing_pvc_volumes_for_mounts(
    volumes: list[JSON] | None, mounts: list[JSON] | None
) -> list[JSON]:
    """appendMissingPVCVolumesForMounts: volumes in mount order, a PVC volume per bare
    mount, then the unmounted volumes in their order (duplicate names collapse to one)."""
    by_name: dict[str, JSON] = {}
    for volume in volumes or []:
        by_name[volume.get("name", "")] = volume  # Go's map: the last one of a name wins
    ordered: list[JSON] = []
    seen: set[str] = set()
    for mount in mounts or []:
        name = mount.get("name", "")
        if name == "" or name in seen:
            continue
        seen.add(name)
        if name in by_name:
            ordered.append(by_name[name])
        else:
            ordered.append({"name": name, "persistentVolumeClaim": {"claimName": name}})
    ordered.extend(v for v in volumes or [] if v.get("name", "") not in seen)
    return ordered


def append_missing_volume_mounts(
    dst: list[JSON] | None, mounts: list[JSON] | None
) -> list[JSON] | None:
    """appendMissingVolumeMounts: add the mounts whose names dst lacks."""
    if not mounts:
        return dst
    out = list(dst or [])
    seen = {m.get("name", "") for m in out}
    for mount in mounts:
        if mount.get("name", "") in seen:
            continue
        out.append(mount)
        seen.add(mount.get("name", ""))
    return out
