"""Clique labels and annotations of the Grove path (graph.go generateLabels/Annotations, pinned).

A Grove clique's ``labels``/``annotations`` become every Pod's metadata. Labels: system
labels, the metrics label, then DGD ``spec.labels``, the v1alpha1 service labels kept in
the conversion payload, the pod-template labels, and the system labels again (system
wins); annotations: DGD ``spec.annotations`` < v1alpha1 service annotations < pod-template
annotations. Checkpoint restore metadata (internal/checkpoint podspec.go) and the restart
annotation are applied on top by the clique builder with the helpers here.

The v1alpha1 service metadata comes from ``getDGDAlpha``: the operator converts the hub
DGD back to v1alpha1 and reads ``services[name]``. Only the three values the Grove path
reads are reproduced (``subComponentType``, ``labels``, ``annotations``), from the
component type and the ``nvidia.com/dgd-spec`` payload the conversion keeps.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import unmarshal
from renderer.goruntime.strings import trim_space
from renderer.operator import consts
from renderer.operator.dcd_alpha import restore_preserved_spec
from renderer.operator.errors import NotReproducedError, OperatorError
from renderer.operator.graph_dcd import get_dcd_resource_name, get_dynamo_namespace
from renderer.operator.graph_env import is_worker_component
from renderer.operator.v1beta1_helpers import (
    get_component_by_name,
    get_pod_template_annotations,
    get_pod_template_labels,
    has_epp_component,
)
from renderer.sha256 import sha256_hex

JSON = dict[str, Any]

#: dgdConversionAnnotationPrefix + "spec" / "status" (api/v1alpha1 conversion).
DGD_SPEC_ANNOTATION = consts.DGD_SPEC_ANNOTATION
DGD_STATUS_ANNOTATION = consts.DGD_STATUS_ANNOTATION

# internal/checkpointjob constants the restore metadata helpers clear or write.
CHECKPOINT_SOURCE_LABEL = consts.CHECKPOINT_SOURCE_LABEL
CHECKPOINT_ID_LABEL = consts.CHECKPOINT_ID_LABEL
RESTORE_TARGET_LABEL = consts.RESTORE_TARGET_LABEL
CHECKPOINT_ARTIFACT_VERSION_ANNOTATION = consts.CHECKPOINT_ARTIFACT_VERSION_ANNOTATION
TARGET_CONTAINERS_ANNOTATION = consts.TARGET_CONTAINERS_ANNOTATION
RESTORE_STATUS_ANNOTATION = consts.RESTORE_STATUS_ANNOTATION
RESTORE_CONTAINER_ID_ANNOTATION = consts.RESTORE_CONTAINER_ID_ANNOTATION
RESTORE_STATUS_ANNOTATION_PREFIX = RESTORE_STATUS_ANNOTATION + "."
RESTORE_CONTAINER_ID_ANNOTATION_PREFIX = RESTORE_CONTAINER_ID_ANNOTATION + "."
CHECKPOINT_STORAGE_TYPE_ANNOTATION = consts.CHECKPOINT_STORAGE_TYPE_ANNOTATION
CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION = consts.CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION
STARTUP_POLICY_IMMEDIATE = "Immediate"
STARTUP_POLICY_WAIT = "WaitForCheckpoint"


class GroveError(OperatorError):
    """The operator refuses to generate the Grove GangSet (its message, without the
    controller's stage prefix). What this emulation does not reproduce is a
    NotReproducedError instead."""


def _str_map(value: object) -> dict[str, str]:
    return dict(value) if isinstance(value, dict) else {}


def metadata(obj: JSON) -> JSON:
    """``metadata`` of an object (empty dict when absent)."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def dgd_alpha_component_metadata(dgd: JSON, component_name: str) -> tuple[str, JSON, JSON] | None:
    """What getDGDAlphaComponent yields for the Grove path: (subComponentType, labels, annotations).

    None when the operator's hub-to-v1alpha1 conversion fails (then it reads nothing) or the
    component is missing. The hub type prefill/decode converts to a v1alpha1 worker with
    that subComponentType; otherwise the preserved payload's subComponentType, labels and
    annotations fill the empty v1alpha1 fields.
    """
    annotations = _str_map(metadata(dgd).get("annotations"))
    if DGD_STATUS_ANNOTATION in annotations:
        try:
            status = unmarshal(annotations[DGD_STATUS_ANNOTATION], DGD_STATUS_ANNOTATION)
        except NotReproducedError:
            raise
        except ValueError:
            return None
        if not isinstance(status, dict):
            return None

    component = get_component_by_name(dgd, component_name)
    if component is None:
        return None
    component_type = str(component.get("type") or "")
    sub_type = component_type if component_type in ("prefill", "decode") else ""
    preserved = _preserved_service(annotations.get(DGD_SPEC_ANNOTATION), component_name)
    labels: JSON = {}
    alpha_annotations: JSON = {}
    if preserved is not None:
        if not sub_type:
            sub_type = str(preserved.get("subComponentType") or "")
        labels = dict(preserved.get("labels") or {})
        alpha_annotations = dict(preserved.get("annotations") or {})
    return sub_type, labels, alpha_annotations


def _preserved_service(raw: str | None, component_name: str) -> JSON | None:
    """restoreDGDSpokeSpec(...).services[name]: the envelope's ``spec`` or a legacy bare spec.

    The payload is read as the DCD path reads it (dcd_alpha.restore_preserved_spec): one that
    json.Unmarshal cannot decode into the envelope and its v1alpha1 spec (unreadable JSON, a
    value of the wrong kind anywhere, a non-integer version) is ignored whole, as Go does.
    """
    if not raw:
        return None

    spec = restore_preserved_spec(raw, DGD_SPEC_ANNOTATION)
    service = ((spec or {}).get("services") or {}).get(component_name)
    return service if isinstance(service, dict) else None


def set_metrics_labels(labels: dict[str, str], dgd: JSON) -> None:
    """setMetricsLabels: metrics on unless the DGD annotation says exactly "false"."""
    annotations = _str_map(metadata(dgd).get("annotations"))
    if annotations.get(consts.KUBE_ANNOTATION_ENABLE_METRICS) == consts.KUBE_LABEL_VALUE_FALSE:
        return
    labels[consts.KUBE_LABEL_METRICS_ENABLED] = consts.KUBE_LABEL_VALUE_TRUE


def add_base_model_label(labels: dict[str, str], model_ref: JSON | None) -> None:
    """AddBaseModelLabel: the first 8 hex of SHA-256 of ``modelRef.name``."""
    if not isinstance(model_ref, dict) or not model_ref.get("name"):
        return
    digest = sha256_hex(str(model_ref["name"]).encode("utf-8"))
    labels[consts.KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = digest[:8]


def _system_labels(
    labels: dict[str, str],
    component: JSON,
    dgd: JSON,
    component_name: str,
    alpha: tuple[str, JSON, JSON] | None,
) -> None:
    labels[consts.KUBE_LABEL_DYNAMO_SELECTOR] = get_dcd_resource_name(dgd, component_name, "")
    labels[consts.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = str(metadata(dgd).get("name") or "")
    labels[consts.KUBE_LABEL_DYNAMO_COMPONENT] = component_name
    component_type = str(component.get("type") or "")
    if component_type:
        labels[consts.KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component_type
    if has_epp_component(dgd) and is_worker_component(component_type):
        labels[consts.KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = consts.COMPONENT_CLASS_WORKER
    if alpha is not None and alpha[0]:
        labels[consts.KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = alpha[0]
    labels[consts.KUBE_LABEL_DYNAMO_NAMESPACE] = get_dynamo_namespace(dgd, component)


def generate_labels(
    component: JSON, dynamo_deployment: JSON, component_name: str, discovery_backend: str
) -> dict[str, str]:
    """generateLabels; ``discovery_backend`` is DiscoveryContext.Backend."""
    alpha = dgd_alpha_component_metadata(dynamo_deployment, component_name)
    labels: dict[str, str] = {}
    _system_labels(labels, component, dynamo_deployment, component_name, alpha)
    add_base_model_label(labels, component.get("modelRef"))
    set_metrics_labels(labels, dynamo_deployment)
    # mergo.Merge(WithOverride) on string maps: every source key wins, empty values too.
    labels.update(_str_map((dynamo_deployment.get("spec") or {}).get("labels")))
    if alpha is not None:
        labels.update(alpha[1])
    pod_labels = get_pod_template_labels(component)
    if pod_labels:
        labels.update(pod_labels)
    _system_labels(labels, component, dynamo_deployment, component_name, alpha)
    worker_hash = (pod_labels or {}).get(consts.KUBE_LABEL_DYNAMO_WORKER_HASH)
    if worker_hash:
        labels[consts.KUBE_LABEL_DYNAMO_WORKER_HASH] = worker_hash
    if discovery_backend == consts.DISCOVERY_BACKEND_KUBERNETES:
        labels[consts.KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = consts.DISCOVERY_BACKEND_KUBERNETES
        labels[consts.KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = consts.KUBE_LABEL_VALUE_TRUE
    return labels


def generate_annotations(
    component: JSON, dynamo_deployment: JSON, component_name: str
) -> dict[str, str]:
    """generateAnnotations: DGD spec < v1alpha1 service < pod template."""
    annotations: dict[str, str] = {}
    annotations.update(_str_map((dynamo_deployment.get("spec") or {}).get("annotations")))
    alpha = dgd_alpha_component_metadata(dynamo_deployment, component_name)
    if alpha is not None:
        annotations.update(alpha[2])
    annotations.update(get_pod_template_annotations(component) or {})
    return annotations


def _clear_restore_status_keys(annotations: dict[str, str]) -> None:
    annotations.pop(RESTORE_STATUS_ANNOTATION, None)
    annotations.pop(RESTORE_CONTAINER_ID_ANNOTATION, None)
    for key in list(annotations):
        if key.startswith(
            (RESTORE_STATUS_ANNOTATION_PREFIX, RESTORE_CONTAINER_ID_ANNOTATION_PREFIX)
        ):
            del annotations[key]


def format_target_containers(names: list[str]) -> str:
    """FormatTargetContainers: trimmed, empty names dropped, comma-joined."""
    return ",".join(trim_space(n) for n in names if trim_space(n))


def apply_restore_pod_metadata_cleared(labels: dict[str, str], annotations: dict[str, str]) -> None:
    """ApplyRestorePodMetadataWithStorageConfig for a checkpoint that is not enabled+ready.

    Clears every restore/candidate key; the ready case (restore target stamping) is refused
    by the caller.
    """
    for key in (CHECKPOINT_SOURCE_LABEL, RESTORE_TARGET_LABEL, CHECKPOINT_ID_LABEL):
        labels.pop(key, None)
    annotations.pop(CHECKPOINT_ARTIFACT_VERSION_ANNOTATION, None)
    _clear_restore_status_keys(annotations)
    for key in (
        TARGET_CONTAINERS_ANNOTATION,
        CHECKPOINT_STORAGE_TYPE_ANNOTATION,
        CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION,
        consts.CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION,
        consts.CHECKPOINT_NAME_ANNOTATION,
        consts.CHECKPOINT_STARTUP_POLICY_ANNOTATION,
    ):
        annotations.pop(key, None)


def apply_restore_candidate_metadata(
    labels: dict[str, str], annotations: dict[str, str], checkpoint_info: JSON | None
) -> None:
    """ApplyRestoreCandidateMetadata: clear restore keys, then mark an existing checkpoint."""
    for key in (CHECKPOINT_ID_LABEL, RESTORE_TARGET_LABEL, CHECKPOINT_SOURCE_LABEL):
        labels.pop(key, None)
    for key in (
        CHECKPOINT_ARTIFACT_VERSION_ANNOTATION,
        CHECKPOINT_STORAGE_TYPE_ANNOTATION,
        CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION,
        consts.CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION,
        consts.CHECKPOINT_NAME_ANNOTATION,
        consts.CHECKPOINT_STARTUP_POLICY_ANNOTATION,
        TARGET_CONTAINERS_ANNOTATION,
    ):
        annotations.pop(key, None)
    info = checkpoint_info or {}
    if not (info.get("Enabled") and info.get("Exists") and info.get("CheckpointName")):
        return
    targets = list(info.get("RestoreTargetContainers") or []) or [consts.MAIN_CONTAINER_NAME]
    annotations[consts.CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION] = consts.KUBE_LABEL_VALUE_TRUE
    annotations[consts.CHECKPOINT_NAME_ANNOTATION] = str(info["CheckpointName"])
    annotations[consts.CHECKPOINT_STARTUP_POLICY_ANNOTATION] = str(
        info.get("StartupPolicy") or STARTUP_POLICY_IMMEDIATE
    )
    annotations[TARGET_CONTAINERS_ANNOTATION] = format_target_containers(targets)


def apply_restart_annotation(
    annotations: dict[str, str],
    component_name: str,
    restart_state: JSON | None,
    existing_restart_annotations: dict[str, str] | None,
) -> dict[str, str]:
    """applyRestartAnnotation; ``restart_state`` is {"Timestamp", "ComponentsToAnnotate"}."""
    state = restart_state or {}
    if (state.get("ComponentsToAnnotate") or {}).get(component_name):
        annotations[consts.RESTART_ANNOTATION] = str(state.get("Timestamp") or "")
    elif existing_restart_annotations and component_name in existing_restart_annotations:
        annotations[consts.RESTART_ANNOTATION] = existing_restart_annotations[component_name]
    return annotations
