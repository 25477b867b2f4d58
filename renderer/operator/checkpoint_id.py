"""internal/checkpoint resolve.go and the DGD controller's checkpoint resolution.

The IDs and names it compares (``DGDCheckpointID``, ``CheckpointID``) are hash.go's, in
checkpoint_hash.py.

Per component with ``experimental.checkpoint.enabled`` the controller
(``dgdCheckpointsReconciler.Reconcile``) reads exactly one DynamoCheckpoint:

- with ``checkpointRef``: the object of that name; missing is an error;
- otherwise ``checkpoint-<ID>`` with the v2 worker hash for worker-class components (empty
  for others). Missing: the controller creates it (not Ready). Present: its checkpoint ID
  (``status.checkpointID``, else ``status.identityHash``, else the
  ``nvidia.com/snapshot-checkpoint-id`` label, else the identity hash of
  ``spec.identity``) must equal the ID, or reconciliation fails.

Labels and identity hashes are never used to *find* a checkpoint. The DGD UID is part of the
ID; the API server assigns it, so callers pass it (else ``metadata.uid``, else a controller
ownerReference to a DynamoGraphDeployment of the same name on a given checkpoint, else "").

``resolve_dgd_checkpoints`` returns one :class:`CheckpointResolution` per component, so a
caller can fail closed naming the checkpoint the operator will look for.
``apply_checkpoint_startup_policy`` is the DCD path's use of the result
(componentWorkloadsReconciler.applyCheckpointStartupPolicy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.checkpoint_hash import (
    checkpoint_id_of,
    checkpoint_name,
    dgd_checkpoint_id,
)
from renderer.operator.errors import NotReproducedError, OperatorError
from renderer.record import Record, field

if TYPE_CHECKING:
    from renderer.operator.config import OperatorConfig

JSON = dict[str, Any]

CHECKPOINT_ID_LABEL = consts.CHECKPOINT_ID_LABEL
RESTORE_TARGET_LABEL = consts.RESTORE_TARGET_LABEL
CHECKPOINT_SOURCE_LABEL = consts.CHECKPOINT_SOURCE_LABEL
ARTIFACT_VERSION_ANNOTATION = consts.CHECKPOINT_ARTIFACT_VERSION_ANNOTATION
STORAGE_TYPE_ANNOTATION = consts.CHECKPOINT_STORAGE_TYPE_ANNOTATION
STORAGE_BASE_PATH_ANNOTATION = consts.CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION
TARGET_CONTAINERS_ANNOTATION = consts.TARGET_CONTAINERS_ANNOTATION
RESTORE_CANDIDATE_ANNOTATION = consts.CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION
CHECKPOINT_NAME_ANNOTATION = consts.CHECKPOINT_NAME_ANNOTATION
STARTUP_POLICY_ANNOTATION = consts.CHECKPOINT_STARTUP_POLICY_ANNOTATION
DELETION_POLICY_ANNOTATION = consts.CHECKPOINT_DELETION_POLICY_ANNOTATION
FINALIZER = consts.FINALIZER
DEFAULT_ARTIFACT_VERSION = "1"
POLICY_IMMEDIATE = "Immediate"
POLICY_WAIT = "WaitForCheckpoint"
DELETION_DELETE = "Delete"
DELETION_RETAIN = "Retain"
PHASE_READY = "Ready"
LOOKUP_REF = "checkpointRef"
LOOKUP_AUTO = "auto (by name)"
FAILOVER_ENGINE_CONTAINERS = ("engine-0", "engine-1")


class CheckpointResolutionError(OperatorError):
    """The controller fails reconciling checkpoints (message without the stage prefix)."""


def _meta(obj: JSON) -> JSON:
    meta: JSON = obj.get("metadata") or {}
    return meta


def dgd_uid_for(dgd: JSON, checkpoints: list[JSON], explicit: str | None) -> tuple[str, str]:
    """(uid, source): the given UID, metadata.uid, a checkpoint's controller ownerReference."""
    if explicit:
        return explicit, "--dgd-uid"
    meta = _meta(dgd)
    if meta.get("uid"):
        return str(meta["uid"]), "metadata.uid"
    for ckpt in checkpoints:
        for ref in _meta(ckpt).get("ownerReferences") or []:
            if (
                ref.get("controller")
                and ref.get("kind") == consts.DGD_KIND
                and ref.get("name") == meta.get("name")
                and ref.get("uid")
            ):
                return str(ref["uid"]), "checkpoint ownerReferences"
    return "", "none"


