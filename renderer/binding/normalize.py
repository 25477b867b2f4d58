"""The operator's capture-input normalisation, applied to decoded (Go-typed) values in place.

The operator defaults a few fields before hashing so that API-server defaulting of a
stored checkpoint does not change its digest. Only these rewrites happen; everything else
is hashed as given. Decoded structs are dicts in which an absent key is Go's zero value
(so "" and absent are the same string) and a present pointer key is a non-nil pointer.
"""

from __future__ import annotations

from typing import Any

from renderer.constants import GMS_INTRA_POD
from renderer.keys import MAIN_CONTAINER

DEFAULT_ACTIVE_DEADLINE_SECONDS = 3600
GMS_DEFAULT_MODE = GMS_INTRA_POD
GMS_DEFAULT_DEVICE_CLASS = "gpu.nvidia.com"
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_ENV_KEY_REFS = ("configMapKeyRef", "secretKeyRef", "fileKeyRef")
_ENV_FROM_REFS = ("configMapRef", "secretRef")
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _drop_false(struct: dict[str, Any] | None, key: str) -> None:
    """A `*bool` pointing at false becomes nil (absent); true is kept."""
    if struct is not None and struct.get(key) is False:
        del struct[key]


def _default_string(struct: dict[str, Any], key: str, default: str) -> None:
    if struct.get(key, "") == "":
        struct[key] = default


def normalize_job(job: dict[str, Any]) -> None:
    """DynamoCheckpointJobConfig: target container, deadline, then the pod template."""
    _default_string(job, "targetContainerName", MAIN_CONTAINER)
    if "activeDeadlineSeconds" not in job:  # nil pointer; an explicit 0 is kept
        job["activeDeadlineSeconds"] = DEFAULT_ACTIVE_DEADLINE_SECONDS
    pod = job.get("podTemplateSpec", {}).get("spec")
    if pod is None:
        return
    for list_key in _CONTAINER_LISTS:
        for container in pod.get(list_key) or ():
            _normalize_container(container)
    for volume in pod.get("volumes") or ():
        _normalize_volume(volume)


def normalize_gms(gms: dict[str, Any]) -> None:
    """GPUMemoryServiceSpec when present (even with enabled false)."""
    _default_string(gms, "mode", GMS_DEFAULT_MODE)
    _default_string(gms, "deviceClassName", GMS_DEFAULT_DEVICE_CLASS)


def _normalize_container(container: dict[str, Any]) -> None:
    for probe_key in _PROBES:
        grpc = (container.get(probe_key) or {}).get("grpc")
        if grpc is not None and grpc.get("service") == "":
            del grpc["service"]
    for port in container.get("ports") or ():
        _default_string(port, "protocol", "TCP")
    for env in container.get("env") or ():
        source = env.get("valueFrom")
        if source is not None:
            for ref_key in _ENV_KEY_REFS:
                _drop_false(source.get(ref_key), "optional")
    for env_from in container.get("envFrom") or ():
        for ref_key in _ENV_FROM_REFS:
            _drop_false(env_from.get(ref_key), "optional")


def _normalize_volume(volume: dict[str, Any]) -> None:
    _drop_false(volume.get("configMap"), "optional")
    _drop_false(volume.get("secret"), "optional")
    projected = volume.get("projected")
    if projected is not None:
        for source in projected.get("sources") or ():
            _drop_false(source.get("configMap"), "optional")
            _drop_false(source.get("secret"), "optional")
    rbd = volume.get("rbd")
    if rbd is not None:
        _default_string(rbd, "pool", "rbd")
        _default_string(rbd, "user", "admin")
        _default_string(rbd, "keyring", "/etc/ceph/keyring")
    azure = volume.get("azureDisk")
    if azure is not None:
        if "fsType" not in azure:  # nil pointer only; a pointer to "" is kept
            azure["fsType"] = "ext4"
        _drop_false(azure, "readOnly")
    iscsi = volume.get("iscsi")
    if iscsi is not None:
        _default_string(iscsi, "iscsiInterface", "default")
    scale_io = volume.get("scaleIO")
    if scale_io is not None:
        _default_string(scale_io, "fsType", "xfs")
        _default_string(scale_io, "storageMode", "ThinProvisioned")
