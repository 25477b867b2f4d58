"""The binding annotations, placed on top of the operator's objects.

The pinned operator predates the binding, so this is the one thing render adds to what it
creates:

- on the DCD of a bound (checkpointed, worker-class) component: `metadata.annotations` and
  the pod template's annotations (`renderer.workloads.dcd_template_annotations`);
- on a PodCliqueSet: the bound component's engine cliques (never its GMS cliques, never
  another component's) carry the binding, and `metadata.annotations` carries the map
  `nvidia.com/dynamo-checkpoint-bindings` (compact JSON, engine clique name -> binding).

Annotation maps are kept in key order, as Go writes a map.
"""

from __future__ import annotations

import json
from typing import Any

from renderer.constants import DCD_KIND
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_NAME_KEY,
    COMPONENT_LABEL,
    COMPONENT_TYPE_LABEL,
    RESTORE_CANDIDATE_KEY,
)
from renderer.workloads import (
    clique_component,
    dcd_template_annotations,
    is_worker_type,
)

JSON = dict[str, Any]


def _child(parent: JSON, key: str) -> JSON:
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def _annotate(holder: JSON, key: str, value: str) -> None:
    """holder["annotations"][key] = value, the map kept sorted (created when absent)."""
    annotations = dict(holder.get("annotations") or {})
    annotations[key] = value
    had = "annotations" in holder
    holder["annotations"] = {k: annotations[k] for k in sorted(annotations)}
    if not had:  # a new annotations map goes in key order among its siblings
        items = sorted(holder.items())
        holder.clear()
        holder.update(items)


def strip_binding_keys(node: Any) -> set[str]:
    """Remove every binding key from every annotations map in `node` (in place); returns
    the keys found. The operator passes DGD annotations through, but only render writes
    these (a copy typed into the DGD would bind the wrong workloads)."""
    found: set[str] = set()
    if isinstance(node, list):
        for item in node:
            found |= strip_binding_keys(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "annotations" and isinstance(value, dict):
                for reserved in (BINDING_KEY, BINDINGS_MAP_KEY):
                    if reserved in value:
                        del value[reserved]
                        found.add(reserved)
            else:
                found |= strip_binding_keys(value)
    return found


def stray_restore_candidates(objects: list[JSON], checkpointed: set[str]) -> list[str]:
    """Components (not checkpointed) whose worker pods the operator still marks as restore
    candidates, because the DGD wrote those annotations itself: the pod webhook would want
    a binding they cannot have."""
    found: list[str] = []
    for obj in objects:
        if obj.get("kind") == DCD_KIND:
            labels = (obj.get("metadata") or {}).get("labels") or {}
            holders = [
                (
                    str(labels.get(COMPONENT_LABEL, "")),
                    (obj.get("spec") or {}).get("type"),
                    _annotations_at(obj, dcd_template_annotations(str(obj.get("apiVersion", "")))),
                )
            ]
        else:
            holders = [
                (
                    str((c.get("labels") or {}).get(COMPONENT_LABEL, "")),
                    (c.get("labels") or {}).get(COMPONENT_TYPE_LABEL),
                    c.get("annotations") or {},
                )
                for c in (obj.get("spec") or {}).get("template", {}).get("cliques") or []
                if not clique_component(str(c.get("name", "")), c.get("labels"))[1]
            ]
        for component, component_type, marks in holders:
            candidate = RESTORE_CANDIDATE_KEY in marks or CHECKPOINT_NAME_KEY in marks
            if candidate and is_worker_type(component_type) and component not in checkpointed:
                found.append(component)
    return sorted(set(found))


def _annotations_at(obj: JSON, path: tuple[str, ...]) -> JSON:
    node: Any = obj
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def place_on_dcds(dcds: list[JSON], bindings: dict[str, str]) -> None:
    """Both copies on every DCD whose component is bound (by its component label)."""
    for dcd in dcds:
        labels = (dcd.get("metadata") or {}).get("labels") or {}
        binding = bindings.get(str(labels.get(COMPONENT_LABEL, "")))
        if binding is None:
            continue
        _annotate(_child(dcd, "metadata"), BINDING_KEY, binding)
        node = dcd
        *parents, _last = dcd_template_annotations(str(dcd.get("apiVersion", "")))
        for key in parents:
            node = _child(node, key)
        _annotate(node, BINDING_KEY, binding)


def place_on_pcs(pcs: JSON, bindings: dict[str, str]) -> None:
    """The binding on each bound component's engine cliques, and the PCS binding map."""
    by_lower = {name.lower(): binding for name, binding in bindings.items()}
    entries: dict[str, str] = {}
    for clique in (pcs.get("spec") or {}).get("template", {}).get("cliques") or []:
        labels = clique.get("labels") or {}
        owner = labels.get(COMPONENT_LABEL)
        component, is_gms = clique_component(str(clique.get("name", "")), labels)
        binding = bindings.get(owner) if isinstance(owner, str) else by_lower.get(component)
        if binding is None or is_gms:
            continue
        _annotate(clique, BINDING_KEY, binding)
        entries[str(clique["name"])] = binding
    if entries:
        value = json.dumps(entries, sort_keys=True, separators=(",", ":"))
        _annotate(_child(pcs, "metadata"), BINDINGS_MAP_KEY, value)
