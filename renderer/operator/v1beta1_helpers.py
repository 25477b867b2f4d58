"""The accessors of internal/dynamo/v1beta1_helpers.go the pod-spec path uses.

A component is a v1beta1 DynamoComponentDeploymentSharedSpec JSON dict; the ``ensure_*``
helpers create what is missing in place, as the Go ones do through pointers.
"""

from __future__ import annotations

from typing import Any

from renderer.operator import consts

JSON = dict[str, Any]


def get_pod_template_annotations(component: JSON | None) -> dict[str, str] | None:
    """GetPodTemplateAnnotations (None when there is no pod template)."""
    if component is None or component.get("podTemplate") is None:
        return None
    annotations: dict[str, str] | None = (component["podTemplate"].get("metadata") or {}).get(
        "annotations"
    )
    return annotations


def get_pod_template_labels(component: JSON | None) -> dict[str, str] | None:
    """GetPodTemplateLabels (None when there is no pod template)."""
    if component is None or component.get("podTemplate") is None:
        return None
    labels: dict[str, str] | None = (component["podTemplate"].get("metadata") or {}).get("labels")
    return labels


def ensure_pod_template(component: JSON) -> JSON:
    """ensurePodTemplate: a pod template with non-nil labels and annotations maps."""
    pod_template = component.get("podTemplate")
    if pod_template is None:
        pod_template = component["podTemplate"] = {}
    metadata = pod_template.setdefault("metadata", {})
    if metadata.get("labels") is None:
        metadata["labels"] = {}
    if metadata.get("annotations") is None:
        metadata["annotations"] = {}
    return pod_template


def ensure_main_container(pod_template: JSON) -> JSON:
    """ensureMainContainer: the container named main, prepended when missing."""
    spec = pod_template.setdefault("spec", {})
    containers = spec.get("containers") or []
    for container in containers:
        if container.get("name", "") == consts.MAIN_CONTAINER_NAME:
            return container  # type: ignore[no-any-return]
    main: JSON = {"name": consts.MAIN_CONTAINER_NAME}
    spec["containers"] = [main, *containers]
    return main


def get_main_container(component: JSON | None) -> JSON | None:
    """GetMainContainer: the pod template's container named main, if any."""
    if component is None or component.get("podTemplate") is None:
        return None
    for container in (component["podTemplate"].get("spec") or {}).get("containers") or []:
        if container.get("name", "") == consts.MAIN_CONTAINER_NAME:
            return container  # type: ignore[no-any-return]
    return None


def get_main_container_resources(component: JSON | None) -> JSON:
    """GetMainContainerResources ({} when there is no main container)."""
    main = get_main_container(component)
    return (main.get("resources") or {}) if main is not None else {}


def get_gpu_memory_service(component: JSON | None) -> JSON | None:
    """GetGPUMemoryService: ``experimental.gpuMemoryService``."""
    if component is None or component.get("experimental") is None:
        return None
    gms: JSON | None = component["experimental"].get("gpuMemoryService")
    return gms


def is_inter_pod_gms_enabled(component: JSON) -> bool:
    """IsInterPodGMSEnabled: gpuMemoryService.mode == InterPod."""
    gms = get_gpu_memory_service(component)
    return gms is not None and gms.get("mode", "") == "InterPod"


def get_number_of_nodes(component: JSON) -> int:
    """GetNumberOfNodes: multinode.nodeCount (a JSON null decodes to Go's zero), else 1."""
    multinode = component.get("multinode")
    if multinode is not None:
        return int(multinode.get("nodeCount") or 0)
    return 1


def is_multinode(component: JSON) -> bool:
    """IsMultinode."""
    return get_number_of_nodes(component) > 1


def is_grove_scaling_group_forced(component: JSON) -> bool:
    """IsGroveScalingGroupForced: ``experimental.grove.forceScalingGroup``."""
    grove = (component.get("experimental") or {}).get("grove")
    return grove is not None and bool(grove.get("forceScalingGroup"))


def uses_pcsg(component: JSON) -> bool:
    """UsesPCSG: multinode, inter-pod GMS or a forced scaling group."""
    return (
        get_number_of_nodes(component) > 1
        or is_inter_pod_gms_enabled(component)
        or is_grove_scaling_group_forced(component)
    )


def compute_dynamo_namespace(
    global_dynamo_namespace: bool, k8s_namespace: str, dgd_name: str
) -> str:
    """v1beta1.ComputeDynamoNamespace: ``dynamo`` or ``<namespace>-<name with . -> ->``."""
    if global_dynamo_namespace:
        return consts.GLOBAL_DYNAMO_NAMESPACE
    return f"{k8s_namespace}-{dgd_name.replace('.', '-')}"


def merge_low_priority_metadata(
    dst: dict[str, str] | None, src: dict[str, str] | None
) -> dict[str, str] | None:
    """mergeLowPriorityMetadata: add src keys dst lacks (dst created when needed)."""
    if not src:
        return dst
    if dst is None:
        dst = {}
    for key, value in src.items():
        dst.setdefault(key, value)
    return dst


# (components list, its length when indexed, first component by name, types present)
_INDEX: tuple[list[JSON], int, dict[str, JSON], frozenset[str]] | None = None


def _component_index(dgd: JSON) -> tuple[dict[str, JSON], frozenset[str]]:
    """The DGD's first component of each name, and its component types. The operator looks
    a component up by scanning the list, once per component: fine in Go, but a DGD of
    thousands of components made the emulation quadratic. Built once per components list
    (the last one asked for; its length is checked, as components are only ever added)."""
    global _INDEX  # noqa: PLW0603 - a one-entry cache of the list being rendered
    components = (dgd.get("spec") or {}).get("components") or []
    cached = _INDEX
    if cached is not None and cached[0] is components and cached[1] == len(components):
        return cached[2], cached[3]
    by_name: dict[str, JSON] = {}
    for component in components:
        by_name.setdefault(component.get("name", ""), component)
    types = frozenset(str(component.get("type") or "") for component in components)
    _INDEX = (components, len(components), by_name, types)
    return by_name, types


def get_component_by_name(dgd: JSON, name: str) -> JSON | None:
    """The first component named `name` (None: none is)."""
    found = _component_index(dgd)[0].get(name)
    if found is not None and found.get("name", "") != name:  # renamed since: look again
        return next((c for c in dgd["spec"]["components"] if c.get("name", "") == name), None)
    return found


def has_epp_component(dgd: JSON) -> bool:
    """HasEPPComponent (a DynamoGraphDeployment method)."""
    return has_component_type(dgd, consts.COMPONENT_TYPE_EPP)


def has_component_type(dgd: JSON, component_type: str) -> bool:
    """Whether some component of the DGD has this type (HasEPPComponent and the like)."""
    return component_type in _component_index(dgd)[1]
