"""Where bindings live in committed manifests: DCD copies, PCS engine cliques, the PCS map.

A *workload* is one thing the operator's pod webhook checks: a DCD (two copies: metadata
and pod template) or one PodCliqueSet clique (two copies: the clique's annotation and its
entry in the PCS checkpoint map). Nothing here knows about checkpoints; `context` matches
workloads to snapshots.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from renderer.constants import DCD_KIND, PCS_KIND
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_NAME_KEY,
    COMPONENT_LABEL,
    COMPONENT_TYPE_LABEL,
    RESTORE_CANDIDATE_KEY,
    TARGET_CONTAINERS_KEY,
)
from renderer.operator import consts
from renderer.record import Record
from renderer.source.model import Path, SourceObject
from renderer.workloads import WORKER_TYPES, clique_component, is_worker_type
from renderer.workloads import dcd_template_annotations as _template_path

METADATA_ANNOTATIONS: Path = ("metadata", "annotations")
MAP_PATH: Path = (*METADATA_ANNOTATIONS, BINDINGS_MAP_KEY)
__all__ = [
    "DCD_KIND",
    "MAP_PATH",
    "METADATA_ANNOTATIONS",
    "PCS_KIND",
    "WORKER_TYPES",
    "Copy",
    "MapState",
    "PcsSites",
    "Workload",
    "clique_component",
    "dcd_template_annotations",
    "dcd_workload",
    "iter_dcds",
    "iter_pcss",
    "mapping_at",
    "pcs_sites",
]


class Copy(Record):
    """One place a binding is (or should be): `value` None when the key is absent."""

    _fields = ("obj", "path", "value", "label", "map_entry")
    obj: SourceObject
    path: Path  # path of the binding value (for a map entry: the map annotation)
    value: str | None
    label: str  # for messages: "metadata annotation", "checkpoint map entry", ...
    map_entry: str | None  # clique name when this copy is a PCS map entry

    def __init__(
        self,
        obj: SourceObject,
        path: Path,
        value: str | None,
        label: str,
        map_entry: str | None = None,
    ) -> None:
        self.obj = obj
        self.path = path
        self.value = value
        self.label = label
        self.map_entry = map_entry


class Workload(Record):
    """A DCD or a PCS clique that the pod webhook checks against one checkpoint."""

    _fields = (
        "obj",
        "label",
        "component",
        "checkpointed",
        "checkpoint_name",
        "checkpoint_name_path",
        "copies",
        "misplaced",
        "clique",
        "checkpoint_ref",
    )
    obj: SourceObject
    label: str  # "DCD prod/llama-decode" or "clique decode of PCS prod/llama"
    component: str
    checkpointed: bool  # restore-candidate annotations or any binding copy
    checkpoint_name: str | None
    checkpoint_name_path: Path
    copies: list[Copy]
    misplaced: str | None  # why it must carry no binding at all
    clique: str | None
    # the operator's own record of the checkpoint (a DCD's spec.experimental.checkpoint
    # checkpointRef), for a workload without restore-candidate annotations
    checkpoint_ref: str | None

    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        obj: SourceObject,
        label: str,
        component: str,
        checkpointed: bool,
        checkpoint_name: str | None,
        checkpoint_name_path: Path,
        copies: list[Copy],
        misplaced: str | None = None,
        clique: str | None = None,
        checkpoint_ref: str | None = None,
    ) -> None:
        self.obj = obj
        self.label = label
        self.component = component
        self.checkpointed = checkpointed
        self.checkpoint_name = checkpoint_name
        self.checkpoint_name_path = checkpoint_name_path
        self.copies = copies
        self.misplaced = misplaced
        self.clique = clique
        self.checkpoint_ref = checkpoint_ref


class MapState(Record):
    """The PCS checkpoint map annotation: parsed entries, or why it does not parse."""

    _fields = ("obj", "present", "entries", "error")
    obj: SourceObject
    present: bool
    entries: dict[str, str]
    error: str | None

    def __init__(
        self,
        obj: SourceObject,
        present: bool,
        entries: dict[str, str] | None = None,
        error: str | None = None,
    ) -> None:
        self.obj = obj
        self.present = present
        self.entries = {} if entries is None else entries
        self.error = error


class PcsSites(Record):
    _fields = ("obj", "workloads", "gms_copies", "map", "clique_names", "gms_cliques")
    obj: SourceObject
    workloads: list[Workload]  # engine cliques (and non-engine cliques carrying a binding)
    gms_copies: list[Copy]  # bindings found on GMS cliques (always misplaced)
    map: MapState
    clique_names: set[str]
    gms_cliques: set[str]  # names of the GMS cliques

    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        obj: SourceObject,
        workloads: list[Workload],
        gms_copies: list[Copy],
        map: MapState,
        clique_names: set[str],
        gms_cliques: set[str] | None = None,
    ) -> None:
        self.obj = obj
        self.workloads = workloads
        self.gms_copies = gms_copies
        self.map = map
        self.clique_names = clique_names
        self.gms_cliques = set() if gms_cliques is None else gms_cliques


def mapping_at(data: Any, path: Path) -> Mapping[str, Any]:
    node = data
    for part in path:
        if isinstance(node, dict) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return {}
    return node if isinstance(node, dict) else {}


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    import json  # rarely needed: keep it off the start-up path

    return json.dumps(value)


def dcd_template_annotations(obj: SourceObject) -> Path:
    """Pod template annotations of a DCD (see renderer.workloads)."""
    return _template_path(obj.api_version)


def _component_type(obj: SourceObject, labels: Mapping[str, Any]) -> str | None:
    spec = obj.data.get("spec")
    if isinstance(spec, dict):
        for key in ("componentType", "type"):
            value = spec.get(key)
            if isinstance(value, str) and value:
                return value
    value = labels.get(COMPONENT_TYPE_LABEL)
    return value if isinstance(value, str) and value else None


def _restore_candidate(annotations: Mapping[str, Any]) -> bool:
    return RESTORE_CANDIDATE_KEY in annotations or CHECKPOINT_NAME_KEY in annotations


def _dcd_spec_enabled(obj: SourceObject) -> bool:
    """The DCD's own spec enables checkpointing: v1beta1 `spec.experimental.checkpoint`,
    v1alpha1 `spec.checkpoint` (`enabled: true`), as the operator copies it from the DGD."""
    if obj.api_version.endswith("/v1beta1"):
        block = mapping_at(obj.data, ("spec", "experimental", "checkpoint"))
    else:
        block = mapping_at(obj.data, ("spec", "checkpoint"))
    return block.get("enabled") is True


def _not_worker(kind_label: str, component_type: str | None) -> str | None:
    if component_type is None or is_worker_type(component_type):
        return None
    return (
        f"{kind_label} is of component type {component_type!r}; only worker, prefill and"
        " decode components are checkpointed"
    )


def dcd_workload(
    obj: SourceObject, enabled: frozenset[str] = frozenset(), *, of_dgd: bool = False
) -> Workload:
    """`enabled`: lower-cased names of the checkpointed components of the DGD (with --dgd)
    that this DCD may belong to; `of_dgd`: the DCD is that DGD's, so `enabled` is the
    whole truth about which of its components are checkpointed."""
    template_path = dcd_template_annotations(obj)
    meta = mapping_at(obj.data, METADATA_ANNOTATIONS)
    template = mapping_at(obj.data, template_path)
    labels = mapping_at(obj.data, ("metadata", "labels"))
    copies = [
        Copy(
            obj,
            (*METADATA_ANNOTATIONS, BINDING_KEY),
            _str_or_none(meta.get(BINDING_KEY)),
            "metadata annotation",
        ),
        Copy(
            obj,
            (*template_path, BINDING_KEY),
            _str_or_none(template.get(BINDING_KEY)),
            "pod template annotation",
        ),
    ]
    has_binding = any(c.value is not None for c in copies)
    name = template.get(CHECKPOINT_NAME_KEY)
    label = f"DCD {obj.namespace}/{obj.name}"
    component = labels.get(COMPONENT_LABEL)
    not_worker = _not_worker(label, _component_type(obj, labels))
    # its spec (or the DGD) enables checkpointing, or its pods are restore candidates
    marked = (
        _restore_candidate(template)
        or _dcd_spec_enabled(obj)
        or (isinstance(component, str) and component.lower() in enabled)
    )
    if (
        of_dgd
        and copies[1].value is not None
        and not_worker is None
        and not (marked or isinstance(name, str))
    ):
        # with --dgd: a worker the DGD does not checkpoint, whose pod template carries a
        # binding and no other sign of a checkpoint: its pods restore from nothing, so the
        # binding is stray (pasted from a checkpointed sibling). Without the DGD such a
        # binding stays checkpoint-unverifiable, as a DCD naming no checkpoint always is.
        not_worker = (
            f"{label} is not checkpointed (its DGD does not enable checkpointing for"
            f" {component}, and it names no checkpoint and is no restore candidate)"
        )
    return Workload(
        obj=obj,
        label=label,
        component=component if isinstance(component, str) else "",
        # a component that is never checkpointed (not worker-class) needs no binding, even
        # when it carries the restore-candidate annotations: only a binding on it is wrong
        # A checkpoint-enabled worker needs its binding even when every binding copy and
        # restore annotation was removed: its spec (or the DGD) still says checkpointed.
        checkpointed=has_binding or (not_worker is None and marked),
        checkpoint_name=name if isinstance(name, str) else None,
        checkpoint_name_path=(*template_path, CHECKPOINT_NAME_KEY),
        copies=copies,
        misplaced=not_worker if has_binding else None,
        checkpoint_ref=_checkpoint_ref(obj),
    )


def _checkpoint_ref(obj: SourceObject) -> str | None:
    ref = mapping_at(obj.data, ("spec", "experimental", "checkpoint")).get("checkpointRef")
    return ref if isinstance(ref, str) and ref else None


def _read_map(obj: SourceObject) -> MapState:
    annotations = mapping_at(obj.data, METADATA_ANNOTATIONS)
    if BINDINGS_MAP_KEY not in annotations:
        return MapState(obj, present=False)
    raw = annotations[BINDINGS_MAP_KEY]
    problem = f"{BINDINGS_MAP_KEY} must be a JSON object of clique name to binding string"
    if not isinstance(raw, str):
        return MapState(obj, present=True, error=problem)
    from renderer.gojson import loads

    try:
        parsed = loads(raw, unique_keys=True)  # two entries for one clique: which holds?
    except ValueError as exc:  # (nested too deep to read included)
        return MapState(obj, present=True, error=f"{problem} ({exc})")
    if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
        return MapState(obj, present=True, error=problem)
    return MapState(obj, present=True, entries=parsed)


def pcs_sites(obj: SourceObject, enabled: frozenset[str] = frozenset()) -> PcsSites:
    """`enabled`: lower-cased names of the DGD's checkpointed components (with --dgd)."""
    cliques_path: Path = ("spec", "template", "cliques")
    node = obj.data.get("spec")
    cliques: Any = None
    if isinstance(node, dict) and isinstance(node.get("template"), dict):
        cliques = node["template"].get("cliques")
    cliques = cliques if isinstance(cliques, list) else []
    state = _read_map(obj)
    # First pass: which components are checkpointed (any engine clique says so, or the map).
    parsed: list[tuple[int, str, str, bool, Mapping[str, Any], Mapping[str, Any]]] = []
    checkpointed: set[str] = set()
    for index, clique in enumerate(cliques):
        if not isinstance(clique, dict) or not isinstance(clique.get("name"), str):
            continue
        name = clique["name"]
        annotations = mapping_at(clique, ("annotations",))
        labels = mapping_at(clique, ("labels",))
        component, is_gms = clique_component(name, labels)
        parsed.append((index, name, component, is_gms, annotations, labels))
        # the target-containers annotation is restore metadata the operator writes only
        # on a checkpointed component's cliques: it survives removing the other copies
        if not is_gms and (
            _restore_candidate(annotations)
            or BINDING_KEY in annotations
            or TARGET_CONTAINERS_KEY in annotations
            or name in state.entries
            or component in enabled
        ):
            checkpointed.add(component)
    pcs_label = f"PCS {obj.namespace}/{obj.name}"
    workloads: list[Workload] = []
    gms_copies: list[Copy] = []
    for index, name, component, is_gms, annotations, labels in parsed:
        base: Path = (*cliques_path, index, "annotations")
        clique_copy = Copy(
            obj,
            (*base, BINDING_KEY),
            _str_or_none(annotations.get(BINDING_KEY)),
            "clique annotation",
        )
        if is_gms:
            if clique_copy.value is not None:
                gms_copies.append(clique_copy)
            continue
        if component not in checkpointed:
            continue
        label = f"clique {name} of {pcs_label}"
        map_copy = Copy(
            obj, MAP_PATH, state.entries.get(name), "checkpoint map entry", map_entry=name
        )
        checkpoint_name = annotations.get(CHECKPOINT_NAME_KEY)
        has_binding = clique_copy.value is not None or name in state.entries
        clique_type = labels.get(COMPONENT_TYPE_LABEL)
        not_worker = _not_worker(label, clique_type if isinstance(clique_type, str) else None)
        if not_worker is not None and not has_binding:
            continue  # never checkpointed, and carries no binding: nothing to check
        workloads.append(
            Workload(
                obj=obj,
                label=label,
                component=component,
                checkpointed=True,
                checkpoint_name=checkpoint_name if isinstance(checkpoint_name, str) else None,
                checkpoint_name_path=(*base, CHECKPOINT_NAME_KEY),
                copies=[clique_copy, map_copy],
                misplaced=not_worker,
                clique=name,
            )
        )
    names = {entry[1] for entry in parsed}
    gms_names = {entry[1] for entry in parsed if entry[3]}
    return PcsSites(obj, workloads, gms_copies, state, names, gms_names)


def iter_dcds(objects: list[SourceObject]) -> Iterator[SourceObject]:
    return (
        o
        for o in objects
        if o.kind == DCD_KIND and o.api_version.startswith(consts.API_GROUP_NVIDIA_PREFIX)
    )


def iter_pcss(objects: list[SourceObject]) -> Iterator[SourceObject]:
    return (
        o
        for o in objects
        if o.kind == PCS_KIND and o.api_version.startswith(consts.API_GROUP_GROVE_PREFIX)
    )
