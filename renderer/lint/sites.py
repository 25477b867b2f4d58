"""Where bindings live in committed manifests: DCD copies, PCS engine cliques, the PCS map.

A *workload* is one thing the operator's pod webhook checks: a DCD (two copies: metadata
and pod template) or one PodCliqueSet clique (two copies: the clique's annotation and its
entry in the PCS checkpoint map). Nothing here knows about checkpoints; `context` matches
workloads to snapshots.
"""

from __future__ import annotations

import json  # rarely needed: keep it off the start-up path
from collections.abc import Iterator, Mapping
from typing import Any

from renderer.constants import DCD_KIND, PCS_KIND
from renderer.gojson import loads
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_ID_LABEL,
    CHECKPOINT_NAME_KEY,
    COMPONENT_LABEL,
    COMPONENT_TYPE_LABEL,
    DGD_NAME_LABEL,
)
from renderer.model.checkpoint import (
    CANDIDATE,
    ORDINARY,
    SHAPED,
    WAIT_FOR_CHECKPOINT,
    Subject,
    shape_of,
)
from renderer.operator import consts
from renderer.record import Record, field
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
    "dcd_checkpoint_ref_path",
    "dcd_template_annotations",
    "dcd_workload",
    "iter_dcds",
    "iter_pcss",
    "mapping_at",
    "pcs_sites",
]


class Copy(Record):
    """One place a binding is (or should be): `value` None when the key is absent."""

    obj: SourceObject
    path: Path  # path of the binding value (for a map entry: the map annotation)
    value: str | None
    label: str  # for messages: "metadata annotation", "checkpoint map entry", ...
    map_entry: str | None  # clique name when this copy is a PCS map entry

    # Its own __init__: one is made per binding copy of every linted workload, and the
    # generic one costs about three times the instructions (bench/bench_lint.py's corpus).
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
    shape: str  # the webhook's reading of its pods (renderer.model.checkpoint.shape_of)
    subject: Subject  # what the checkpoint model is asked about it
    # why the operator never makes it a restore candidate (a GMS clique, a component type
    # that is not checkpointed): --fix does not make such a candidate admissible
    odd: str | None
    # already shaped in the manifest itself: a binding there needs the checkpoint name
    # ([our contract], admission §1)
    name_required: bool

    # its own __init__: `subject` defaults to one made of the other fields
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
        shape: str = ORDINARY,
        subject: Subject | None = None,
        odd: str | None = None,
        name_required: bool = False,
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
        self.shape = shape
        self.subject = (
            Subject(obj.namespace, shape, checkpoint_ref, checkpoint_name, None, "", component)
            if subject is None
            else subject
        )
        self.odd = odd
        self.name_required = name_required


class MapState(Record):
    """The PCS checkpoint map annotation: parsed entries, or why it does not parse."""

    obj: SourceObject
    present: bool
    entries: dict[str, str] = field(default_factory=dict)
    error: str | None = None


class PcsSites(Record):
    obj: SourceObject
    workloads: list[Workload]  # engine cliques (and non-engine cliques carrying a binding)
    gms_copies: list[Copy]  # bindings found on GMS cliques (always misplaced)
    map: MapState
    clique_names: set[str]
    gms_cliques: set[str] = field(default_factory=set)  # names of the GMS cliques


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


def _dcd_checkpoint(obj: SourceObject) -> Mapping[str, Any]:
    """The DCD's own checkpoint block: v1beta1 `spec.experimental.checkpoint`, v1alpha1
    `spec.checkpoint` (the operator copies it from the DGD and its controller reads it)."""
    if obj.api_version.endswith("/v1beta1"):
        return mapping_at(obj.data, ("spec", "experimental", "checkpoint"))
    return mapping_at(obj.data, ("spec", "checkpoint"))


def dcd_checkpoint_ref_path(obj: SourceObject) -> Path:
    if obj.api_version.endswith("/v1beta1"):
        return ("spec", "experimental", "checkpoint", "checkpointRef")
    return ("spec", "checkpoint", "checkpointRef")


def _not_worker(kind_label: str, component_type: str | None) -> str | None:
    if component_type is None or is_worker_type(component_type):
        return None
    return (
        f"{kind_label} is of component type {component_type!r}; only worker, prefill and"
        " decode components are checkpointed"
    )


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def dcd_workload(obj: SourceObject) -> Workload:
    """A DCD as its pods reach the webhook: its pod template's metadata, or, when that is
    ordinary, what its controller makes of the DCD's own checkpoint block (a named
    checkpoint makes the pods restore candidates, or already shaped for WaitForCheckpoint)."""
    template_path = dcd_template_annotations(obj)
    meta = mapping_at(obj.data, METADATA_ANNOTATIONS)
    template = mapping_at(obj.data, template_path)
    template_labels = mapping_at(obj.data, (*template_path[:-1], "labels"))
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
    has_binding = any(c.value for c in copies)
    block = _dcd_checkpoint(obj)
    enabled = block.get("enabled") is True
    ref = _string(block.get("checkpointRef")) if enabled else None
    shape = shape_of(template_labels, template)
    name_required = shape == SHAPED
    if shape == ORDINARY and ref is not None:
        wait = block.get("startupPolicy") == WAIT_FOR_CHECKPOINT
        shape = SHAPED if wait else CANDIDATE
    label = f"DCD {obj.namespace}/{obj.name}"
    component = labels.get(COMPONENT_LABEL)
    component = component if isinstance(component, str) else ""
    name = _string(template.get(CHECKPOINT_NAME_KEY))
    checkpointed = shape in (CANDIDATE, SHAPED) or enabled
    # at 0 replicas (WaitForCheckpoint before its checkpoint is Ready) it makes no pod
    gated = mapping_at(obj.data, ("spec",)).get("replicas") == 0
    subject = Subject(
        obj.namespace,
        shape,
        ref,
        name,
        _string(template_labels.get(CHECKPOINT_ID_LABEL)),
        _string(labels.get(DGD_NAME_LABEL)) or "",
        component,
    )
    return Workload(
        obj=obj,
        label=label,
        component=component,
        checkpointed=checkpointed,
        checkpoint_name=name,
        checkpoint_name_path=(*template_path, CHECKPOINT_NAME_KEY),
        copies=copies,
        misplaced=(
            _stray(label, shape, enabled) if has_binding and not (checkpointed or gated) else None
        ),
        checkpoint_ref=ref,
        shape=shape,
        subject=subject,
        odd=_not_worker(label, _component_type(obj, labels)),
        name_required=name_required,
    )


