"""Restoring a Ready checkpoint into a rendered pod spec (internal/checkpoint podspec.go and
the checkpointjob restore helpers, pinned).

Used by the Grove path for a checkpointed component whose startup policy is not
Immediate (WaitForCheckpoint): once its checkpoint is Ready the operator stamps the
restore-target metadata on the clique and shapes the pod spec for a CRIU restore (seccomp
profile, checkpoint PVC, per-container snapshot-control mount, standby env, a startup
probe that waits for the restore). Immediate checkpoints are restored by the Pod admission
webhook instead and only get candidate annotations (graph_grove_meta).

Storage comes from the operator configuration (``checkpoint.storage``); discovering it from
the snapshot agent's DaemonSets (no storage configured) needs the cluster and is refused.
``checkpoint_info`` is checkpoint.CheckpointInfo with Go field names (``Hash`` is the
checkpoint ID, ``ArtifactVersion``, ``GPUMemoryService``, ...).
"""

from __future__ import annotations

import posixpath
from typing import Any, NamedTuple

from renderer.goruntime.strings import trim_space
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.config import CheckpointStorageConfig
from renderer.operator.errors import OperatorError
from renderer.operator.gms import ensure_client, ensure_server_sidecar
from renderer.operator.graph_grove_meta import (
    CHECKPOINT_ARTIFACT_VERSION_ANNOTATION,
    CHECKPOINT_ID_LABEL,
    CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION,
    CHECKPOINT_STORAGE_TYPE_ANNOTATION,
    RESTORE_TARGET_LABEL,
    TARGET_CONTAINERS_ANNOTATION,
    apply_restore_pod_metadata_cleared,
    format_target_containers,
)

JSON = dict[str, Any]

STORAGE_TYPE_PVC = "pvc"
DEFAULT_CHECKPOINT_ARTIFACT_VERSION = "1"
CHECKPOINT_VOLUME_NAME = "checkpoint-storage"
SNAPSHOT_CONTROL_VOLUME_NAME = "snapshot-control"
SNAPSHOT_CONTROL_MOUNT_PATH = "/snapshot-control"
SNAPSHOT_CONTROL_DIR_ENV = "DYN_SNAPSHOT_CONTROL_DIR"
RESTORE_COMPLETE_FILE = "restore-complete"
RESTORE_STANDBY_MODE_ENV = "DYN_SNAPSHOT_RESTORE_STANDBY"
#: restoreStartupFailureThreshold: 30 minutes at a 1 s cadence.
RESTORE_STARTUP_FAILURE_THRESHOLD = 1800
#: The checkpoint's (v1alpha1) spellings: the restore compares the DynamoCheckpoint's
#: mode, or the component's after OverlayClients converted it.
GMS_MODE_INTRA_POD = consts.GMS_MODE_INTRA_POD_V1ALPHA1
GMS_MODE_INTER_POD = consts.GMS_MODE_INTER_POD_V1ALPHA1


class CheckpointRestoreError(OperatorError):
    """The operator's error for this restore, or an input it needs the cluster for."""


class Storage(NamedTuple):
    """checkpointjob.Storage."""

    type: str = ""
    location: str = ""
    pvc_name: str = ""
    base_path: str = ""


def artifact_version(version: str) -> str:
    """ArtifactVersion: trimmed, default "1"."""
    return trim_space(version) or DEFAULT_CHECKPOINT_ARTIFACT_VERSION


def _normalize_storage_base_path(base_path: str) -> str:
    base_path = trim_space(base_path)
    if not base_path:
        raise CheckpointRestoreError(
            "checkpoint.storage.pvc.basePath is required when checkpoint storage is configured"
        )
    if not base_path.startswith("/"):
        raise CheckpointRestoreError(
            f'checkpoint.storage.pvc.basePath "{base_path}" must be absolute'
        )
    return posixpath.normpath(base_path).rstrip("/") or "/"


