"""internal/dynamo/hash.go: ComputeDGDWorkersSpecHash, the v2 worker hash.

The operator renders every component's DCD through the same generator reconciliation uses,
with the fixed placeholder ``worker-hash-placeholder`` as the worker hash, keeps the worker
DCDs (worker, prefill, decode), and digests ``json.Marshal`` of
``{componentName: {labels, annotations, runtimeVersion, spec}}``: the workload labels and
annotations (``GetDCDKubeLabels`` / ``GetDCDKubeAnnotations``, v1beta1_helpers.go), the
resolved runtime version from 1.5.0 on, and the DCD spec without the fields that only patch
the active generation (replicas, minAvailable, scalingAdapter, runtimeVersionOverride).
SHA-256, first 8 hex characters.
"""

from __future__ import annotations

import json
from typing import Any

from renderer.gojson import encode_string, marshal_any
from renderer.goruntime.encoding_json import marshal
from renderer.goruntime.typetable import struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts as c
from renderer.operator.admission.runtimeversion import VersionError, resolve
from renderer.operator.dcd_alpha import ANN_DCD_SPEC, restore_preserved_spec
from renderer.operator.errors import OperatorError
from renderer.operator.graph_dcd import (
    RollingUpdateContext,
    compute_dynamo_namespace,
    generate_dynamo_components_deployments,
    get_main_container,
    get_pod_template_annotations,
    get_pod_template_labels,
    is_worker_component,
)
from renderer.sha256 import sha256_hex

JSON = dict[str, Any]
DGD_WORKER_HASH_PLACEHOLDER = "worker-hash-placeholder"
DCD_SPEC_TYPE = (
    "github.com/ai-dynamo/dynamo/deploy/operator/api/v1beta1.DynamoComponentDeploymentSpec"
)
MINIMUM_HASHED_RUNTIME_VERSION = (1, 5, 0)
_U64 = 2**64


class WorkerHashError(OperatorError):
    """ComputeDGDWorkersSpecHash returned an error (the operator's message)."""


def resolve_runtime_version(image: str, override: str) -> tuple[int, int, int] | None:
    """runtimeversion.Resolve with its error as None (the hash then leaves the version out)."""
    try:
        return resolve(image, override)
    except VersionError:
        return None


def resolved_runtime_version_for_hash(component: JSON | None) -> str:
    """resolvedRuntimeVersionForHash: "X.Y.Z" from 1.5.0 on, "" below or unresolvable."""
    if component is None:
        return ""

    main = get_main_container(component)
    image = (main or {}).get("image", "")
    version = resolve_runtime_version(image, component.get("runtimeVersionOverride") or "")
    if version is None or version < MINIMUM_HASHED_RUNTIME_VERSION:
        return ""
    return "{}.{}.{}".format(*version)


def hash_model_name(name: str) -> str:
    """HashModelName: the first 8 hex characters of SHA-256 of the model name."""
    return sha256_hex(name.encode("utf-8", "surrogatepass"))[:8]


def _dcd_alpha_spec(dcd: JSON) -> JSON:
    """The v1alpha1 alpha-only fields ConvertFrom restores from the DCD's dcd-spec record."""
    raw = ((dcd.get("metadata") or {}).get("annotations") or {}).get(ANN_DCD_SPEC)
    spec = restore_preserved_spec(raw) if raw else None
    return spec or {}


def get_dcd_component_name(dcd: JSON) -> str:
    """GetDCDComponentName: spec.name, else the component label, else the object name."""
    spec = dcd.get("spec") or {}
    if spec.get("name"):
        return str(spec["name"])
    labels = (dcd.get("metadata") or {}).get("labels") or {}
    if labels.get(c.KUBE_LABEL_DYNAMO_COMPONENT):
        return str(labels[c.KUBE_LABEL_DYNAMO_COMPONENT])
    alpha = _dcd_alpha_spec(dcd)
    if alpha.get("serviceName"):
        return str(alpha["serviceName"])
    return str((dcd.get("metadata") or {}).get("name", ""))


def get_dcd_sub_component_type(dcd: JSON) -> str:
    """GetDCDSubComponentType: prefill/decode from the hub type, else the preserved value."""
    ctype = (dcd.get("spec") or {}).get("type", "")
    if ctype in (c.COMPONENT_TYPE_PREFILL, c.COMPONENT_TYPE_DECODE):
        return str(ctype)
    return str(_dcd_alpha_spec(dcd).get("subComponentType", ""))


def get_dcd_dynamo_namespace(dcd: JSON) -> str:
    """GetDCDDynamoNamespace: preserved alpha value, else the label, else computed."""
    alpha = _dcd_alpha_spec(dcd)
    if alpha.get("dynamoNamespace") is not None:
        return str(alpha["dynamoNamespace"])
    meta = dcd.get("metadata") or {}
    labels = meta.get("labels") or {}
    if labels.get(c.KUBE_LABEL_DYNAMO_NAMESPACE):
        return str(labels[c.KUBE_LABEL_DYNAMO_NAMESPACE])
    # A generated DCD has no owner reference yet: the parent name is the DGD label.
    parent = labels.get(c.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) or meta.get("name", "")
    spec = dcd.get("spec") or {}
    return compute_dynamo_namespace(
        bool(spec.get("globalDynamoNamespace")), meta.get("namespace", ""), parent
    )


