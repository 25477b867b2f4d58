"""Which captured snapshot each checkpointed component restores from, found as the operator
finds it, and the binding computed from it.

The pinned operator never reads a snapshot's labels to find it. Per component with
`experimental.checkpoint.enabled` it reads exactly one DynamoCheckpoint in the DGD's
namespace: `checkpointRef` when set, else `checkpoint-<DGDCheckpointID(namespace, DGD name,
DGD uid, component, worker hash)>`, and refuses a found object whose checkpoint ID is not
that ID (renderer.operator.checkpoint_id). The DGD uid is the API server's: offline it is
given (`--dgd-uid`, a config entry's `dgdUID:`), else the DGD's `metadata.uid`, else a
snapshot's controller ownerReference to the DGD.

The life of an automatic checkpoint (docs/admission.md section 3) is followed, never
blocked: when the checkpoint the operator reads is not among the snapshots, the operator
creates it and renders the component before the capture (restore-candidate metadata, no
binding); so does render, with one warning naming the checkpoint and the `kubectl get` that
saves it (`Pending`). A snapshot whose labels name the component but that is not the one
the operator reads (captured before the worker spec changed: another worker hash, so
another name) is a warning that it is outdated. Without any uid the checkpoint cannot be
named: the labelled snapshot is used, with a warning that the check could not run, or,
with none, the component is rendered without the name (state 0).

Only automatic checkpoints of worker-class components are bound; a manual checkpoint (one
without the automatic marker `nvidia.com/dynamo-auto-checkpoint: "true"`, the operator's
own test, renderer.binding.checkpoint.is_manual) needs no binding, whatever its labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import renderer.binding  # noqa: F401
from renderer.binding import bind
from renderer.binding.checkpoint import (
    checkpoint_from_object,
    is_checkpoint,
    is_manual,
    type_error,
    unbindable_path,
    unbindable_reason,
)
from renderer.constants import DGD_KIND
from renderer.errors import BindingError, InputError
from renderer.jsoncopy import deep_copy
from renderer.keys import CHECKPOINT_ID_LABEL
from renderer.model.checkpoint import in_namespace
from renderer.operator.checkpoint_hash import (
    CheckpointDecodeError,
    checkpoint_id_of,
    checkpoint_name,
    dgd_checkpoint_id,
)
from renderer.record import Record, field
from renderer.render.locate import component_path
from renderer.source.model import Path, SourceObject
from renderer.workloads import is_worker_type

if TYPE_CHECKING:
    from renderer.binding.checkpoint import Checkpoint

JSON = dict[str, Any]


class Resolved(NamedTuple):
    """One checkpointed component's snapshot (None: the operator creates it) and binding."""

    component: str
    snapshot: Checkpoint | None
    binding: str | None  # None: not bound (manual checkpoint, or not worker-class)


class Pending(NamedTuple):
    """A checkpointed component whose checkpoint is not among the snapshots (not captured
    yet, or not committed): rendered as the operator renders it before the capture."""

    component: str
    checkpoint: str  # the DynamoCheckpoint the operator reads ("": needs the DGD uid)
    namespace: str


class Lookups(NamedTuple):
    """What names automatic checkpoints beyond the DGD and its snapshots."""

    dgd_uid: str | None = None  # the live DGD's uid (None: metadata.uid, an ownerReference)
    dgd_uid_source: str = "--dgd-uid"  # how messages name where it came from
    snapshot_dir: str | None = None  # where the capture advice saves a snapshot


class Resolution(Record):
    """What render hands the operator, and how to read its output back."""

    operator_inputs: list[JSON]  # the DynamoCheckpoint objects the operator may read
    dgd_uid: str
    components: dict[str, Resolved] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # (name, ID) the operator is given -> (name, ID) of the snapshot, for a snapshot used
    # without the uid check (see `_unverified`)
    renames: dict[str, str] = field(default_factory=dict)
    pending: list[Pending] = field(default_factory=list)  # in component order
    # the names and IDs the operator computes with no DGD uid (state 0): not the live
    # ones, so the rendered objects leave out every value that holds one
    unnamed: set[str] = field(default_factory=set)
    # snapshots of a checkpointed component the operator no longer reads (warned about)
    outdated: list[Checkpoint] = field(default_factory=list)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(
            sorted({r.snapshot.source.file for r in self.components.values() if r.snapshot})
        )


def _where(obj: SourceObject) -> str:
    return obj.where(("metadata", "name"))


