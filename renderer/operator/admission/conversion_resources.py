"""api/v1alpha1/shared_spec_conversion.go, resources: the v1alpha1 flat Resources and
corev1.ResourceRequirements, each way, and whether a value survives the round trip.

Apart from conversion_spec.py (the rest of that Go file) because both the create path and
the preserved-record restore (conversion_restore.py, dcd_alpha*) ask these questions.
Values are sparse (see goruntime.encoding_json).
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import quantity_text
from renderer.goruntime.equality import reflect_equal
from renderer.goruntime.quantity import QuantityError, marshal_quantity_text
from renderer.goruntime.typetable import ALPHA, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission.errors import NotReproducedError

DEFAULT_GPU_RESOURCE_NAME = consts.KUBE_RESOURCE_GPU_NVIDIA

_RESOURCES = {"kind": "ptr", "elem": struct_type(ALPHA + "Resources")}


def resources_to_native(r: dict[str, Any]) -> dict[str, Any]:
    """resourcesToNative: v1alpha1 Resources -> corev1.ResourceRequirements (sparse)."""
    out: dict[str, Any] = {}
    if "claims" in r:
        out["claims"] = deep_copy(r["claims"])
    for key in ("requests", "limits"):
        if key in r:
            items = item_to_resource_list(r[key])
            if items is not None:  # a Go nil map leaves the sparse key out
                out[key] = items
    return out


def _parse_quantity(text: str) -> str | None:
    """resource.ParseQuantity(text).String(), or None where Go fails to parse."""

    if not text or text != text.strip():
        return None
    try:
        return marshal_quantity_text(text, number=False)
    except QuantityError as err:
        if "cannot be encoded exactly" in str(err):
            raise NotReproducedError(str(err)) from err
        return None


def item_to_resource_list(item: dict[str, Any] | None) -> dict[str, str] | None:
    """itemToResourceList: named fields and custom entries that parse as quantities."""
    if item is None:
        return None
    out: dict[str, str] = {}
    for key, name in (("cpu", "cpu"), ("memory", "memory")):
        if item.get(key):
            q = _parse_quantity(item[key])
            if q is not None:
                out[name] = q
    if item.get("gpu"):
        q = _parse_quantity(item["gpu"])
        if q is not None:
            out[item.get("gpuType") or DEFAULT_GPU_RESOURCE_NAME] = q
    # Custom entries come last and overwrite a named one of the same key (the keys of one
    # map are distinct, so Go's random map order does not change the result).
    for key, value in (item.get("custom") or {}).items():
        q = _parse_quantity(value)
        if q is not None:
            out[key] = q
    return out or None


def resources_from_native(r: dict[str, Any] | None) -> dict[str, Any] | None:
    """resourcesFromNative: corev1.ResourceRequirements -> v1alpha1 Resources (or nil)."""
    r = r or {}
    out: dict[str, Any] = {}
    for key in ("requests", "limits"):
        item = _resource_item_from_list(r.get(key))
        if item is not None:
            out[key] = item
    if r.get("claims") is not None:
        out["claims"] = deep_copy(r["claims"])
    if "requests" not in out and "limits" not in out and not out.get("claims"):
        return None
    return out


def _resource_item_from_list(rl: dict[str, Any] | None) -> dict[str, Any] | None:
    if not rl:
        return None
    out: dict[str, Any] = {}
    for name, q in rl.items():
        value = quantity_text(q, ("resources", name))  # q.String()
        if name == "cpu":
            out["cpu"] = value
        elif name == "memory":
            out["memory"] = value
        elif name == DEFAULT_GPU_RESOURCE_NAME:
            out["gpu"] = value
        else:
            out.setdefault("custom", {})[name] = value
    return out


def resources_need_preservation(r: dict[str, Any] | None) -> bool:
    """resourcesNeedPreservation: the flat resources do not survive native and back."""
    if r is None:
        return False
    back = resources_from_native(resources_to_native(r))
    return not reflect_equal(r, back, _RESOURCES)
