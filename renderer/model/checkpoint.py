"""One model of a workload's checkpoint, read as the pod webhook and the operator read it.

Three questions, each answered here once (every lint rule and `--fix` ask this module; none
re-derives an answer):

1. The workload's *shape* (admission §1), from its labels and annotations only, never from
   its component type, clique name or GMS role: a checkpoint source (label
   `nvidia.com/snapshot-is-checkpoint-source`), already shaped (label
   `nvidia.com/snapshot-checkpoint-id`), a restore candidate (annotation
   `nvidia.com/dynamo-checkpoint-restore-candidate: "true"`), or ordinary. A DCD's pods are
   shaped by its controller from the DCD's own checkpoint block, so a DCD that enables
   checkpointing and names its checkpoint is a candidate (Immediate) or already shaped
   (WaitForCheckpoint) whatever its pod template says.
2. The checkpoint it restores from (§2): the DCD's own `checkpointRef` (either API
   version), else the `nvidia.com/dynamo-checkpoint-name` annotation, else, for an
   already-shaped workload, the snapshot whose checkpoint ID (its label, or the ID the
   operator reads from it and writes into the pod's label) equals the workload's.
   Never the UID inside a binding: that is what is being checked.
3. That checkpoint's state among the snapshots given (§3): pending (not captured yet, or not
   committed), Ready or not, superseded by a capture for another worker hash of the same DGD
   component, manual, unreadable; and the binding the workload must carry.

A snapshot without `metadata.namespace` is the object of the workload's namespace: it is
matched there and its binding is computed with that namespace, as the live object has it.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.binding import bind
from renderer.binding.checkpoint import is_checkpoint, is_manual
from renderer.errors import InputError
from renderer.keys import (
    CHECKPOINT_ID_LABEL,
    COMPONENT_LABEL,
    DGD_NAME_LABEL,
    RESTORE_CANDIDATE_KEY,
    WORKER_HASH_LABEL,
)
from renderer.operator import consts
from renderer.operator.checkpoint_hash import CheckpointDecodeError, checkpoint_id_of
from renderer.record import Record, replace
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.binding import BoundCheckpoint

# The label that marks the capture job's pod (admission §1: exempt from binding checks).
CHECKPOINT_SOURCE_LABEL = consts.CHECKPOINT_SOURCE_LABEL
WAIT_FOR_CHECKPOINT = "WaitForCheckpoint"

# Shapes (admission §1)
SOURCE = "checkpoint source"
SHAPED = "already shaped"
CANDIDATE = "restore candidate"
ORDINARY = "ordinary"

# States of the checkpoint a workload restores from (admission §3)
UNNAMED = "unnamed"  # checkpointed, but nothing names its checkpoint yet
PENDING = "pending"  # named, not among the snapshots, nothing captured for its component
READY = "ready"
NOT_READY = "not ready"
SUPERSEDED = "superseded"  # a later capture for the same DGD component exists
MANUAL = "manual"
UNREADABLE = "unreadable"  # given, but no binding can be computed from it
CONFLICT = "conflict"  # captured twice with different bindings
UNTRUSTED = "untrusted"
AMBIGUOUS = "ambiguous"  # several snapshots carry the workload's checkpoint-ID label

# how a workload named its checkpoint (admission §2)
BY_REF = "checkpointRef"
BY_NAME = "annotation nvidia.com/dynamo-checkpoint-name"
BY_ID = f"label {CHECKPOINT_ID_LABEL}"


def capture_command(name: str, namespace: str) -> str:
    """What saves a checkpoint's snapshot for the repository."""
    ns = f" -n {namespace}" if namespace else ""
    return f"kubectl get dynamocheckpoint {name}{ns} -o yaml > {name}.yaml"