def _files(objects: Sequence[SourceObject]) -> str:
    files = sorted({o.file for o in objects})
    return f"searched {', '.join(files)}" if files else "no --checkpoint given"


def checkpoint_path(dgd: SourceObject, name: str, *rest: str) -> Path:
    """The component's checkpoint block (v1beta1 experimental.checkpoint, v1alpha1 checkpoint)."""
    base = component_path(dgd, name) or ("metadata", "name")
    if base[:2] == ("spec", "services"):
        return (*base, "checkpoint", *rest)
    return (*base, "experimental", "checkpoint", *rest)


class MissingCheckpointRef(InputError):
    """A checkpointRef names no given snapshot. The operator refuses that component too, but
    stops at the first failing checkpoint component, so render reports this only when the
    operator's first failure is this one (``component`` names it)."""

    def __init__(self, message: str, where: tuple[str, int, int], component: str) -> None:
        super().__init__(message, *where)
        self.component = component


def _error_at(obj: SourceObject, path: Path, message: str, *, key: bool = True) -> InputError:
    mark = obj.mark(path, key=key)
    return InputError(message, obj.file, mark.line, mark.column)


def _bind(component: str, checkpoint: Checkpoint, warnings: list[str], namespace: str) -> str:
    label = f"checkpoint {checkpoint.namespace}/{checkpoint.name}"
    reason = unbindable_reason(checkpoint)
    if reason is not None:
        obj = checkpoint.source
        mark = obj.mark(unbindable_path(checkpoint))
        raise BindingError(
            f"component {component!r}: {label} cannot be bound: {reason}",
            obj.file,
            mark.line,
            mark.column,
        )
    try:
        # a snapshot saved without its namespace is the DGD namespace's object
        bound = bind(in_namespace(checkpoint.source, namespace))
    except BindingError as exc:
        raise BindingError(
            f"component {component!r}: {label} cannot be bound: {exc.message}",
            exc.file,
            exc.line,
            exc.column,
        ) from None
    warnings.extend(bound.warnings)  # already located (file:line:column)
    return bound.value


def _owner_uid(checkpoints: Sequence[Checkpoint], namespace: str, dgd_name: str) -> str:
    """The DGD uid from a snapshot's controller ownerReference to this DGD ("" if none)."""
    for cp in checkpoints:
        if cp.namespace != namespace:
            continue
        refs = (cp.source.data.get("metadata") or {}).get("ownerReferences")
        for ref in refs if isinstance(refs, list) else []:
            if (
                isinstance(ref, dict)
                and ref.get("controller") is True
                and ref.get("kind") == DGD_KIND
                and ref.get("name") == dgd_name
                and isinstance(ref.get("uid"), str)
                and ref["uid"]
            ):
                return str(ref["uid"])
    return ""


def _checkpoint_config(component: JSON) -> JSON | None:
    cfg = (component.get("experimental") or {}).get("checkpoint")
    return cfg if isinstance(cfg, dict) and cfg.get("enabled") else None


