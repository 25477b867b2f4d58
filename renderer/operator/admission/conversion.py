"""api/v1alpha1/dynamographdeployment_conversion.go + preservation.go: DGD v1alpha1 -> v1beta1.

``convert_to`` is ``(*v1alpha1.DynamoGraphDeployment).ConvertTo`` of the hub, on sparse
values (see goruntime.encoding_json) as json.Unmarshal leaves them. The services map becomes the
components list sorted by name (each component named by its map key); what v1beta1 cannot
hold (pvcs, dynamoNamespace, autoscaling, ingress, subComponentType, flat resources and
env origins, ...) goes into the ``nvidia.com/dgd-spec`` annotation as the versioned
envelope of preservation.go, in Go's bytes.

The status converts too (services -> components, the component names the hub cannot
hold go to the ``nvidia.com/dgd-status`` annotation).

A v1alpha1 object the operator wrote from a v1beta1 one carries the hub-only remainder
in ``nvidia.com/dgd-spec``; it is restored (conversion_restore) as ConvertTo does. Refused
(NotReproducedError naming the field): a preserved envelope with raw-JSON records (EPP
plugin parameters).
"""

from __future__ import annotations

from typing import Any

from renderer.gojson import TooDeepError, loads
from renderer.goruntime.encoding_json import DecodeError, decode, dumps, encode
from renderer.goruntime.equality import is_semantic_zero
from renderer.goruntime.typetable import ALPHA, BETA, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission.conversion_spec import (
    convert_from_dynamo_component_deployment_shared_spec,
    convert_from_provider_override,
)
from renderer.operator.admission.errors import NotReproducedError

DGD_CONVERSION_ANNOTATION_PREFIX = consts.DGD_CONVERSION_ANNOTATION_PREFIX
ANN_DGD_SPEC = DGD_CONVERSION_ANNOTATION_PREFIX + "spec"
ANN_DGD_STATUS = DGD_CONVERSION_ANNOTATION_PREFIX + "status"

_ALPHA_SPEC = struct_type(ALPHA + "DynamoGraphDeploymentSpec")
_ALPHA_SHARED = struct_type(ALPHA + "DynamoComponentDeploymentSharedSpec")
_ALPHA_STATUS = struct_type(ALPHA + "DynamoGraphDeploymentStatus")
_HUB_SPEC = struct_type(BETA + "DynamoGraphDeploymentSpec")
_HUB_API_VERSION = consts.API_VERSION_V1BETA1


def is_dynamo_graph_deployment_conversion_annotation(key: str) -> bool:
    """IsDynamoGraphDeploymentConversionAnnotation."""
    return key.startswith(DGD_CONVERSION_ANNOTATION_PREFIX)


def convert_to(src: dict[str, Any]) -> dict[str, Any]:
    """ConvertTo: a sparse v1alpha1 DGD -> the sparse v1beta1 hub DGD."""
    dst: dict[str, Any] = {"apiVersion": _HUB_API_VERSION}
    if "kind" in src:
        dst["kind"] = src["kind"]
    meta = deep_copy(src.get("metadata") or {})
    annotations = meta.get("annotations") or {}
    restored = restore_dgd_hub_spec(annotations.get(ANN_DGD_SPEC))
    _scrub_dgd_internal_annotations(meta)
    if meta:
        dst["metadata"] = meta
    save: dict[str, Any] = {}
    spec = convert_from_dynamo_graph_deployment_spec(src.get("spec") or {}, save, restored)
    if spec:
        dst["spec"] = spec
    status_save = save_dgd_alpha_only_status(src.get("status"))
    status = convert_from_dynamo_graph_deployment_status(src.get("status"))
    if status:
        dst["status"] = status
    if not is_semantic_zero(save, _ALPHA_SPEC):
        dst.setdefault("metadata", {}).setdefault("annotations", {})[ANN_DGD_SPEC] = (
            marshal_dgd_spoke_spec(save)
        )
    if not is_semantic_zero(status_save, _ALPHA_STATUS):
        dst.setdefault("metadata", {}).setdefault("annotations", {})[ANN_DGD_STATUS] = dumps(
            encode(status_save, _ALPHA_STATUS)
        )
    return dst