def storage_from_config(config: CheckpointStorageConfig) -> tuple[Storage, bool]:
    """StorageFromConfig: the configured PVC storage, ok=False when none is configured."""
    storage_type = trim_space(config.type)
    pvc = config.pvc
    pvc_name, base_path = trim_space(pvc.pvc_name), trim_space(pvc.base_path)
    has_pvc = bool(
        pvc_name
        or base_path
        or pvc.create
        or trim_space(pvc.size)
        or trim_space(pvc.storage_class_name)
        or trim_space(pvc.access_mode)
    )
    if not storage_type and not has_pvc:
        return Storage(), False
    if storage_type and storage_type != STORAGE_TYPE_PVC and not has_pvc:
        if storage_type in ("s3", "oci"):
            return Storage(), False
        raise CheckpointRestoreError(
            f'checkpoint.storage.type "{storage_type}" is not supported; '
            "only pvc is implemented today"
        )
    storage_type = storage_type or STORAGE_TYPE_PVC
    if storage_type != STORAGE_TYPE_PVC:
        raise CheckpointRestoreError(
            f'checkpoint storage type "{storage_type}" is not supported; '
            "only pvc is implemented today"
        )
    if not pvc_name or not base_path:
        raise CheckpointRestoreError(
            "checkpoint.storage.pvc.pvcName and checkpoint.storage.pvc.basePath are required "
            "when checkpoint storage is configured"
        )
    base_path = _normalize_storage_base_path(base_path)
    if pvc.create and trim_space(pvc.access_mode) not in ("", "ReadWriteOnce", "ReadWriteMany"):
        raise CheckpointRestoreError(
            f'checkpoint.storage.pvc.accessMode "{pvc.access_mode}" is not supported; '
            'expected "ReadWriteOnce" or "ReadWriteMany"'
        )
    return Storage(type=STORAGE_TYPE_PVC, pvc_name=pvc_name, base_path=base_path), True


def resolve_storage(checkpoint_id: str, version: str, config: CheckpointStorageConfig) -> Storage:
    """ResolveStorage: configured storage with its location; discovery is not reproduced."""
    storage, ok = storage_from_config(config)
    if not ok:
        raise CheckpointRestoreError(
            "checkpoint.storage: discovering the checkpoint storage from the snapshot agent's "
            "DaemonSets needs the cluster; not reproduced"
        )
    base_path = trim_space(storage.base_path)
    if not base_path:
        raise CheckpointRestoreError("checkpoint base path is required")
    if not base_path.startswith("/"):
        raise CheckpointRestoreError(f'checkpoint base path "{base_path}" must be absolute')
    base_path = base_path.rstrip("/") or "/"
    location = f"{base_path.rstrip('/')}/{checkpoint_id}/versions/{artifact_version(version)}"
    return Storage(
        type=trim_space(storage.type) or STORAGE_TYPE_PVC,
        location=location,
        pvc_name=trim_space(storage.pvc_name),
        base_path=base_path,
    )


def resolve_pod_spec_restore(
    checkpoint_info: JSON | None, storage_config: CheckpointStorageConfig
) -> tuple[JSON, Storage] | None:
    """ResolvePodSpecRestore: None unless the checkpoint is enabled and Ready."""
    info = checkpoint_info or {}
    if not (info.get("Enabled") and info.get("Ready")):
        return None
    resolved = dict(info)
    if not resolved.get("Hash"):
        # The operator reads the DynamoCheckpoint for its ID here; the resolver supplies it.
        raise CheckpointRestoreError("checkpoint is ready but hash is not set")
    resolved["ArtifactVersion"] = artifact_version(str(resolved.get("ArtifactVersion") or ""))
    storage = resolve_storage(str(resolved["Hash"]), resolved["ArtifactVersion"], storage_config)
    return resolved, storage


def _targets(info: JSON) -> list[str]:
    return list(info.get("RestoreTargetContainers") or []) or [consts.MAIN_CONTAINER_NAME]