def resolve_snapshots(  # noqa: PLR0917 - one call site, all inputs needed
    dgd: SourceObject,
    admitted: JSON,
    objects: Sequence[SourceObject],
    worker_hash: str,
    namespace: str,
    dgd_uid: str | None = None,
    *,
    warn_unused: bool = True,
    dgd_uid_source: str = "--dgd-uid",
    snapshot_dir: str | None = None,
) -> Resolution:
    """Resolve every checkpoint-enabled component of the admitted DGD (see the docstring).
    `warn_unused=False` leaves out the warning for a snapshot no component restores from
    (a caller rendering several DGDs gives it once, for the snapshots none of them uses).
    `dgd_uid`: the live DGD's uid, given as `dgd_uid_source` says; `snapshot_dir`: where
    the advice saves a snapshot to capture (None: the working directory)."""
    # The binding package first: its checkpoint model imports its helpers.

    warnings: list[str] = []
    checkpoints: list[Checkpoint] = []
    for obj in objects:
        if is_checkpoint(obj):
            checkpoints.append(checkpoint_from_object(obj))
            try:
                checkpoint_id_of(obj.data)  # the fields the operator reads its ID from
            except CheckpointDecodeError as err:
                raise type_error(obj, err.path, err.expected, err.value) from None
        else:
            warnings.append(
                f"{obj.where()}: ignoring {obj.kind or 'object'} {obj.name!r}: "
                "not a DynamoCheckpoint"
            )
    dgd_name = str((admitted.get("metadata") or {}).get("name", ""))
    uid = dgd_uid or ""
    uid_from = dgd_uid_source if uid else ""
    if not uid:
        uid = str((admitted.get("metadata") or {}).get("uid") or "")
        uid_from = "metadata.uid" if uid else ""
    if not uid:
        uid = _owner_uid(checkpoints, namespace, dgd_name)
        uid_from = "a snapshot's controller ownerReference" if uid else ""
    # The operator reads DynamoCheckpoints of the DGD's namespace only.
    local = [cp for cp in checkpoints if (cp.namespace or namespace) == namespace]
    res = Resolution([deep_copy(cp.source.data) for cp in local], uid, warnings=warnings)
    used: set[int] = set()
    for component in (admitted.get("spec") or {}).get("components") or []:
        cfg = _checkpoint_config(component)
        if cfg is None:
            continue
        name = str(component.get("name", ""))
        worker = is_worker_type(component.get("type"))
        ref = cfg.get("checkpointRef") or ""
        if ref:
            found = _by_name(checkpoints, namespace, ref, name)
            if found is None:
                mark = dgd.mark(checkpoint_path(dgd, name, "checkpointRef"), key=True)
                raise MissingCheckpointRef(
                    f"component {name!r}: checkpointRef {ref!r}: no DynamoCheckpoint of that name"
                    f" in namespace {namespace!r} ({_files(objects)}); the operator refuses to"
                    " render without it: pass its snapshot with --checkpoint",
                    (dgd.file, mark.line, mark.column),
                    name,
                )
            bound = (
                _bind(name, found, res.warnings, namespace)
                if worker and _automatic(found)
                else None
            )
        else:
            found = _automatic_lookup(
                dgd,
                res,
                checkpoints,
                objects,
                _Lookup(name, worker, worker_hash, namespace, uid_from, snapshot_dir),
            )
            bound = (
                _bind(name, found, res.warnings, namespace)
                if worker and found is not None
                else None
            )
        if found is not None:
            used.add(id(found))
            if not found.phase:
                res.warnings.append(
                    f"{_where(found.source)}: component {name!r}: checkpoint {found.name} has"
                    " no status.phase, so it is not Ready (the operator restores only from a"
                    " Ready checkpoint)"
                )
        res.components[name] = Resolved(name, found, bound)
    used.update(id(cp) for cp in res.outdated)
    for cp in checkpoints if warn_unused else ():
        if id(cp) not in used:
            res.warnings.append(
                f"{_where(cp.source)}: checkpoint {cp.namespace}/{cp.name} matches no"
                f" checkpoint-enabled component of DGD {namespace}/{dgd_name}"
            )
    return res


def _automatic(cp: Checkpoint) -> bool:
    """Bound unless manual (a broken automatic one, marked but without its uid, generation or
    ID label, fails binding with its reason)."""
    return not is_manual(cp.source)


def _by_name(
    checkpoints: Sequence[Checkpoint], namespace: str, name: str, component: str
) -> Checkpoint | None:
    """The one snapshot of that name in the namespace (InputError when several are given:
    the cluster holds one object of a name, and which one was captured is not known)."""
    found = [c for c in checkpoints if c.name == name and (c.namespace or namespace) == namespace]
    if any(cp.source.data != found[0].source.data for cp in found[1:]):
        listed = "; ".join(_where(cp.source) for cp in found)
        first = found[1].source
        raise _error_at(
            first,
            ("metadata", "name"),
            f"component {component!r}: {len(found)} snapshots of checkpoint {namespace}/{name}"
            f" are given ({listed});"
            " the operator reads one object of that name: keep exactly one",
            key=False,
        )
    return found[0] if found else None


def _labelled(
    checkpoints: Sequence[Checkpoint], namespace: str, dgd_name: str, component: str
) -> list[Checkpoint]:
    """What the labels would match (how this tool found snapshots before it followed the
    operator): used only to explain a refusal, or when the uid is unknown."""
    return [
        cp
        for cp in checkpoints
        if cp.dgd_name == dgd_name
        and cp.component == component
        and (cp.namespace or namespace) == namespace
    ]


class _Lookup(NamedTuple):
    """One automatic checkpoint to find, and what the messages about it need."""

    component: str
    worker: bool
    worker_hash: str
    namespace: str
    uid_from: str
    snapshot_dir: str | None