def restore_dgd_hub_spec(raw: str | None) -> dict[str, Any] | None:
    """restoreDGDHubSpec: the preserved sparse hub spec, or None where Go's restore fails.

    The value is the envelope of preservation.go (``{"version", "spec", "rawJSON"}``) or,
    without a ``spec`` key, a bare spec. Anything Go cannot unmarshal (not JSON, not an
    object, a wrongly typed field) restores nothing; the annotation is scrubbed either way.
    """
    if not raw:
        return None
    try:
        value = load_preserved_spec(raw)
    except NotReproducedError:
        raise
    except ValueError:
        return None
    if value is not None and not isinstance(value, dict):
        return None
    target: Any = value
    if isinstance(value, dict) and "spec" in value:
        version = value.get("version")
        if version is not None and (
            isinstance(version, bool)
            or not isinstance(version, int | float)
            or (isinstance(version, float) and not version.is_integer())
        ):
            return None
        records = value.get("rawJSON")
        if records is not None and not isinstance(records, list):
            return None
        if records:
            raise NotReproducedError(
                "restoring preserved raw JSON (EPP plugin parameters) is not reproduced",
                ("metadata", "annotations", ANN_DGD_SPEC),
            )
        target = value["spec"]
    try:
        spec: dict[str, Any] = decode(target, _HUB_SPEC) or {}
    except DecodeError:
        return None  # Go's json.Unmarshal fails: nothing restored
    return spec


def load_preserved_spec(raw: str) -> Any:
    """The `nvidia.com/dgd-spec` payload as JSON: ValueError where Go fails to decode it;
    NotReproducedError where it nests deeper than this emulation reads (Go reads it)."""
    try:
        return loads(raw)
    except TooDeepError:
        raise NotReproducedError(
            "a preserved spec nested deeper than this emulation reads (Go reads it)",
            ("metadata", "annotations", ANN_DGD_SPEC),
        ) from None


def _scrub_dgd_internal_annotations(meta: dict[str, Any]) -> None:
    annotations = meta.get("annotations")
    if annotations is None:
        return
    for key in (ANN_DGD_SPEC, ANN_DGD_STATUS):
        annotations.pop(key, None)
    if not annotations:
        meta.pop("annotations")


def convert_from_dynamo_graph_deployment_spec(
    src: dict[str, Any], save: dict[str, Any], restored: dict[str, Any] | None = None
) -> dict[str, Any]:
    """ConvertFromDynamoGraphDeploymentSpec; ``restored`` is the preserved hub spec."""
    dst: dict[str, Any] = {}
    for alpha, beta in (
        ("annotations", "annotations"),
        ("labels", "labels"),
        ("priorityClassName", "priorityClassName"),
        ("backendFramework", "backendFramework"),
        ("envs", "env"),
    ):
        if alpha in src:
            dst[beta] = deep_copy(src[alpha])
    if "providerOverride" in src:
        dst["providerOverride"] = convert_from_provider_override(src["providerOverride"])
    if "restart" in src:
        dst["restart"] = _convert_from_restart(src["restart"])
    if "topologyConstraint" in src:
        tc = src["topologyConstraint"]
        out: dict[str, Any] = {}
        if "topologyProfile" in tc:
            out["clusterTopologyName"] = tc["topologyProfile"]
        if "packDomain" in tc:
            out["packDomain"] = tc["packDomain"]
        dst["topologyConstraint"] = out
    if "experimental" in src:
        exp: dict[str, Any] = {}
        if "kvTransferPolicy" in src["experimental"]:
            # The same five fields in both versions.
            exp["kvTransferPolicy"] = deep_copy(src["experimental"]["kvTransferPolicy"])
        dst["experimental"] = exp
    if src.get("pvcs"):
        save["pvcs"] = deep_copy(src["pvcs"])
    restored_components: dict[str, Any] = {}
    for comp in (restored or {}).get("components") or []:
        restored_components[comp.get("name", "")] = comp  # the last of a name wins
    services: dict[str, Any] = src.get("services") or {}
    if services:
        components = []
        for name in _service_names_in_emission_order(services, restored):
            comp_src = services[name]
            if comp_src is None:
                save.setdefault("services", {})[name] = None
                continue
            comp_save: dict[str, Any] = {}
            restored_shared = restored_components.get(name)
            comp = convert_from_dynamo_component_deployment_shared_spec(
                comp_src,
                comp_save,
                restored is None,
                ("spec", "services", name),
                restored=restored_shared,
                pod_template_origin=restored_shared is not None
                and "podTemplate" in restored_shared,
            )
            comp["name"] = name
            if comp_src.get("serviceName") and comp_src["serviceName"] != name:
                comp_save["serviceName"] = comp_src["serviceName"]
            if not is_semantic_zero(comp_save, _ALPHA_SHARED):
                save.setdefault("services", {})[name] = comp_save
            components.append(comp)
        dst["components"] = components
    return dst


