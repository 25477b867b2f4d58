"""internal/dra: GPU counts from resources, and the shared DRA claim of intra-pod GMS.

The render path needs three things from it: the main container's GPU count (scalar
``nvidia.com/gpu``-like resources; a DRA ``ResourceClaim`` count needs the cluster's claim
templates and device classes, which an offline render does not have: that is refused with
the error the operator returns against an empty cluster), stripping scalar GPU resources
where DRA takes over, and ``ApplyClaim`` (main container -> shared claim, GPU toleration,
pod resource claim).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from renderer.goruntime.quantity import QuantityError, marshal_quantity
from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.strings import to_lower
from renderer.operator import consts
from renderer.operator.backend import BackendError

if TYPE_CHECKING:
    from fractions import Fraction

JSON = dict[str, Any]

#: ClaimName: the pod-level ResourceClaim shared by every GMS container.
CLAIM_NAME: Final = "intrapod-shared-gpu"
#: DefaultDeviceClassName: the NVIDIA DRA driver's GPU DeviceClass.
DEFAULT_DEVICE_CLASS_NAME: Final = "gpu.nvidia.com"

# a suffix's factor as (numerator, denominator): fractions is imported only when a
# quantity is read exactly
_SUFFIXES: Final = {
    "": (1, 1),
    "n": (1, 10**9),
    "u": (1, 10**6),
    "m": (1, 10**3),
    "k": (10**3, 1),
    "M": (10**6, 1),
    "G": (10**9, 1),
    "T": (10**12, 1),
    "P": (10**15, 1),
    "E": (10**18, 1),
    "Ki": (2**10, 1),
    "Mi": (2**20, 1),
    "Gi": (2**30, 1),
    "Ti": (2**40, 1),
    "Pi": (2**50, 1),
    "Ei": (2**60, 1),
}


def is_gpu_resource_name(name: str) -> bool:
    """isGPUResourceName: nvidia.com/gpu, gpu, */gpu, MIG shapes, gpu.* names."""
    normalized = to_lower(name)
    return (
        normalized in (consts.KUBE_RESOURCE_GPU_NVIDIA, "gpu")
        or normalized.endswith("/gpu")
        or "/mig-" in normalized
        or normalized.startswith("gpu.")
    )


def gpu_resource_names(resources: JSON | None) -> list[str]:
    """gpuResourceNames: the GPU entries of a resource list, sorted."""
    return sorted(
        (name for name in resources or {} if is_gpu_resource_name(name)),
        key=lambda n: n.encode("utf-8", "surrogatepass"),
    )


def remove_gpu_resources(resources: JSON | None) -> None:
    """RemoveGPUResources: delete every scalar GPU entry (in place)."""
    if resources is None:
        return
    for name in gpu_resource_names(resources):
        del resources[name]


def quantity_fraction(value: str | int | float) -> tuple[Fraction, str]:
    """A Quantity's exact value and its canonical text (what ``q.String()`` prints)."""

    try:
        text = marshal_quantity(value)
    except QuantityError as err:
        raise BackendError(str(err)) from None
    match = _canonical().fullmatch(text)
    if match is None:  # canonical forms are number+suffix or number+e+exponent
        raise BackendError(f"quantity {text!r} cannot be read exactly")
    number, suffix, exponent = match.groups()
    amount = Fraction(number)
    if exponent is not None:
        return amount * Fraction(10) ** int(exponent), text
    return amount * Fraction(*_SUFFIXES[suffix or ""]), text


@cache
def _canonical() -> re.Pattern[str]:
    # Go keeps a parsed text it finds canonical enough ("+1", "5.", "1e3"), so a sign or
    # a bare decimal point can reach here as well as the canonical forms.
    return re.compile(
        r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([numkMGTPE]|[KMGTPE]i)?|[eE]([-+]?[0-9]+))"
    )