def shape_of(labels: Mapping[str, Any], annotations: Mapping[str, Any]) -> str:
    """The webhook's reading of a pod's metadata (admission §1), in its order."""
    if _set(labels.get(CHECKPOINT_SOURCE_LABEL)):
        return SOURCE
    if _set(labels.get(CHECKPOINT_ID_LABEL)):
        return SHAPED
    if annotations.get(RESTORE_CANDIDATE_KEY) == "true":
        return CANDIDATE
    return ORDINARY


def _set(value: Any) -> bool:
    return isinstance(value, str) and value != ""


class Subject(NamedTuple):
    """What the model needs to know of one workload (a DCD, or a PodCliqueSet clique)."""

    namespace: str
    shape: str
    checkpoint_ref: str | None  # a DCD's own checkpointRef
    checkpoint_name: str | None  # the pod template's / clique's checkpoint-name annotation
    checkpoint_id: str | None  # its checkpoint-ID label (already shaped)
    dgd_name: str
    component: str  # as the DGD spells it (the nvidia.com/dynamo-component label)


class Snapshot(Record):
    """One captured DynamoCheckpoint: its binding, or why it has none."""

    obj: SourceObject
    bound: BoundCheckpoint | None = None
    error: InputError | None = None  # cannot be bound (operator precondition or encoding)
    untrusted: str | None = None  # with --trusted-key: why its file is not trusted
    conflict: SourceObject | None = None  # another capture of the same name binds differently
    manual: bool = False  # not an automatic checkpoint: never bound, needs no binding

    def label(self, key: str) -> str:
        labels = self.obj.metadata.get("labels")
        value = labels.get(key) if isinstance(labels, dict) else None
        return value if isinstance(value, str) else ""


class Restore(NamedTuple):
    """The model's answer for one workload."""

    shape: str
    name: str | None  # the checkpoint it restores from
    named_by: str  # BY_REF, BY_NAME, BY_ID, or "" when nothing names it
    snapshot: Snapshot | None
    state: str
    expected: str | None  # the binding it must carry (None: not known, or none)
    reason: str | None  # why `expected` is None
    superseded_by: Snapshot | None = None

    @property
    def manual(self) -> bool:
        return self.state == MANUAL


def in_namespace(obj: SourceObject, namespace: str) -> SourceObject:
    """`obj` with `metadata.namespace` set to `namespace` when it has none (a snapshot file
    saved without it is the object of the namespace it is used in); else `obj` itself."""
    metadata = obj.data.get("metadata")
    if not namespace or not isinstance(metadata, dict) or metadata.get("namespace"):
        return obj
    data = dict(obj.data)
    data["metadata"] = {**metadata, "namespace": namespace}
    return replace(obj, data=data)


def bind_snapshot(obj: SourceObject) -> Snapshot:
    """One DynamoCheckpoint bound (an unbindable one keeps its error for the rules)."""
    if is_manual(obj):
        return Snapshot(obj, manual=True)
    try:
        return Snapshot(obj, bound=bind(obj))
    except InputError as exc:
        return Snapshot(obj, error=exc)


def build_snapshots(objects: Sequence[SourceObject]) -> list[Snapshot]:
    """Bind every DynamoCheckpoint once, each object once."""
    snapshots: list[Snapshot] = []
    seen: set[tuple[str, int, int | None]] = set()
    for obj in objects:
        if not is_checkpoint(obj):
            continue
        identity = (obj.file, obj.doc_index, obj.item_index)
        if identity in seen:
            continue
        seen.add(identity)
        snapshots.append(bind_snapshot(obj))
    return snapshots


def _value(snap: Snapshot) -> str | None:
    return snap.bound.value if snap.bound is not None else None


def index_snapshots(snapshots: Sequence[Snapshot]) -> dict[tuple[str, str], Snapshot]:
    """The first capture of each (namespace, name); a later capture of the same name that
    binds differently marks both as conflicting (the workloads naming it are unverifiable)."""
    by_name: dict[tuple[str, str], Snapshot] = {}
    for snap in snapshots:
        key = (snap.obj.namespace, snap.obj.name)
        first = by_name.get(key)
        if first is None:
            by_name[key] = snap
        elif _value(first) != _value(snap):
            first.conflict = snap.obj
            snap.conflict = first.obj
    return by_name