class CheckpointResolution(Record):
    """What the controller resolves for one component (and why a given object is not it)."""

    component: str
    lookup: str  # LOOKUP_REF or LOOKUP_AUTO
    checkpoint_name: str  # the DynamoCheckpoint the operator reads
    expected_id: str  # the automatic ID ("" for checkpointRef)
    found: JSON | None  # the given object of that name, if any
    ok: bool
    reason: str | None = None  # the operator's error when not ok
    checkpoint_id: str = ""  # the resolved checkpoint's ID
    ready: bool = False
    startup_policy: str = POLICY_IMMEDIATE
    restore_target_containers: list[str] = field(default_factory=list)
    operator_write: str | None = None  # "create" / "patch" for the automatic checkpoint
    info: JSON = field(default_factory=dict)  # checkpoint.CheckpointInfo, Go field names

    @property
    def replicas_gated_to_zero(self) -> bool:
        return self.startup_policy == POLICY_WAIT and not self.ready

    @property
    def restore_candidate_metadata(self) -> bool:
        return (
            bool(self.info.get("Exists"))
            and bool(self.info.get("CheckpointName"))
            and self.startup_policy == POLICY_IMMEDIATE
        )

    def report(self) -> JSON:
        """The oracle's checkpoint-resolution.yaml entry (the fields this module decides)."""
        out: JSON = {
            "checkpointID": self.checkpoint_id,
            "checkpointName": self.checkpoint_name,
            "foundInInput": self.found is not None,
            "lookup": self.lookup,
            "ready": self.ready,
            "replicasGatedToZero": self.replicas_gated_to_zero,
            "restoreCandidateMetadata": self.restore_candidate_metadata,
            "restoreTargetContainers": list(self.restore_target_containers),
            "startupPolicy": self.startup_policy,
        }
        if self.operator_write:
            out["operatorWrite"] = self.operator_write
        return out


def _component_checkpoint(component: JSON) -> JSON | None:
    """GetCheckpoint: the experimental checkpoint block when enabled."""
    cfg = (component.get("experimental") or {}).get("checkpoint")
    return cfg if cfg is not None and cfg.get("enabled") else None


def _by_name(checkpoints: list[JSON], namespace: str, name: str) -> JSON | None:
    for ckpt in checkpoints:
        meta = _meta(ckpt)
        if meta.get("name") == name and (meta.get("namespace") or namespace) == namespace:
            return ckpt
    return None


def _info_from_object(ckpt: JSON) -> JSON:
    """checkpointInfoFromObject."""
    annotations = _meta(ckpt).get("annotations") or {}
    return {
        "Enabled": True,
        "Exists": True,
        "GPUMemoryService": deep_copy((ckpt.get("spec") or {}).get("gpuMemoryService")),
        "Hash": checkpoint_id_of(ckpt),
        "ArtifactVersion": annotations.get(ARTIFACT_VERSION_ANNOTATION) or DEFAULT_ARTIFACT_VERSION,
        "CheckpointName": _meta(ckpt).get("name", ""),
        "Ready": (ckpt.get("status") or {}).get("phase") == PHASE_READY,
        "StartupPolicy": "",
        "RestoreTargetContainers": [],
    }


