"""Helpers of the DGD validating webhook (shared_helpers.go, dynamographdeployment_helpers.go).

Pure lookups over v1beta1 component dicts: the main container and its image, GMS/failover
modes, the Grove pathway decision, the combined Grove resource-name length, the GPU count the
webhook reads from the main container (dra.ExtractGPUCountFromResourceRequirements), the
power-limit annotation and the elastic-EP Ray launch detection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.goruntime.quantity import marshal_quantity
from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.strings import to_lower
from renderer.operator import consts
from renderer.operator.graph_grove_roles import (
    longest_pod_clique_name_for_dgd_component,
    pcs_name_for_dgd,
)
from renderer.operator.v1beta1_helpers import uses_pcsg

if TYPE_CHECKING:
    from fractions import Fraction

MAIN_CONTAINER_NAME = consts.MAIN_CONTAINER_NAME
GMS_INTRA_POD = "IntraPod"
GMS_INTER_POD = "InterPod"
MAX_COMBINED_RESOURCE_NAME_LENGTH = 45
ANNOTATION_WORKLOAD_PROVIDER = consts.KUBE_ANNOTATION_WORKLOAD_PROVIDER
ANNOTATION_ENABLE_GROVE = consts.KUBE_ANNOTATION_ENABLE_GROVE
ANNOTATION_GPU_POWER_LIMIT = consts.KUBE_ANNOTATION_GPU_POWER_LIMIT
UNSET_VALUE = "<unset>"


def experimental(component: dict[str, Any]) -> dict[str, Any] | None:
    """component.Experimental (None when nil)."""
    return component.get("experimental")


def gms_for(component: dict[str, Any]) -> dict[str, Any] | None:
    """gpuMemoryServiceFor."""
    return (component.get("experimental") or {}).get("gpuMemoryService")


def failover_for(component: dict[str, Any]) -> dict[str, Any] | None:
    """failoverFor."""
    return (component.get("experimental") or {}).get("failover")


def effective_gms_mode(mode: str | None) -> str:
    """effectiveGMSMode: empty is IntraPod."""
    return mode or GMS_INTRA_POD


def containers(component: dict[str, Any]) -> list[dict[str, Any]]:
    """podTemplateContainers."""
    template = component.get("podTemplate")
    if template is None:
        return []
    return list((template.get("spec") or {}).get("containers") or [])


def container_index(items: list[dict[str, Any]], name: str) -> int:
    """containerIndexByName: the first container of that name, -1 if none."""
    for i, container in enumerate(items):
        if (container.get("name") or "") == name:
            return i
    return -1


def has_container_named(items: list[dict[str, Any]], name: str) -> bool:
    """hasContainerNamed."""
    return container_index(items, name) >= 0


def grove_pathway(grove_enabled: bool, dgd: dict[str, Any]) -> tuple[bool, str]:
    """grovePathwayForDynamoGraphDeployment: (on the Grove pathway, why not)."""
    annotations = (dgd.get("metadata") or {}).get("annotations") or {}
    if ANNOTATION_WORKLOAD_PROVIDER in annotations:
        provider = annotations[ANNOTATION_WORKLOAD_PROVIDER]
        if provider == "grove":
            return True, ""
        if provider == "component":
            return False, (
                f'requires the Grove pathway, but workload provider "{provider}" is selected'
            )

        return False, (
            "requires the Grove pathway, but annotation "
            f'"{ANNOTATION_WORKLOAD_PROVIDER}" has unsupported value {go_quote(provider)}'
        )
    if not grove_enabled:
        return (
            False,
            "requires the Grove pathway, but Grove is disabled in the operator configuration",
        )
    value = str(annotations.get(ANNOTATION_ENABLE_GROVE, ""))
    if to_lower(value) == "false":
        return False, (
            f'requires the Grove pathway; remove or unset annotation "{ANNOTATION_ENABLE_GROVE}" '
            f"(currently {go_quote(value)})"
        )
    return True, ""


def _component_name(component: dict[str, Any]) -> str:
    return str(component.get("name") or "")


def component_resource_name_length(
    dgd_name: str,
    components: list[dict[str, Any]],
    component: dict[str, Any],
    pcs: str | None = None,
) -> tuple[int, str]:
    """dgdComponentResourceNameLength: (combined length, what it is made of). Go len = bytes.
    `pcs`: `pcs_name_for_dgd(dgd_name, components)` when the caller has it (it reads every
    component, so a loop over the components computes it once)."""
    if pcs is None:
        pcs = pcs_name_for_dgd(dgd_name, components)
    name = _component_name(component)
    length = len(pcs.encode()) + len(to_lower(name).encode())
    detail = "PCS name + component name"
    if uses_pcsg(component):
        longest = longest_pod_clique_name_for_dgd_component(name, component)
        length += len(longest.encode())

        detail = f"PCS name + PCSG name + longest PodClique name {go_quote(longest)}"
    return length, detail


def has_intra_pod_failover(spec: dict[str, Any]) -> bool:
    """hasIntraPodFailover."""
    for component in spec.get("components") or []:
        failover = failover_for(component)
        if failover is not None and effective_gms_mode(failover.get("mode")) == GMS_INTRA_POD:
            return True
    return False


# --- quantities --------------------------------------------------------------------------

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def quantity_value(value: Any) -> Fraction:
    """The exact number a resource.Quantity holds (``value`` as the DGD JSON has it)."""
    from fractions import Fraction  # noqa: PLC0415 - fractions only for a DGD whose validation compares quantities

    text = marshal_quantity(value)
    i = 0
    while i < len(text) and (text[i] in "+-." or text[i].isdigit()):
        i += 1
    number, suffix = text[:i], text[i:]
    base = Fraction(number)
    if suffix in _BINARY:
        return base * Fraction(2) ** _BINARY[suffix]
    if suffix in _DECIMAL:
        return base * Fraction(10) ** _DECIMAL[suffix]
    return base * Fraction(10) ** int(suffix[1:])  # e/E exponent


def quantity_string(value: Any) -> str:
    """Quantity.String(): the canonical text."""
    return marshal_quantity(value)


# --- power limit, DRA, elastic EP ------------------------------------------------------


def power_limit(component: dict[str, Any]) -> tuple[str, bool]:
    """dgdPowerLimit: the podTemplate annotation value and whether it is present."""
    template = component.get("podTemplate")
    if template is None:
        return "", False
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    if ANNOTATION_GPU_POWER_LIMIT not in annotations:
        return "", False
    return str(annotations[ANNOTATION_GPU_POWER_LIMIT]), True