def get_dcd_kube_labels(dcd: JSON) -> dict[str, str]:
    """GetDCDKubeLabels: the labels rendered onto a DCD's Kubernetes workloads."""
    object_labels: dict[str, str] = (dcd.get("metadata") or {}).get("labels") or {}
    spec = dcd.get("spec") or {}
    labels: dict[str, str] = dict(object_labels)
    labels.update(_dcd_alpha_spec(dcd).get("labels") or {})
    labels.update(get_pod_template_labels(spec) or {})
    model = (spec.get("modelRef") or {}).get("name", "")
    if model:
        labels[c.KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = hash_model_name(model)
    sub = get_dcd_sub_component_type(dcd)
    if sub:
        labels[c.KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub
    name = get_dcd_component_name(dcd)
    if name:
        labels[c.KUBE_LABEL_DYNAMO_COMPONENT] = name
    namespace = get_dcd_dynamo_namespace(dcd)
    if namespace:
        labels[c.KUBE_LABEL_DYNAMO_NAMESPACE] = namespace
    for key in (
        c.KUBE_LABEL_DYNAMO_COMPONENT,
        c.KUBE_LABEL_DYNAMO_NAMESPACE,
        c.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
        c.KUBE_LABEL_DYNAMO_WORKER_HASH,
        c.KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    ):
        if object_labels.get(key):
            labels[key] = object_labels[key]
    return labels


def get_dcd_kube_annotations(dcd: JSON) -> dict[str, str]:
    """GetDCDKubeAnnotations: the annotations rendered onto a DCD's workloads."""
    spec = dcd.get("spec") or {}
    annotations: dict[str, str] = dict(_dcd_alpha_spec(dcd).get("annotations") or {})
    annotations.update(get_pod_template_annotations(spec) or {})
    model = (spec.get("modelRef") or {}).get("name", "")
    if model:
        annotations[c.KUBE_ANNOTATION_DYNAMO_BASE_MODEL] = model
    annotations.pop(c.KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION, None)
    topology = c.kube_topology_source_annotation_keys()
    for key in topology:
        annotations.pop(key, None)
    own = (dcd.get("metadata") or {}).get("annotations") or {}
    for key in (*topology, c.KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME):
        if own.get(key):
            annotations[key] = own[key]
    return annotations


def worker_hash_spec(dcd: JSON) -> JSON:
    """workerHashSpec: the DCD spec without replica, availability and autoscaling fields."""
    spec = deep_copy(dcd.get("spec") or {})
    for key in ("replicas", "minAvailable", "scalingAdapter", "runtimeVersionOverride"):
        spec.pop(key, None)
    return spec


def worker_hash_document(dcds: dict[str, JSON]) -> str:
    """The exact bytes ComputeDGDWorkersSpecHash digests, from placeholder-hashed DCDs."""

    entries: dict[str, str] = {}
    for dcd in dcds.values():
        spec = dcd.get("spec") or {}
        if not is_worker_component(spec.get("type", "")):
            continue
        name = get_dcd_component_name(dcd)
        if not name:
            raise WorkerHashError(
                f"generated worker DCD {json.dumps(dcd['metadata'].get('name', ''))}"
                " has no component name label"
            )
        if name in entries:
            raise WorkerHashError(
                f"duplicate generated worker DCD component name {json.dumps(name)}"
            )
        parts = []
        labels = get_dcd_kube_labels(dcd)
        if labels:
            parts.append('"labels":' + _string_map(labels))
        annotations = get_dcd_kube_annotations(dcd)
        if annotations:
            parts.append('"annotations":' + _string_map(annotations))
        version = resolved_runtime_version_for_hash(spec)
        if version:
            parts.append('"runtimeVersion":' + encode_string(version))
        parts.append('"spec":' + marshal(worker_hash_spec(dcd), struct_type(DCD_SPEC_TYPE)))
        entries[name] = "{" + ",".join(parts) + "}"
    keys = sorted(entries, key=lambda k: k.encode("utf-8", "surrogatepass"))
    return "{" + ",".join(encode_string(k) + ":" + entries[k] for k in keys) + "}"


def _string_map(value: dict[str, str]) -> str:

    return marshal_any(value)


def compute_dgd_workers_spec_hash(dgd: JSON | None) -> str:
    """ComputeDGDWorkersSpecHash: the 8-hex v2 worker hash of an admitted v1beta1 DGD."""
    if dgd is None:
        raise WorkerHashError("nil DynamoGraphDeployment")
    dcds = generate_dynamo_components_deployments(
        dgd, None, None, RollingUpdateContext(new_worker_hash=DGD_WORKER_HASH_PLACEHOLDER)
    )
    document = worker_hash_document(dcds)
    return sha256_hex(document.encode("utf-8", "surrogatepass"))[:8]