def extract_gpu_count_from_resource_requirements(resources: JSON | None) -> int:
    """ExtractGPUCountFromResourceRequirements: limits first, then requests; 0 if none."""
    for key in ("limits", "requests"):
        resource_list = (resources or {}).get(key) or {}
        names = gpu_resource_names(resource_list)
        if names:
            return _gpu_count_from_quantity(names[0], resource_list[names[0]])
    return 0


def _gpu_count_from_quantity(name: str, quantity: str | int | float) -> int:
    amount, text = quantity_fraction(quantity)
    # Quantity.Value() rounds up and does not fit a value beyond int64, so CmpInt64 tells
    # both a fraction and an overflow apart from the value: the same error.
    if amount.denominator != 1 or not -(2**63) <= amount < 2**63:
        raise BackendError(
            f"GPU resource {go_quote(name)} quantity {go_quote(text)} must be a whole number"
        )
    return int(amount)


def resolve_gpu_count(namespace: str, pod_spec: JSON | None, resources: JSON | None) -> int:
    """ResolveGPUCount against an empty cluster: scalar GPUs; DRA claims cannot be read."""
    scalar = extract_gpu_count_from_resource_requirements(resources)
    claims = (resources or {}).get("claims") or []
    if scalar > 0 or not claims:
        return scalar
    pod_claims = {c.get("name", ""): c for c in (pod_spec or {}).get("resourceClaims") or []}
    for claim in claims:
        pod_claim = pod_claims.get(claim.get("name", ""))
        if pod_claim is None:
            raise BackendError(
                f'container ResourceClaim "{claim.get("name", "")}" has no matching pod'
                " resourceClaim"
            )
        template = pod_claim.get("resourceClaimTemplateName") or ""
        claim_name = pod_claim.get("resourceClaimName") or ""
        if template:
            raise BackendError(
                f"failed to get ResourceClaimTemplate {namespace}/{template}:"
                f' resourceclaimtemplates.resource.k8s.io "{template}" not found'
            )
        if claim_name:
            raise BackendError(
                f"failed to get ResourceClaim {namespace}/{claim_name}:"
                f' resourceclaims.resource.k8s.io "{claim_name}" not found'
            )
        raise BackendError(
            f'pod resourceClaim "{pod_claim.get("name", "")}" does not reference a'
            " ResourceClaim or ResourceClaimTemplate"
        )
    return 0


def resource_claim_template_name(parent_name: str, component_name: str) -> str:
    """ResourceClaimTemplateName: ``<parent>-<component>-gpu``."""
    return f"{parent_name}-{to_lower(component_name)}-gpu"


def apply_claim(pod_spec: JSON, claim_template_name: str) -> None:
    """ApplyClaim: the first container's scalar GPUs become the shared DRA claim."""
    containers = pod_spec.get("containers") or []
    if not containers:
        raise BackendError("pod spec must have at least one container for DRA claim")
    container = containers[0]
    resources = container.setdefault("resources", {})
    remove_gpu_resources(resources.get("limits"))
    remove_gpu_resources(resources.get("requests"))
    claims = resources.get("claims") or []
    if not any(c.get("name", "") == CLAIM_NAME for c in claims):
        resources["claims"] = [*claims, {"name": CLAIM_NAME}]
    # DRA bypasses the device plugin's toleration injection for GPU taints.
    tolerations = pod_spec.get("tolerations") or []
    if not any(
        t.get("key", "") == consts.KUBE_RESOURCE_GPU_NVIDIA and t.get("effect", "") == "NoSchedule"
        for t in tolerations
    ):
        pod_spec["tolerations"] = [
            *tolerations,
            {"key": consts.KUBE_RESOURCE_GPU_NVIDIA, "operator": "Exists", "effect": "NoSchedule"},
        ]
    claim = {"name": CLAIM_NAME, "resourceClaimTemplateName": claim_template_name}
    pod_claims = pod_spec.get("resourceClaims") or []
    for i, existing in enumerate(pod_claims):
        if existing.get("name", "") == CLAIM_NAME:
            pod_claims[i] = claim
            pod_spec["resourceClaims"] = pod_claims
            return
    pod_spec["resourceClaims"] = [*pod_claims, claim]
