"""The binding annotations, placed on top of the operator's objects.

The pinned operator predates the binding, so this is the one thing render adds to what it
creates:

- on the DCD of a bound (checkpointed, worker-class) component: `metadata.annotations` and
  the pod template's annotations (`renderer.workloads.dcd_template_annotations`);
- on a PodCliqueSet: the bound component's engine cliques (never its GMS cliques, never
  another component's) carry the binding, and `metadata.annotations` carries the map
  `nvidia.com/dynamo-checkpoint-bindings` (compact JSON, engine clique name -> binding).

A bound template the operator has already shaped for a restore (WaitForCheckpoint: the
`nvidia.com/snapshot-checkpoint-id` label, no restore-candidate annotation) also gets the
checkpoint's `nvidia.com/dynamo-checkpoint-name`, which the pinned operator deletes when it
shapes it: a binding-aware webhook reads the checkpoint by that name (several checkpoints
may share one ID label), so without it the pod is denied (docs/admission.md section 1,
our contract).

Annotation maps are kept in key order, as Go writes a map.
"""

from __future__ import annotations

from typing import Any

from renderer.constants import DCD_KIND
from renderer.gojson import marshal_any
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_ID_LABEL,
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


def _keep_name(holder: JSON, labels: Any, name: str | None) -> None:
    """The checkpoint name on a bound, already-shaped template (see the module docstring)."""
    annotations = holder.get("annotations") or {}
    shaped = isinstance(labels, dict) and CHECKPOINT_ID_LABEL in labels
    if name and shaped and RESTORE_CANDIDATE_KEY not in annotations:
        _annotate(holder, CHECKPOINT_NAME_KEY, name)


def place_on_dcds(
    dcds: list[JSON], bindings: dict[str, str], names: dict[str, str] | None = None
) -> None:
    """Both copies on every DCD whose component is bound (by its component label);
    `names`: the checkpoint each bound component restores from."""
    for dcd in dcds:
        labels = (dcd.get("metadata") or {}).get("labels") or {}
        component = str(labels.get(COMPONENT_LABEL, ""))
        binding = bindings.get(component)
        if binding is None:
            continue
        _annotate(_child(dcd, "metadata"), BINDING_KEY, binding)
        node = dcd
        *parents, _last = dcd_template_annotations(str(dcd.get("apiVersion", "")))
        for key in parents:
            node = _child(node, key)
        _annotate(node, BINDING_KEY, binding)
        _keep_name(node, node.get("labels"), (names or {}).get(component))


def place_on_pcs(pcs: JSON, bindings: dict[str, str], names: dict[str, str] | None = None) -> None:
    """The binding on each bound component's engine cliques, and the PCS binding map;
    `names`: the checkpoint each bound component restores from."""
    by_lower = {name.lower(): binding for name, binding in bindings.items()}
    names_by_lower = {name.lower(): value for name, value in (names or {}).items()}
    entries: dict[str, str] = {}
    for clique in (pcs.get("spec") or {}).get("template", {}).get("cliques") or []:
        labels = clique.get("labels") or {}
        owner = labels.get(COMPONENT_LABEL)
        component, is_gms = clique_component(str(clique.get("name", "")), labels)
        if isinstance(owner, str):
            binding, name = bindings.get(owner), (names or {}).get(owner)
        else:
            binding, name = by_lower.get(component), names_by_lower.get(component)
        if binding is None or is_gms:
            continue
        _annotate(clique, BINDING_KEY, binding)
        _keep_name(clique, labels, name)
        entries[str(clique["name"])] = binding
    if entries:
        value = marshal_any(entries)  # compact, keys sorted: as lint reads it back
        _annotate(_child(pcs, "metadata"), BINDINGS_MAP_KEY, value)