def _parse_target_containers(value: str) -> list[str]:
    """ParseTargetContainers / TargetContainersFromAnnotations with at least one name."""
    value = trim_space(value)
    if not value:
        raise CheckpointRestoreError(
            f"restore pod spec: missing required {TARGET_CONTAINERS_ANNOTATION} annotation"
        )
    names: list[str] = []
    for part in value.split(","):
        name = trim_space(part)
        if not name:
            raise CheckpointRestoreError(
                "restore pod spec: empty container name in "
                f'{TARGET_CONTAINERS_ANNOTATION}="{value}"'
            )
        if name in names:
            raise CheckpointRestoreError(
                f'restore pod spec: duplicate container name "{name}" in '
                f'{TARGET_CONTAINERS_ANNOTATION}="{value}"'
            )
        names.append(name)
    return names


def _ensure_control_volume(pod_spec: JSON, container: JSON) -> None:
    """EnsureControlVolume: the emptyDir, a per-container subPath mount and the env."""
    volumes = pod_spec.setdefault("volumes", [])
    if not any(v.get("name") == SNAPSHOT_CONTROL_VOLUME_NAME for v in volumes):
        volumes.append({"name": SNAPSHOT_CONTROL_VOLUME_NAME, "emptyDir": {}})
    mounts = container.setdefault("volumeMounts", [])
    if not any(m.get("name") == SNAPSHOT_CONTROL_VOLUME_NAME for m in mounts):
        mount = {"name": SNAPSHOT_CONTROL_VOLUME_NAME, "mountPath": SNAPSHOT_CONTROL_MOUNT_PATH}
        if container.get("name"):
            mount["subPath"] = container["name"]
        mounts.append(mount)
    env = container.setdefault("env", [])
    if not any(e.get("name") == SNAPSHOT_CONTROL_DIR_ENV for e in env):
        env.append({"name": SNAPSHOT_CONTROL_DIR_ENV, "value": SNAPSHOT_CONTROL_MOUNT_PATH})


def _ensure_restore_startup_probe(container: JSON) -> None:
    """ensureRestoreStartupProbe: the first existing probe, tightened; else a sentinel probe."""
    # Go tests the pointers: an empty probe ({}) still counts.
    probe = next(
        (
            container[key]
            for key in ("startupProbe", "livenessProbe", "readinessProbe")
            if container.get(key) is not None
        ),
        None,
    )
    if probe is None:
        container["startupProbe"] = {
            "exec": {"command": ["cat", f"{SNAPSHOT_CONTROL_MOUNT_PATH}/{RESTORE_COMPLETE_FILE}"]},
            "timeoutSeconds": 1,
            "periodSeconds": 1,
            "failureThreshold": RESTORE_STARTUP_FAILURE_THRESHOLD,
            "successThreshold": 1,
        }
        return
    startup = deep_copy(probe)
    startup.pop("initialDelaySeconds", None)
    startup["periodSeconds"] = 1
    startup["failureThreshold"] = RESTORE_STARTUP_FAILURE_THRESHOLD
    startup["successThreshold"] = 1
    container["startupProbe"] = startup


def prepare_restore_pod_spec(
    pod_spec: JSON, target_annotation: str, storage: Storage, seccomp_profile: str, ready: bool
) -> None:
    """PrepareRestorePodSpec: restore shaping of the target containers (in place)."""
    targets = _parse_target_containers(target_annotation)
    if seccomp_profile:
        security = pod_spec.get("securityContext")
        if not isinstance(security, dict):
            security = pod_spec["securityContext"] = {}
        security["seccompProfile"] = {"type": "Localhost", "localhostProfile": seccomp_profile}
    if storage.pvc_name:
        volumes = pod_spec.setdefault("volumes", [])
        if not any(v.get("name") == CHECKPOINT_VOLUME_NAME for v in volumes):
            volumes.append(
                {
                    "name": CHECKPOINT_VOLUME_NAME,
                    "persistentVolumeClaim": {"claimName": storage.pvc_name},
                }
            )
    containers = pod_spec.get("containers") or []
    for name in targets:
        container = next((c for c in containers if c.get("name") == name), None)
        if container is None:
            raise CheckpointRestoreError(
                f'restore target container "{name}" not found in pod spec '
                f"(from {TARGET_CONTAINERS_ANNOTATION} annotation)"
            )
        if storage.base_path:
            mounts = container.setdefault("volumeMounts", [])
            if not any(m.get("name") == CHECKPOINT_VOLUME_NAME for m in mounts):
                mounts.append({"name": CHECKPOINT_VOLUME_NAME, "mountPath": storage.base_path})
        _ensure_control_volume(pod_spec, container)
        if ready:
            env = container.setdefault("env", [])
            found = next((e for e in env if e.get("name") == RESTORE_STANDBY_MODE_ENV), None)
            if found is not None:
                found["value"] = "1"
                found.pop("valueFrom", None)
            else:
                env.append({"name": RESTORE_STANDBY_MODE_ENV, "value": "1"})
            _ensure_restore_startup_probe(container)