def _automatic_lookup(
    dgd: SourceObject,
    res: Resolution,
    checkpoints: Sequence[Checkpoint],
    objects: Sequence[SourceObject],
    lookup: _Lookup,
) -> Checkpoint | None:
    name, worker, worker_hash, namespace = (
        lookup.component,
        lookup.worker,
        lookup.worker_hash,
        lookup.namespace,
    )
    dgd_name = str(dgd.data.get("metadata", {}).get("name", "")) or dgd.name
    hash_for_id = worker_hash if worker else ""
    labelled = _labelled(checkpoints, namespace, dgd_name, name)
    if not res.dgd_uid:
        if labelled:
            return _unverified(dgd, res, labelled, name, hash_for_id, namespace)
        _unnamed(dgd, res, name, hash_for_id, namespace)
        res.warnings[-1] += _elsewhere(checkpoints, namespace, dgd_name, name, "")
        return None
    expected = dgd_checkpoint_id(namespace, dgd_name, res.dgd_uid, name, hash_for_id)
    wanted = checkpoint_name(expected)
    identity = (
        f"DGDCheckpointID of namespace {namespace!r}, DGD {dgd_name!r}, uid {res.dgd_uid}"
        f" (from {lookup.uid_from}), component {name!r}"
        + (f", worker hash {worker_hash}" if hash_for_id else "")
    )
    found = _by_name(checkpoints, namespace, wanted, name)
    if found is not None:
        found_id = checkpoint_id_of(found.source.data)
        if found_id != expected:
            status = found.source.data.get("status")
            path: Path = (
                ("status", "checkpointID")
                if isinstance(status, dict) and status.get("checkpointID")
                else ("metadata", "labels", CHECKPOINT_ID_LABEL)
            )
            raise _error_at(
                found.source,
                path,
                f"component {name!r}: checkpoint {wanted} has checkpoint ID {found_id}, but the"
                f" operator expects {expected} ({identity}) and refuses it",
                key=False,
            )
        for other in labelled:
            if other.source is not found.source:
                res.outdated.append(other)
                res.warnings.append(
                    _outdated(other, lookup, wanted, res.dgd_uid, dgd_name, captured=True)
                )
        return found
    for other in labelled:
        res.outdated.append(other)
        res.warnings.append(_outdated(other, lookup, wanted, res.dgd_uid, dgd_name))
    save = (
        f"{lookup.snapshot_dir.rstrip('/')}/{wanted}.yaml"
        if lookup.snapshot_dir
        else (f"{wanted}.yaml")
    )
    res.pending.append(Pending(name, wanted, namespace))
    res.warnings.append(
        f"{dgd.where(checkpoint_path(dgd, name))}: component {name!r}: checkpoint"
        f" {namespace}/{wanted} (DGD uid {res.dgd_uid} from {lookup.uid_from}"
        + (f", worker hash {worker_hash}" if hash_for_id else "")
        + ") is not captured yet: the operator creates it and runs its capture job, and the"
        " component is rendered as the operator renders it until then (no binding); once it"
        " is Ready, save it with"
        f" `kubectl get dynamocheckpoint {wanted} -n {namespace} -o yaml > {save}` and render"
        " again" + _elsewhere(checkpoints, namespace, dgd_name, name, wanted)
    )
    return None


def _outdated(
    other: Checkpoint,
    lookup: _Lookup,
    wanted: str,
    dgd_uid: str,
    dgd_name: str,
    *,
    captured: bool = False,
) -> str:
    """The warning for a committed snapshot of the component that the operator no longer
    reads (state 3 of a checkpoint's life)."""
    owner = _owner_uid([other], lookup.namespace, dgd_name)
    if lookup.worker and other.worker_hash and other.worker_hash != lookup.worker_hash:
        why = (
            f"it was captured for worker hash {other.worker_hash}, and the DGD's worker spec"
            f" has changed since (its worker hash is now {lookup.worker_hash})"
        )
    elif owner and owner != dgd_uid:
        why = (
            f"its owner is DGD {dgd_name!r} uid {owner} (its controller ownerReference), not"
            f" uid {dgd_uid}: the DGD was deleted and created again since the capture"
        )
    else:
        why = f"its name is not {wanted}"
    if captured:
        return (
            f"{_where(other.source)}: component {lookup.component!r}: snapshot {other.name} is"
            f" outdated: {why}; the operator restores from checkpoint {wanted}, whose snapshot"
            " is given: remove this one"
        )
    return (
        f"{_where(other.source)}: component {lookup.component!r}: snapshot {other.name} is"
        f" outdated: {why}; the operator never reads it and restores from checkpoint {wanted}"
        " once that is captured (naming the old snapshot with checkpointRef would restore a"
        " process captured from another spec); remove it once the new one is saved"
    )


