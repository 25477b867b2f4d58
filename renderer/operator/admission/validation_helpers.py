"""Helpers of the DGD validating webhook (shared_helpers.go, dynamographdeployment_helpers.go).

Pure lookups over v1beta1 component dicts: the main container and its image, GMS/failover
modes, the Grove pathway decision, the combined Grove resource-name length, the GPU count the
webhook reads from the main container (dra.ExtractGPUCountFromResourceRequirements), the
power-limit annotation and the elastic-EP Ray launch detection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.goruntime.strings import to_lower
from renderer.operator.admission import provideroverride as po

if TYPE_CHECKING:
    from fractions import Fraction

MAIN_CONTAINER_NAME = "main"
GMS_INTRA_POD = "IntraPod"
GMS_INTER_POD = "InterPod"
MAX_COMBINED_RESOURCE_NAME_LENGTH = 45
ANNOTATION_WORKLOAD_PROVIDER = "nvidia.com/workload-provider"
ANNOTATION_ENABLE_GROVE = "nvidia.com/enable-grove"
ANNOTATION_GPU_POWER_LIMIT = "dynamo.nvidia.com/gpu-power-limit"
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


def main_container_resources(component: dict[str, Any]) -> dict[str, Any]:
    """dynamo.GetMainContainerResources (empty when no main container)."""
    items = containers(component)
    i = container_index(items, MAIN_CONTAINER_NAME)
    if i < 0:
        return {}
    return dict(items[i].get("resources") or {})


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
        from renderer.operator.admission.fielderrors import go_quote

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
        from renderer.operator.admission.fielderrors import go_quote

        return False, (
            f'requires the Grove pathway; remove or unset annotation "{ANNOTATION_ENABLE_GROVE}" '
            f"(currently {go_quote(value)})"
        )
    return True, ""


def _component_name(component: dict[str, Any]) -> str:
    return str(component.get("name") or "")


def _role_names(name: str, component: dict[str, Any]) -> list[str]:
    """The role names expandRolesForComponent gives a component that uses a scaling group."""
    nodes = po.get_number_of_nodes(component)
    inter_pod = po.is_inter_pod_gms_enabled(component)
    if nodes > 1 and inter_pod:
        names: list[str] = []
        for rank in range(nodes):
            names.append(f"{name}-gms-{rank}")
            names.append(f"{name}-ldr" if rank == 0 else f"{name}-wkr-{rank}")
        return names
    if nodes > 1:
        return [f"{name}-ldr", f"{name}-wkr"]
    if inter_pod:
        return [f"{name}-gms-0", name]
    return [name]


def longest_pod_clique_name(name: str, component: dict[str, Any]) -> str:
    """dynamo.LongestPodCliqueNameForDGDComponent."""
    lower = to_lower(name)
    if not po.uses_pcsg(component):
        return lower
    longest = lower
    for role in _role_names(name, component):
        if len(to_lower(role)) > len(longest):
            longest = to_lower(role)
    return longest


def pcs_name_for_dgd(dgd_name: str, components: list[dict[str, Any]]) -> str:
    """dynamo.PCSNameForDGD: the DGD name, or a truncation with a 4-hex FNV-1a suffix."""
    budget_max = 0
    for component in components:
        name = _component_name(component)
        lower = to_lower(name)
        budget = len(lower)
        if po.uses_pcsg(component):
            budget += len(longest_pod_clique_name(name, component))
        budget_max = max(budget_max, budget)
    pcs_budget = max(MAX_COMBINED_RESOURCE_NAME_LENGTH - budget_max, 8)
    if len(dgd_name.encode()) <= pcs_budget:
        return dgd_name
    digest = _fnv32a(dgd_name.encode())
    return dgd_name.encode()[: pcs_budget - 5].decode(errors="replace") + f"-{digest & 0xFFFF:04x}"


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


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
    if po.uses_pcsg(component):
        longest = longest_pod_clique_name(name, component)
        length += len(longest.encode())
        from renderer.operator.admission.fielderrors import go_quote

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
    from fractions import Fraction  # only a DGD whose validation compares quantities

    from renderer.binding.quantity import marshal_quantity

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
    from renderer.binding.quantity import marshal_quantity

    return marshal_quantity(value)


def _is_gpu_resource_name(name: str) -> bool:
    lower = to_lower(name)
    return (
        lower in ("nvidia.com/gpu", "gpu")
        or lower.endswith("/gpu")
        or "/mig-" in lower
        or lower.startswith("gpu.")
    )


class GPUCountError(ValueError):
    """dra's error for a GPU quantity that is not a whole number."""


def gpu_count(resources: dict[str, Any]) -> int:
    """dra.ExtractGPUCountFromResourceRequirements: limits first, then requests."""
    import math

    for kind in ("limits", "requests"):
        resource_list = resources.get(kind) or {}
        names = sorted(n for n in resource_list if _is_gpu_resource_name(n))
        if not names:
            continue
        name = names[0]
        exact = quantity_value(resource_list[name])
        # Quantity.Value rounds up; CmpInt64 then tells a whole number from a fraction.
        rounded = math.ceil(exact)
        if exact != rounded:
            raise GPUCountError(
                f'GPU resource "{name}" quantity "{quantity_string(resource_list[name])}" '
                "must be a whole number"
            )
        return rounded
    return 0


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


def go_atoi(value: str) -> int | None:
    """strconv.Atoi: optional sign and ASCII digits, within int64; None on error."""
    digits = value[1:] if value[:1] in ("+", "-") else value
    if not digits or not all("0" <= c <= "9" for c in digits):
        return None
    number = int(value)
    if not -(2**63) <= number < 2**63:
        return None
    return number


def is_elastic_ep_ray_launch(container: dict[str, Any]) -> bool:
    """dynamo.IsElasticEPRayLaunch over the container's command line (split on spaces)."""
    expanded: list[str] = []
    for arg in list(container.get("command") or []) + list(container.get("args") or []):
        expanded.extend(str(arg).split())
    if "--enable-elastic-ep" not in expanded:
        return False
    return any(_has_arg(expanded, flag, "ray") for flag in ("--data-parallel-backend", "-dpb"))


def _has_arg(args: list[str], flag: str, value: str) -> bool:
    # dynamo.hasArg: a substring match of "flag value" / "flag=value", or flag then value.
    joined, equals = f"{flag} {value}", f"{flag}={value}"
    for i, arg in enumerate(args):
        if joined in arg or equals in arg:
            return True
        if arg == flag and i + 1 < len(args) and args[i + 1] == value:
            return True
    return False