def _stray(label: str, shape: str, enabled: bool = False) -> str:
    if shape != ORDINARY:
        return f"{label} is a checkpoint source (its capture job), exempt from binding checks"
    return (
        f"{label} restores from no checkpoint (it is neither a restore candidate nor already"
        " shaped" + (", and checkpointing is not enabled in its spec)" if not enabled else ")")
    )


def _read_map(obj: SourceObject) -> MapState:
    annotations = mapping_at(obj.data, METADATA_ANNOTATIONS)
    if BINDINGS_MAP_KEY not in annotations:
        return MapState(obj, present=False)
    raw = annotations[BINDINGS_MAP_KEY]
    problem = f"{BINDINGS_MAP_KEY} must be a JSON object of clique name to binding string"
    if not isinstance(raw, str):
        return MapState(obj, present=True, error=problem)

    try:
        parsed = loads(raw, unique_keys=True)  # two entries for one clique: which holds?
    except ValueError as exc:  # (nested too deep to read included)
        return MapState(obj, present=True, error=f"{problem} ({exc})")
    if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
        return MapState(obj, present=True, error=problem)
    return MapState(obj, present=True, entries=parsed)


def pcs_sites(obj: SourceObject) -> PcsSites:
    """Each clique is read as the webhook reads its pods: by its own labels and annotations
    (Grove creates the pods from the clique's template)."""
    cliques_path: Path = ("spec", "template", "cliques")
    node = obj.data.get("spec")
    cliques: Any = None
    if isinstance(node, dict) and isinstance(node.get("template"), dict):
        cliques = node["template"].get("cliques")
    cliques = cliques if isinstance(cliques, list) else []
    state = _read_map(obj)
    pcs_labels = mapping_at(obj.data, ("metadata", "labels"))
    dgd_name = _string(pcs_labels.get(DGD_NAME_LABEL)) or obj.name
    pcs_label = f"PCS {obj.namespace}/{obj.name}"
    workloads: list[Workload] = []
    names: set[str] = set()
    gms_names: set[str] = set()
    for index, clique in enumerate(cliques):
        if not isinstance(clique, dict) or not isinstance(clique.get("name"), str):
            continue
        name = clique["name"]
        names.add(name)
        annotations = mapping_at(clique, ("annotations",))
        labels = mapping_at(clique, ("labels",))
        component, is_gms = clique_component(name, labels)
        if is_gms:
            gms_names.add(name)
        base: Path = (*cliques_path, index, "annotations")
        clique_copy = Copy(
            obj,
            (*base, BINDING_KEY),
            _str_or_none(annotations.get(BINDING_KEY)),
            "clique annotation",
        )
        map_copy = Copy(
            obj, MAP_PATH, state.entries.get(name), "checkpoint map entry", map_entry=name
        )
        shape = shape_of(labels, annotations)
        checkpointed = shape in (CANDIDATE, SHAPED)
        has_binding = bool(clique_copy.value) or name in state.entries
        gated = shape == ORDINARY and mapping_at(clique, ("spec",)).get("replicas") == 0
        if not checkpointed and not has_binding:
            continue  # ordinary, no binding: nothing the webhook checks
        label = f"clique {name} of {pcs_label}"
        clique_type = labels.get(COMPONENT_TYPE_LABEL)
        odd = (
            f"{label} is a GPU memory service clique"
            if is_gms
            else _not_worker(label, clique_type if isinstance(clique_type, str) else None)
        )
        checkpoint_name = _string(annotations.get(CHECKPOINT_NAME_KEY))
        own_component = labels.get(COMPONENT_LABEL)
        workloads.append(
            Workload(
                obj=obj,
                label=label,
                component=component,
                checkpointed=checkpointed,
                checkpoint_name=checkpoint_name,
                checkpoint_name_path=(*base, CHECKPOINT_NAME_KEY),
                copies=[clique_copy, map_copy],
                # a clique at 0 replicas (WaitForCheckpoint before its checkpoint is Ready)
                # makes no pod: nothing reaches the webhook, its binding is no verdict
                misplaced=None if checkpointed or gated else _stray(label, shape),
                clique=name,
                shape=shape,
                subject=Subject(
                    obj.namespace,
                    shape,
                    None,
                    checkpoint_name,
                    _string(labels.get(CHECKPOINT_ID_LABEL)),
                    dgd_name,
                    own_component if isinstance(own_component, str) else "",
                ),
                odd=odd,
                name_required=shape == SHAPED,
            )
        )
    return PcsSites(obj, workloads, [], state, names, gms_names)


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