def _go_sorted(names: Any) -> list[str]:
    return sorted(names, key=lambda k: k.encode("utf-8", "surrogatepass"))


def _service_names_in_emission_order(
    services: dict[str, Any], restored: dict[str, Any] | None
) -> list[str]:
    """dgdServiceNamesInEmissionOrder: sorted, unless the preserved list was not sorted."""
    order = [c.get("name", "") for c in (restored or {}).get("components") or []]
    if not any(order[i - 1] > order[i] for i in range(1, len(order))):
        return _go_sorted(services)
    out: list[str] = []
    remaining = set(services)
    for name in order:
        if name in remaining:
            remaining.discard(name)
            out.append(name)
    return out + _go_sorted(remaining)


def _convert_from_restart(src: dict[str, Any]) -> dict[str, Any]:
    dst: dict[str, Any] = {}
    if "id" in src:
        dst["id"] = src["id"]
    if "strategy" in src:
        dst["strategy"] = deep_copy(src["strategy"])  # type and order, unchanged
    return dst


def convert_from_dynamo_graph_deployment_status(src: dict[str, Any] | None) -> dict[str, Any]:
    """ConvertFromDynamoGraphDeploymentStatus: the v1alpha1 status as the hub's."""
    src = src or {}
    dst: dict[str, Any] = {}
    for key in ("observedGeneration", "state"):
        if key in src:
            dst[key] = src[key]
    if "placement" in src:
        dst["placement"] = {
            k: src["placement"][k] for k in ("state", "score") if k in src["placement"]
        }
    if src.get("conditions"):
        dst["conditions"] = deep_copy(src["conditions"])
    if src.get("services"):
        dst["components"] = {
            name: _convert_from_service_replica_status(svc) for name, svc in src["services"].items()
        }
    if "restart" in src:
        dst["restart"] = deep_copy(src["restart"])  # observedID, phase, inProgress
    if src.get("checkpoints"):
        dst["checkpoints"] = deep_copy(src["checkpoints"])  # the same four fields
    if "rollingUpdate" in src:
        ru = deep_copy(src["rollingUpdate"])
        if "updatedServices" in ru:
            ru["updatedComponents"] = ru.pop("updatedServices")
        dst["rollingUpdate"] = ru
    return dst


def _component_names_to_hub(svc: dict[str, Any]) -> list[str] | None:
    names = deep_copy(svc.get("componentNames"))
    if not names and svc.get("componentName"):
        names = [svc["componentName"]]
    return names


def _convert_from_service_replica_status(svc: dict[str, Any]) -> dict[str, Any]:
    dst: dict[str, Any] = {}
    for key in (
        "componentKind",
        "runtimeNamespace",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "scheduledReplicas",
    ):
        if key in svc:
            dst[key] = svc[key]
    names = _component_names_to_hub(svc)
    if names is not None:
        dst["componentNames"] = names
    return dst


def _component_name_needs_preservation(svc: dict[str, Any]) -> bool:
    names = svc.get("componentNames") or []
    if not names:
        return bool(svc.get("componentName"))
    return bool(names[-1] != svc.get("componentName", ""))


def save_dgd_alpha_only_status(src: dict[str, Any] | None) -> dict[str, Any]:
    """saveDGDAlphaOnlyStatus: the service component names the hub status cannot hold."""
    save: dict[str, Any] = {}
    for name, svc in ((src or {}).get("services") or {}).items():
        if not _component_name_needs_preservation(svc):
            continue
        entry: dict[str, Any] = {}
        if svc.get("componentName"):
            entry["componentName"] = svc["componentName"]
        if svc.get("componentNames") is not None:
            entry["componentNames"] = deep_copy(svc["componentNames"])
        save.setdefault("services", {})[name] = entry
    return save


def marshal_dgd_spoke_spec(save: dict[str, Any]) -> str:
    """marshalDGDSpokeSpec: Go's bytes of ``{"version":1,"spec":<save>}``.

    The rawJSON records of preservation.go are only written for EPP plugin parameters,
    which the sparse save never holds (eppConfig converts to the hub as it is).
    """
    return '{"version":1,"spec":' + dumps(encode(save, _ALPHA_SPEC)) + "}"