def inject_resolved_checkpoint_into_pod_spec(
    pod_spec: JSON, restore: tuple[JSON, Storage] | None, seccomp_profile: str
) -> None:
    """InjectResolvedCheckpointIntoPodSpec (in place; a None restore changes nothing)."""
    if restore is None:
        return
    info, storage = restore
    targets = _targets(info)
    prepare_restore_pod_spec(
        pod_spec, format_target_containers(targets), storage, seccomp_profile, bool(info["Ready"])
    )
    containers = pod_spec.get("containers") or []
    target_containers = []
    for name in targets:
        container = next((c for c in containers if c.get("name") == name), None)
        if container is None:
            raise CheckpointRestoreError(
                f'checkpoint restore target "{name}" does not exist in pod spec'
            )
        target_containers.append(container)
    gms = info.get("GPUMemoryService")
    if info.get("Ready") and isinstance(gms, dict) and gms.get("enabled"):
        mode = gms.get("mode") or ""
        if mode in ("", GMS_MODE_INTRA_POD):
            _ensure_intra_pod_gms(pod_spec, target_containers, gms)
        elif mode == GMS_MODE_INTER_POD:
            raise CheckpointRestoreError(
                f'gpuMemoryService checkpoint restore for mode "{mode}" is not implemented'
            )
        else:
            raise CheckpointRestoreError(
                f'gpuMemoryService checkpoint restore has unsupported mode "{mode}"'
            )


def _ensure_intra_pod_gms(pod_spec: JSON, targets: list[JSON], gms: JSON) -> None:
    """EnsureIntraPodGPUMemoryService: the GMS server sidecar and its socket clients."""
    if not targets:
        return
    ensure_server_sidecar(pod_spec, targets[0])
    for container in targets:
        ensure_client(pod_spec, container)
    containers = pod_spec.get("containers") or []
    for name in gms.get("extraClientContainers") or []:
        extra = next((c for c in containers if c.get("name") == name), None)
        if extra is not None:
            ensure_client(pod_spec, extra)


def apply_restore_pod_metadata_with_storage_config(
    labels: dict[str, str],
    annotations: dict[str, str],
    checkpoint_info: JSON | None,
    storage_config: CheckpointStorageConfig,
) -> None:
    """ApplyRestorePodMetadataWithStorageConfig: restore-target metadata of a Ready checkpoint."""
    info = checkpoint_info or {}
    enabled = bool(info.get("Enabled") and info.get("Ready"))
    storage, ok = storage_from_config(storage_config) if enabled else (Storage(), False)
    apply_restore_pod_metadata_cleared(labels, annotations)
    if not enabled:
        return
    labels[RESTORE_TARGET_LABEL] = consts.KUBE_LABEL_VALUE_TRUE
    if info.get("Hash"):
        labels[CHECKPOINT_ID_LABEL] = str(info["Hash"])
    annotations[CHECKPOINT_ARTIFACT_VERSION_ANNOTATION] = artifact_version(
        str(info.get("ArtifactVersion") or "")
    )
    annotations[TARGET_CONTAINERS_ANNOTATION] = format_target_containers(_targets(info))
    if ok:
        if trim_space(storage.type):
            annotations[CHECKPOINT_STORAGE_TYPE_ANNOTATION] = trim_space(storage.type)
        base_path = trim_space(storage.base_path)
        if base_path:
            annotations[CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION] = base_path.rstrip("/") or "/"