def _owner_patch_needed(ckpt: JSON, dgd: JSON, dgd_uid: str, deletion: str) -> bool:
    """Whether CreateOrGetAutoCheckpoint patches an existing object (policy, finalizer, owner)."""
    meta = _meta(ckpt)
    if (meta.get("annotations") or {}).get(DELETION_POLICY_ANNOTATION) != deletion:
        return True
    if FINALIZER not in (meta.get("finalizers") or []):
        return True
    refs = meta.get("ownerReferences") or []
    if deletion == DELETION_RETAIN:
        return bool(refs)
    dmeta = _meta(dgd)
    for ref in refs:
        if ref.get("controller") and (
            ref.get("kind") != consts.DGD_KIND or ref.get("name") != dmeta.get("name")
        ):
            raise CheckpointResolutionError(
                f"checkpoint {meta.get('name', '')} is controlled by another owner"
                " (the operator's exact message is not reproduced)"
            )
    wanted = {
        "apiVersion": consts.API_VERSION_V1BETA1,
        "kind": consts.DGD_KIND,
        "name": dmeta.get("name", ""),
        "uid": dgd_uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return wanted not in refs


def resolve_component_checkpoint(
    dgd: JSON,
    component: JSON,
    worker_hash: str,
    checkpoints: list[JSON],
    dgd_uid: str,
    *,
    config: OperatorConfig | None = None,
) -> CheckpointResolution | None:
    """One component's resolution; None when its checkpoint is not enabled.

    ``config`` is the operator configuration the checkpoint job pod spec is rendered with
    (None: Go's empty configuration).
    """
    from renderer.operator.gms import OverlayError, overlay_clients  # noqa: PLC0415 - the pod-spec emulation only for a component with checkpointing enabled (off a lint's path)
    from renderer.operator.graph_dcd import is_worker_component  # noqa: PLC0415 - the pod-spec emulation only for a component with checkpointing enabled (off a lint's path)

    cfg = _component_checkpoint(component)
    if cfg is None:
        return None
    meta = _meta(dgd)
    namespace = meta.get("namespace", "")
    name = component.get("name", "")
    policy = cfg.get("startupPolicy") or POLICY_IMMEDIATE
    target = cfg.get("targetContainerName", "")
    ref = cfg.get("checkpointRef") or ""
    if ref:
        found = _by_name(checkpoints, namespace, ref)
        res = CheckpointResolution(name, LOOKUP_REF, ref, "", found, ok=found is not None)
        if found is None:
            res.reason = (
                f"failed to resolve checkpoint for component {name}: failed to get referenced"
                f' checkpoint {ref}: dynamocheckpoints.nvidia.com "{ref}" not found'
            )
            return res
        info = _info_from_object(found)
        if target:
            info["RestoreTargetContainers"] = [target]
    else:
        hash_for_id = worker_hash if is_worker_component(component.get("type", "")) else ""
        expected = dgd_checkpoint_id(namespace, meta.get("name", ""), dgd_uid, name, hash_for_id)
        cname = checkpoint_name(expected)
        found = _by_name(checkpoints, namespace, cname)
        res = CheckpointResolution(name, LOOKUP_AUTO, cname, expected, found, ok=True)
        info = (
            _info_from_object(found)
            if found is not None
            else {"Enabled": True, "StartupPolicy": policy, "RestoreTargetContainers": []}
        )
    info["StartupPolicy"] = policy
    if not info["RestoreTargetContainers"] and target:
        info["RestoreTargetContainers"] = [target]
    failover = (component.get("experimental") or {}).get("failover")
    if failover is not None and failover.get("mode", "") in ("", "IntraPod"):
        info["RestoreTargetContainers"] = list(FAILOVER_ENGINE_CONTAINERS)
    try:
        info["GPUMemoryService"] = overlay_clients(
            info.get("GPUMemoryService"),
            str(info.get("CheckpointName", "")),
            bool(info.get("Exists")),
            (component.get("experimental") or {}).get("gpuMemoryService"),
        )
    except OverlayError as err:
        res.ok = False
        res.reason = (
            f"failed to apply checkpoint gpuMemoryService config for component {name}: {err}"
        )
        return res
    if not ref:
        problem = _auto_checkpoint_problem(dgd, component, cfg, res.expected_id, config)
        if problem:
            res.ok = False
            res.reason = f"failed to create checkpoint for component {name}: {problem}"
            return res
        deletion = cfg.get("deletionPolicy") or DELETION_DELETE
        if found is not None:
            found_id = checkpoint_id_of(found)
            if found_id != res.expected_id:
                res.ok = False
                res.reason = (
                    f"failed to create checkpoint for component {name}: checkpoint"
                    f" {res.checkpoint_name} already exists with checkpoint ID {found_id}"
                )
                info["Hash"] = found_id
                res.info, res.checkpoint_id = info, found_id
                return res
            res.operator_write = (
                "patch" if _owner_patch_needed(found, dgd, dgd_uid, deletion) else None
            )
        else:
            res.operator_write = "create"
            if info.get("GPUMemoryService") is None:  # the created object's spec
                info["GPUMemoryService"] = _auto_checkpoint_gms(component, cfg)
        info["Exists"] = True
        info["CheckpointName"] = res.checkpoint_name
        info["Hash"] = res.expected_id
        info["Ready"] = (
            found is not None and (found.get("status") or {}).get("phase") == PHASE_READY
        )
    res.info = info
    res.checkpoint_id = str(info.get("Hash", ""))
    res.ready = bool(info.get("Ready"))
    res.startup_policy = policy
    res.restore_target_containers = list(info.get("RestoreTargetContainers") or [])
    return res


def _auto_checkpoint_gms(component: JSON, cfg: JSON) -> JSON | None:
    """createCheckpointCR's GMS spec: the component's, with the checkpoint job's clients."""
    from renderer.operator.gms import to_alpha_spec  # noqa: PLC0415 - the pod-spec emulation only for an auto checkpoint (off a lint's path)

    spec = to_alpha_spec((component.get("experimental") or {}).get("gpuMemoryService"))
    if spec is None:
        return None
    spec.pop("extraClientContainers", None)
    clients = list((cfg.get("job") or {}).get("gmsClientContainers") or [])
    if clients:
        spec["extraClientContainers"] = clients
    return spec


def _auto_checkpoint_problem(
    dgd: JSON, component: JSON, cfg: JSON, checkpoint_id: str, config: OperatorConfig | None
) -> str | None:
    """createCheckpointCR's checks before it creates or reads the object (None: passes)."""
    from renderer.operator.backend import (  # noqa: PLC0415 - the pod-spec emulation only for an auto checkpoint (off a lint's path)
        BackendError,
        get_backend_framework_from_component,
        parse_backend_framework,
    )

    name = component.get("name", "")
    try:
        framework = get_backend_framework_from_component(component, dgd)
    except BackendError as err:
        return f"failed to determine backend framework for component {name}: {err}"
    legacy = (cfg.get("identity") or {}).get("backendFramework", "")
    if framework in ("", "noop") and legacy:
        try:
            framework = parse_backend_framework(legacy)
        except BackendError as err:
            return (
                f"invalid legacy checkpoint identity backend framework for component {name}: {err}"
            )
    if framework in ("", "noop"):
        return (
            f"checkpoint backend framework for component {name} could not be determined;"
            " set spec.backendFramework or use a recognizable worker command"
        )
    target = cfg.get("targetContainerName") or "main"
    containers = ((component.get("podTemplate") or {}).get("spec") or {}).get("containers") or []
    if target != "main" and not any(ctr.get("name") == target for ctr in containers):
        raise NotReproducedError(
            "a checkpoint target container outside the pod template is not reproduced",
            f"spec.components[{name}].experimental.checkpoint.targetContainerName",
        )
    # buildCheckpointJobPodTemplate runs for every automatic checkpoint (found or not),
    # before the GMS claim template and before the Grove or DCD render
    pod_spec, problem = _checkpoint_job_pod_spec(dgd, component, framework, target, config)
    if problem:
        return problem
    gms = (component.get("experimental") or {}).get("gpuMemoryService")
    if gms is not None:  # gms.ToAlphaSpec: a v1beta1 GMS spec is an enabled one
        return _gms_claim_template_problem(dgd, component, pod_spec, target, gms, checkpoint_id)
    return None


def _checkpoint_job_pod_spec(
    dgd: JSON, component: JSON, framework: str, target: str, config: OperatorConfig | None
) -> tuple[JSON, str | None]:
    """buildCheckpointJobPodTemplate's pod spec: the component without its experimental and
    frontend-sidecar settings, rendered for the checkpoint role; (spec, refusal or None)."""
    from renderer.operator.backend import ROLE_CHECKPOINT, BackendError  # noqa: PLC0415 - the pod-spec emulation only for a checkpoint (off a lint's path)
    from renderer.operator.graph_podspec import PodSpecError, generate_pod_spec_for_component  # noqa: PLC0415 - the pod-spec emulation only for a checkpoint (off a lint's path)

    name = component.get("name", "")
    job = {k: v for k, v in component.items() if k not in ("experimental", "frontendSidecar")}
    try:
        pod_spec = generate_pod_spec_for_component(
            job, framework, None, dgd, ROLE_CHECKPOINT, 1, config, "grove", name,
            None, None, None, lambda: 0,
        )  # fmt: skip
    except (PodSpecError, BackendError) as err:
        return {}, (
            f"failed to build checkpoint job pod template: failed to generate base pod spec: {err}"
        )
    if not any(c.get("name") == target for c in pod_spec.get("containers") or []):
        return pod_spec, (
            f'failed to build checkpoint job pod template: checkpoint target container "{target}"'
            " not found"
        )
    return pod_spec, None


def _gms_claim_template_problem(  # noqa: PLR0917 - createCheckpointCR's locals
    dgd: JSON,
    component: JSON,
    pod_spec: JSON,
    target: str,
    gms: JSON,
    checkpoint_id: str,
) -> str | None:
    """createCheckpointCR's GMS ResourceClaimTemplate sync for the checkpoint job.

    The GPU count is the target container's in the checkpoint job pod spec; a count above
    zero needs the DeviceClass, which the oracle's empty cluster does not hold, so the
    controller stops there.
    """
    from renderer.operator import dra  # noqa: PLC0415 - the pod-spec emulation only for a checkpoint (off a lint's path)
    from renderer.operator.backend import BackendError  # noqa: PLC0415 - the pod-spec emulation only for a checkpoint (off a lint's path)

    meta = _meta(dgd)
    name = component.get("name", "")
    found = [c for c in pod_spec.get("containers") or [] if c.get("name") == target]
    try:
        gpus = dra.extract_gpu_count_from_resource_requirements(found[0].get("resources"))
    except BackendError as err:
        return (
            f"invalid GPU resource requirements for GMS checkpoint"
            f" {meta.get('name', '')}/{name}: {err}"
        )
    if gpus <= 0:
        return None  # the template is only deleted: no DeviceClass lookup
    template = dra.resource_claim_template_name(f"checkpoint-{checkpoint_id}", "worker")
    device_class = gms.get("deviceClassName") or dra.DEFAULT_DEVICE_CLASS_NAME
    return (
        f"failed to sync checkpoint GMS ResourceClaimTemplate {meta.get('namespace', '')}/"
        f'{template}: DeviceClass "{device_class}" not found: ensure the GPU DRA driver is'
        " installed and the device class is registered"
    )


def resolve_dgd_checkpoints(
    dgd: JSON,
    worker_hash: str,
    checkpoints: list[JSON],
    dgd_uid: str,
    *,
    checkpoint_gate_enabled: bool = True,
    config: OperatorConfig | None = None,
) -> dict[str, CheckpointResolution]:
    """dgdCheckpointsReconciler.Reconcile: every checkpoint-enabled component, in DGD order.

    Stops at the first component the controller fails on, as Reconcile does: that
    resolution carries ``ok=False`` and the reason.
    """
    out: dict[str, CheckpointResolution] = {}
    for component in (dgd.get("spec") or {}).get("components") or []:
        if _component_checkpoint(component) is None:
            continue
        name = component.get("name", "")
        if not checkpoint_gate_enabled:
            raise CheckpointResolutionError(
                f"component {name}: checkpoint functionality is disabled in the operator"
                " configuration"
            )
        res = resolve_component_checkpoint(
            dgd, component, worker_hash, checkpoints, dgd_uid, config=config
        )
        if res is None:
            continue
        out[name] = res
        if not res.ok:
            break
    return out


def apply_checkpoint_startup_policy(dcd: JSON, info: JSON | None) -> None:
    """applyCheckpointStartupPolicy: checkpointRef, the WaitForCheckpoint gate, restore metadata."""
    from renderer.operator.graph_grove_meta import apply_restore_candidate_metadata  # noqa: PLC0415 - Grove metadata only when a DCD restores from a checkpoint (off a lint's path)

    if dcd is None or not info or not info.get("Enabled"):
        return
    spec = dcd.setdefault("spec", {})
    if info.get("Exists") and info.get("CheckpointName"):
        ckpt = spec.setdefault("experimental", {}).setdefault("checkpoint", {})
        ckpt["enabled"] = True
        ckpt["checkpointRef"] = info["CheckpointName"]
        ckpt.pop("identity", None)
        ckpt.pop("job", None)
        ckpt["startupPolicy"] = info.get("StartupPolicy") or POLICY_IMMEDIATE
    policy = info.get("StartupPolicy") or ""
    if policy == POLICY_WAIT and not info.get("Ready"):
        spec["replicas"] = 0
        return
    if policy and policy != POLICY_IMMEDIATE:
        return
    tpl = spec.get("podTemplate")
    if tpl is None:
        tpl = spec["podTemplate"] = {}
    meta = tpl.setdefault("metadata", {})
    if meta.get("labels") is None:
        meta["labels"] = {}
    if meta.get("annotations") is None:
        meta["annotations"] = {}
    apply_restore_candidate_metadata(meta["labels"], meta["annotations"], info)
