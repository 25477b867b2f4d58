"""Map a webhook field path (v1beta1, as the operator names it) into the input document.

The operator names v1beta1 fields; a v1alpha1 input has ``spec.services.<name>`` with its own
field names, so ``spec.components[i]...`` is rewritten to the service the component came from
(components are the services sorted by name) and the component fields to their v1alpha1
places. Finally the path is cut to its longest prefix that exists in the input, so a missing
field is located at its nearest written parent.
"""

from __future__ import annotations

from typing import Any

from renderer.operator.admission.errors import PathTuple

# v1beta1 component field -> v1alpha1 service field (prefixes).
_COMPONENT_TO_SERVICE: tuple[tuple[PathTuple, PathTuple], ...] = (
    (("experimental", "gpuMemoryService"), ("gpuMemoryService",)),
    (("experimental", "failover"), ("failover",)),
    (("experimental", "checkpoint"), ("checkpoint",)),
    (("podTemplate", "metadata"), ("extraPodMetadata",)),
    (("sharedMemorySize",), ("sharedMemory", "size")),
    (("type",), ("componentType",)),
    (("name",), ()),
)


def to_input_path(
    path: PathTuple,
    admitted: dict[str, Any],
    request_version: str,
    input_doc: dict[str, Any] | None,
) -> PathTuple:
    """The input-document path for the operator's ``path`` (see the module docstring)."""
    out = path
    if request_version == "v1alpha1" and path[:2] == ("spec", "components"):
        out = _to_service_path(path, admitted) if len(path) > 2 else ("spec", "services")
    if input_doc is not None:
        out = _existing_prefix(out, input_doc)
    return out


def _to_service_path(path: PathTuple, admitted: dict[str, Any]) -> PathTuple:
    index = path[2]
    components = (admitted.get("spec") or {}).get("components") or []
    if not isinstance(index, int) or index >= len(components):
        return ("spec", "services")
    component = components[index]
    base: PathTuple = ("spec", "services", str(component.get("name") or ""))
    rest = path[3:]
    if rest[:3] == ("podTemplate", "spec", "containers") and len(rest) > 3:
        containers = ((component.get("podTemplate") or {}).get("spec") or {}).get(
            "containers"
        ) or []
        i = rest[3]
        if isinstance(i, int) and i < len(containers) and containers[i].get("name") == "main":
            return (*base, "extraPodSpec", "mainContainer", *rest[4:])
        return (*base, "extraPodSpec")
    if rest[:2] == ("podTemplate", "spec"):
        return (*base, "extraPodSpec", *rest[2:])
    for beta, alpha in _COMPONENT_TO_SERVICE:
        if rest[: len(beta)] == beta:
            return (*base, *alpha, *rest[len(beta) :])
    return (*base, *rest)


def _existing_prefix(path: PathTuple, doc: Any) -> PathTuple:
    node = doc
    for depth, seg in enumerate(path):
        if isinstance(seg, int):
            if not isinstance(node, list) or not 0 <= seg < len(node):
                return path[:depth]
            node = node[seg]
        else:
            if not isinstance(node, dict) or seg not in node:
                return path[:depth]
            node = node[seg]
    return path