def _unnamed(
    dgd: SourceObject, res: Resolution, name: str, hash_for_id: str, namespace: str
) -> None:
    """No DGD uid and no snapshot (state 0): what the operator renders before the capture,
    without the checkpoint name, which needs the uid the API server assigns."""
    placeholder_id = dgd_checkpoint_id(namespace, dgd.name, "", name, hash_for_id)
    res.unnamed.update((placeholder_id, checkpoint_name(placeholder_id)))
    res.pending.append(Pending(name, "", namespace))
    res.warnings.append(
        f"{dgd.where(checkpoint_path(dgd, name))}: component {name!r}: its checkpoint cannot"
        " be named yet: checkpoint-<DGDCheckpointID> needs the DGD's uid, which the API server"
        " assigns when the DGD is applied (and no snapshot names it); rendered as the operator"
        " renders it before the capture, without nvidia.com/dynamo-checkpoint-name and the"
        " DCD's checkpointRef; once applied, give the uid with --dgd-uid (or dgdUID: in the"
        f" config entry): `kubectl get dynamographdeployment {dgd.name} -n {namespace} -o"
        " jsonpath='{.metadata.uid}'`"
    )


def _unverified(  # noqa: PLR0917
    dgd: SourceObject,
    res: Resolution,
    labelled: list[Checkpoint],
    name: str,
    hash_for_id: str,
    namespace: str,
) -> Checkpoint | None:
    """No DGD uid: use the one snapshot the labels name, and say it could not be checked.

    The operator is given that snapshot under the name it computes with an empty uid (and
    that ID), and its output is read back with the snapshot's own name and ID, so the
    restore metadata names the snapshot that was given.
    """
    dgd_name = dgd.name
    search = (
        f"labels dynamo-graph-deployment-name={dgd_name!r}, dynamo-component={name!r} in"
        f" namespace {namespace!r}"
    )
    if len(labelled) > 1:
        listed = "; ".join(f"{c.name} at {_where(c.source)}" for c in labelled)
        raise _error_at(
            dgd,
            checkpoint_path(dgd, name),
            f"component {name!r}: {len(labelled)} captured checkpoints match ({search}):"
            f" {listed}; keep exactly one",
        )
    found = labelled[0]
    res.warnings.append(
        f"{_where(found.source)}: component {name!r}: could not check that the operator"
        f" restores from checkpoint {found.name}: its name is checkpoint-<DGDCheckpointID>,"
        " which needs the DGD uid, and none was given (--dgd-uid, dgdUID: in the config"
        " entry) nor found (no snapshot has a controller ownerReference to the DGD: kubectl"
        " get -o yaml keeps it); found by its labels instead"
    )
    placeholder_id = dgd_checkpoint_id(namespace, dgd_name, "", name, hash_for_id)
    placeholder = checkpoint_name(placeholder_id)
    given = deep_copy(found.source.data)
    meta = given.setdefault("metadata", {})
    meta["name"] = placeholder
    meta.pop("ownerReferences", None)
    given.setdefault("status", {})["checkpointID"] = placeholder_id
    res.operator_inputs.append(given)
    res.renames[placeholder] = found.name
    res.renames[placeholder_id] = checkpoint_id_of(found.source.data)
    return found


def _elsewhere(
    checkpoints: Sequence[Checkpoint], namespace: str, dgd_name: str, component: str, wanted: str
) -> str:
    """`; snapshot X (FILE:LINE:COL) is in namespace 'a', not 'b'` for the snapshots that
    would be the one but for their namespace (the operator reads its DGD's namespace
    only), so the message says what differs instead of only that nothing matched."""
    misses = [
        cp
        for cp in checkpoints
        if cp.namespace
        and cp.namespace != namespace
        and (cp.name == wanted or (cp.dgd_name == dgd_name and cp.component == component))
    ]
    return "".join(
        f"; snapshot {cp.name} ({_where(cp.source)}) is in namespace {cp.namespace!r}, not the"
        f" DGD's {namespace!r}, and the operator reads its own namespace only"
        for cp in misses[:3]
    )