class CheckpointModel:
    """The snapshots given, and each workload's checkpoint among them (cached)."""

    def __init__(
        self,
        snapshots: Sequence[Snapshot],
        by_name: dict[tuple[str, str], Snapshot] | None = None,
    ) -> None:
        self.by_name = index_snapshots(snapshots) if by_name is None else by_name
        # one capture of each name, in the order read: a run split by file shares the index
        # and not the list, so the model reads the index alone (the same in every part)
        self.snapshots = list(self.by_name.values())
        self._localized: dict[tuple[int, str], Snapshot] = {}

    # -- finding snapshots ---------------------------------------------------------------

    def lookup(self, namespace: str, name: str) -> Snapshot | None:
        """The snapshot of that name the workload's namespace holds (a snapshot without a
        namespace is that namespace's object, and is bound as such)."""
        snap = self.by_name.get((namespace, name))
        if snap is not None:
            return snap
        snap = self.by_name.get(("", name))
        return None if snap is None else self.localized(snap, namespace)

    def localized(self, snap: Snapshot, namespace: str) -> Snapshot:
        """`snap` as the object of `namespace` (itself when it has its own namespace)."""
        if snap.obj.namespace or not namespace:
            return snap
        key = (id(snap), namespace)
        found = self._localized.get(key)
        if found is None:
            found = bind_snapshot(in_namespace(snap.obj, namespace))
            found.untrusted = snap.untrusted
            found.conflict = snap.conflict
            self._localized[key] = found
        return found

    def _in(self, namespace: str) -> list[Snapshot]:
        return [s for s in self.snapshots if s.obj.namespace in (namespace, "")]

    def _by_id(self, namespace: str, checkpoint_id: str) -> list[Snapshot]:
        found: dict[str, Snapshot] = {}
        for snap in self._in(namespace):
            if checkpoint_id in (snap.label(CHECKPOINT_ID_LABEL), _operator_id(snap)):
                found.setdefault(snap.obj.name, snap)
        return list(found.values())

    def superseding(
        self, namespace: str, dgd_name: str, component: str, given: Snapshot
    ) -> Snapshot | None:
        """A capture for the same DGD component that replaces `given`: an automatic snapshot
        for another worker hash, created later (both creation times are needed: without
        them which capture is current is not known, and nothing is claimed)."""
        own_time = _created(given)
        if not dgd_name or not component or not own_time:
            return None
        own_hash = given.label(WORKER_HASH_LABEL)
        best: Snapshot | None = None
        for snap in self._in(namespace):
            if snap.manual or snap.obj.name == given.obj.name:
                continue
            if snap.label(DGD_NAME_LABEL) != dgd_name or snap.label(COMPONENT_LABEL) != component:
                continue
            created = _created(snap)
            if created <= own_time or snap.label(WORKER_HASH_LABEL) == own_hash:
                continue
            if best is None or created > _created(best):
                best = snap
        return best

    def captures_for(self, namespace: str, dgd_name: str, component: str) -> list[Snapshot]:
        """The automatic snapshots whose labels name this DGD component."""
        return [
            s
            for s in self._in(namespace)
            if not s.manual
            and dgd_name
            and component
            and s.label(DGD_NAME_LABEL) == dgd_name
            and s.label(COMPONENT_LABEL) == component
        ]

    # -- the answer ----------------------------------------------------------------------

    def restore(self, subject: Subject) -> Restore:
        shape, namespace = subject.shape, subject.namespace
        if subject.checkpoint_ref:
            name, by = subject.checkpoint_ref, BY_REF
        elif subject.checkpoint_name:
            name, by = subject.checkpoint_name, BY_NAME
        elif shape == SHAPED and subject.checkpoint_id:
            matches = self._by_id(namespace, subject.checkpoint_id)
            if len(matches) > 1:
                listed = ", ".join(sorted(s.obj.name for s in matches))
                return Restore(
                    shape,
                    None,
                    BY_ID,
                    None,
                    AMBIGUOUS,
                    None,
                    f"{len(matches)} snapshots carry checkpoint ID {subject.checkpoint_id}"
                    f" ({listed}); name the checkpoint with nvidia.com/dynamo-checkpoint-name",
                )
            if not matches:
                return self._absent(subject, None, BY_ID)
            found = self.localized(matches[0], namespace)
            return self._state(subject, found.obj.name, BY_ID, found)
        else:
            return Restore(shape, None, "", None, UNNAMED, None, "names no checkpoint")
        snap = self.lookup(namespace, name)
        if snap is None:
            return self._absent(subject, name, by)
        return self._state(subject, name, by, snap)

    def _absent(self, subject: Subject, name: str | None, by: str) -> Restore:
        what = name or f"with checkpoint ID {subject.checkpoint_id}"
        reason = f"checkpoint {what} is not among the snapshots (not captured yet, or not saved)"
        others = self.captures_for(subject.namespace, subject.dgd_name, subject.component)
        if others:
            # which of the two is current only the DGD's worker spec says (lint --dgd)
            listed = ", ".join(sorted({s.obj.name for s in others}))
            reason += (
                f"; the snapshots hold {listed} for the same component: if that capture is the"
                " current one, render again with it"
            )
        return Restore(subject.shape, name, by, None, PENDING, None, reason)

    def _state(self, subject: Subject, name: str, by: str, snap: Snapshot) -> Restore:
        shape = subject.shape
        where = f"{snap.obj.namespace or subject.namespace}/{name}"
        if snap.conflict is not None:
            return Restore(
                shape,
                name,
                by,
                snap,
                CONFLICT,
                None,
                f"checkpoint {where} is captured twice with different bindings"
                f" ({snap.obj.where()} and {snap.conflict.where()})",
            )
        if snap.untrusted is not None:
            return Restore(
                shape,
                name,
                by,
                snap,
                UNTRUSTED,
                None,
                f"checkpoint {where} is not trusted: {snap.untrusted}",
            )
        if snap.manual:
            return Restore(
                shape,
                name,
                by,
                snap,
                MANUAL,
                None,
                f"checkpoint {where} is a manual checkpoint: the operator binds only automatic"
                " ones, and the pod webhook denies a binding on any other",
            )
        if snap.bound is None:
            message = snap.error.message if snap.error is not None else "cannot be bound"
            return Restore(
                shape,
                name,
                by,
                snap,
                UNREADABLE,
                None,
                f"checkpoint {where} cannot be bound: {message}",
            )
        dgd = snap.label(DGD_NAME_LABEL) or subject.dgd_name
        component = snap.label(COMPONENT_LABEL) or subject.component
        later = self.superseding(subject.namespace, dgd, component, snap)
        if later is not None:
            return Restore(
                shape,
                name,
                by,
                snap,
                SUPERSEDED,
                snap.bound.value,
                f"checkpoint {where} was superseded by {later.obj.name}, captured later for"
                f" component {component!r} of DGD {dgd}",
                later,
            )
        ready = snap.bound.checkpoint.ready
        return Restore(shape, name, by, snap, READY if ready else NOT_READY, snap.bound.value, None)


def _created(snap: Snapshot | None) -> str:
    """Its creationTimestamp (RFC 3339 in UTC, as the API server writes it, so the text
    orders as the time does); "" when absent."""
    if snap is None:
        return ""
    value = snap.obj.metadata.get("creationTimestamp")
    return value if isinstance(value, str) else ""


def _operator_id(snap: Snapshot) -> str:
    """The checkpoint ID the operator reads from the object (status first, then the label,
    then its identity): what it writes into a shaped pod's checkpoint-ID label."""
    try:
        return checkpoint_id_of(snap.obj.data)
    except CheckpointDecodeError:  # a snapshot Go cannot decode
        return ""
