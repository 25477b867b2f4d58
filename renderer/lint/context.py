"""What rules see: the linted workloads, the captured snapshots, and how they match.

Matching is the operator's: a workload names its checkpoint with the
`nvidia.com/dynamo-checkpoint-name` annotation (DCD pod template, or the clique), and the
pod webhook reads the DynamoCheckpoint of that name in the workload's namespace. Every
expensive step (binding a snapshot, parsing a binding) runs once and is cached here.

Only automatic checkpoints (annotation `nvidia.com/dynamo-auto-checkpoint: "true"`) are
bound. A manual one is a snapshot like any other for the pod webhook, which restores from
it without asking for a binding: it is not bound, is no error, and a workload restoring
from it needs no binding (`Resolution.manual`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.errors import BindingFormatError, InputError
from renderer.gojson import encode_string
from renderer.keys import DGD_NAME_LABEL
from renderer.lint.sites import (
    MAP_PATH,
    Copy,
    PcsSites,
    Workload,
    dcd_workload,
    iter_dcds,
    iter_pcss,
    pcs_sites,
)
from renderer.record import Record
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.binding import Binding, BoundCheckpoint
    from renderer.lint.checks import Mismatch


class Snapshot(Record):
    """One captured DynamoCheckpoint: its binding, or why it has none."""

    _fields = ("obj", "bound", "error", "untrusted", "conflict", "manual")
    obj: SourceObject
    bound: BoundCheckpoint | None
    error: InputError | None  # cannot be bound (operator precondition or encoding)
    untrusted: str | None  # with --trusted-key: why its file is not trusted
    conflict: SourceObject | None  # another capture of the same name binds differently
    manual: bool  # not an automatic checkpoint: never bound, needs no binding

    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        obj: SourceObject,
        bound: BoundCheckpoint | None = None,
        error: InputError | None = None,
        untrusted: str | None = None,
        conflict: SourceObject | None = None,
        manual: bool = False,
    ) -> None:
        self.obj = obj
        self.bound = bound
        self.error = error
        self.untrusted = untrusted
        self.conflict = conflict
        self.manual = manual


class Resolution(NamedTuple):
    """The checkpoint a workload names, and the binding it must carry (None: unverifiable)."""

    name: str | None
    snapshot: Snapshot | None
    expected: str | None
    reason: str | None  # why it cannot be verified, when `expected` is None
    manual: bool = False  # the checkpoint is a manual one: the workload needs no binding


class LintContext(Record):
    """Everything a rule can see; the fields are the whole of it (no side channel)."""

    _fields = (
        "objects",
        "snapshots",
        "strict",
        "trust_checked",
        "dgd",
        "schemas",
        "dcds",
        "pcss",
        "mismatches",
        "operator",
        "by_name",
        "_parsed",
        "_resolved",
    )
    _compare = (
        "objects",
        "snapshots",
        "strict",
        "trust_checked",
        "dgd",
        "schemas",
        "dcds",
        "pcss",
        "mismatches",
        "operator",
        "by_name",
        "_by_name",
        "_parsed",
        "_resolved",
    )
    objects: list[SourceObject]  # the linted objects (DCD, PCS, DynamoCheckpoint)
    snapshots: list[Snapshot]
    strict: bool
    trust_checked: bool  # --trusted-key was given: `Snapshot.untrusted` is set
    dgd: SourceObject | None  # --dgd: render-drift compares against a fresh render
    # --crd: (apiVersion, kind) -> schema, replacing the bundled one (rule `schema`)
    schemas: Mapping[tuple[str, str], dict[str, Any]] | None
    dcds: list[Workload]
    pcss: list[PcsSites]
    # every present copy that would be refused, classified once (`checks.mismatches`)
    mismatches: list[Mismatch] | None
    # render-drift renders with this OperatorConfig (None: the pinned defaults)
    operator: Any
    # The snapshots by (namespace, name), with conflicts marked: `index_snapshots` of
    # `snapshots` when not given. A run split by file builds it once for all its parts.
    by_name: dict[tuple[str, str], Snapshot] | None
    _by_name: dict[tuple[str, str], Snapshot]
    _parsed: dict[str, Binding | str]
    _resolved: dict[int, Resolution]

    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        objects: list[SourceObject],
        snapshots: list[Snapshot],
        strict: bool = False,
        trust_checked: bool = False,
        dgd: SourceObject | None = None,
        schemas: Mapping[tuple[str, str], dict[str, Any]] | None = None,
        dcds: list[Workload] | None = None,
        pcss: list[PcsSites] | None = None,
        mismatches: list[Mismatch] | None = None,
        operator: Any = None,
        by_name: dict[tuple[str, str], Snapshot] | None = None,
        _parsed: dict[str, Binding | str] | None = None,
        _resolved: dict[int, Resolution] | None = None,
    ) -> None:
        self.objects = objects
        self.snapshots = snapshots
        self.strict = strict
        self.trust_checked = trust_checked
        self.dgd = dgd
        self.schemas = schemas
        self.dcds = [] if dcds is None else dcds
        self.pcss = [] if pcss is None else pcss
        self.mismatches = mismatches
        self.operator = operator
        self.by_name = by_name
        self._parsed = {} if _parsed is None else _parsed
        self._resolved = {} if _resolved is None else _resolved
        self._index()

    def _index(self) -> None:
        enabled = _dgd_checkpointed(self.dgd)
        self.dcds = [
            dcd_workload(o, enabled, of_dgd=True)
            if _of_dgd(o, self.dgd, graph_label=True)
            else dcd_workload(o)
            for o in iter_dcds(self.objects)
        ]
        self.pcss = [
            pcs_sites(o, enabled if _of_dgd(o, self.dgd, graph_label=False) else frozenset())
            for o in iter_pcss(self.objects)
        ]
        if self.by_name is None:
            self.by_name = index_snapshots(self.snapshots)
        self._by_name = self.by_name

    def workloads(self) -> Iterator[Workload]:
        yield from self.dcds
        for pcs in self.pcss:
            yield from pcs.workloads

    def parse(self, value: str) -> Binding | str:
        """The parsed binding, or the operator's parse message."""
        found = self._parsed.get(value)
        if found is None:
            from renderer.binding import parse_binding

            try:
                found = parse_binding(value)
            except BindingFormatError as exc:
                found = str(exc)
            self._parsed[value] = found
        return found

    def resolve(self, workload: Workload) -> Resolution:
        cached = self._resolved.get(id(workload))
        if cached is None:
            cached = self._resolve(workload)
            self._resolved[id(workload)] = cached
        return cached

    def _named_by_uid(self, workload: Workload) -> str | None:
        """The checkpoint a workload's binding copies name by UID (`v1/<uid>/...`), when one
        snapshot of its namespace has that UID: the workload of a component waiting for a
        checkpoint that is not Ready carries no restore-candidate annotations (the operator
        writes none), so its binding is what names the checkpoint. Cliques only: such a DCD
        keeps the operator's checkpointRef."""
        if workload.clique is None:
            return None
        values = [c.value for c in workload.copies if c.value and c.value.count("/") == 3]
        uids = {value.split("/")[1] for value in values}
        found = {
            snap.obj.name
            for snap in self.snapshots
            if snap.obj.namespace == workload.obj.namespace
            and str((snap.obj.data.get("metadata") or {}).get("uid", "")) in uids
        }
        return found.pop() if len(found) == 1 else None

    def _resolve(self, workload: Workload) -> Resolution:
        # A DCD's checkpointRef first: the operator's DCD controller resolves that name and
        # rewrites (or drops) the pods' checkpoint-name annotation, which a DGD may carry.
        name = workload.checkpoint_ref or workload.checkpoint_name or self._named_by_uid(workload)
        if not name:
            return Resolution(
                name,
                None,
                None,
                f"{workload.label} names no checkpoint (annotation"
                f" {workload.checkpoint_name_path[-1]} is absent)",
            )
        namespace = workload.obj.namespace
        # a snapshot without a namespace is read as the workload's (as the operator reads it)
        snap = self._by_name.get((namespace, name)) or self._by_name.get(("", name))
        where = f"{namespace}/{name}" if namespace else name
        if snap is None:
            return Resolution(
                name,
                None,
                None,
                f"no captured checkpoint {where} for {workload.label}"
                " (pass the snapshot with --checkpoint)",
            )
        if snap.conflict is not None:
            return Resolution(
                name,
                snap,
                None,
                f"checkpoint {where} is captured twice with different bindings"
                f" ({snap.obj.where()} and {snap.conflict.where()})",
            )
        if snap.untrusted is not None:
            return Resolution(
                name, snap, None, f"checkpoint {where} is not trusted: {snap.untrusted}"
            )
        if snap.manual:
            return Resolution(
                name,
                snap,
                None,
                f"checkpoint {where} is a manual checkpoint: the operator binds only automatic"
                " ones, and its pod webhook restores from a manual one without a binding",
                manual=True,
            )
        if snap.bound is None:
            message = snap.error.message if snap.error is not None else "cannot be bound"
            return Resolution(name, snap, None, f"checkpoint {where} cannot be bound: {message}")
        return Resolution(name, snap, snap.bound.value, None)

    def desired_map(self, pcs: PcsSites) -> str | None:
        """The checkpoint map text `--fix` writes, or None when the PCS needs no map.

        Entries whose binding cannot be verified keep their current value (never guessed);
        entries for cliques that carry no binding are dropped.
        """
        entries: dict[str, str] = {}
        for workload in pcs.workloads:
            if workload.misplaced is not None or workload.clique is None:
                continue
            expected = self.resolve(workload).expected
            current = pcs.map.entries.get(workload.clique)
            if expected is not None:
                entries[workload.clique] = expected
            elif current is not None:
                entries[workload.clique] = current
        if not entries:
            return None
        body = ",".join(
            f"{encode_string(k)}:{encode_string(v)}" for k, v in sorted(entries.items())
        )
        return "{" + body + "}"

    def pcs_of(self, copy: Copy) -> PcsSites | None:
        if copy.path != MAP_PATH:
            return None
        return next((p for p in self.pcss if p.obj is copy.obj), None)


def _dgd_checkpointed(dgd: SourceObject | None) -> frozenset[str]:
    """Lower-cased names of the DGD's checkpoint-enabled worker components: v1beta1
    `spec.components[].experimental.checkpoint.enabled`, v1alpha1
    `spec.services.<name>.checkpoint.enabled` (a DGD that does not read has none here;
    render-drift reports it)."""
    from renderer.workloads import is_worker_type

    spec = dgd.data.get("spec") if dgd is not None else None
    if not isinstance(spec, dict):
        return frozenset()
    found: set[str] = set()
    components = spec.get("components")
    if isinstance(components, list):
        for c in components:
            if isinstance(c, dict) and is_worker_type(c.get("type")):
                experimental = c.get("experimental")
                if isinstance(experimental, dict) and _enabled(experimental.get("checkpoint")):
                    found.add(str(c.get("name", "")).lower())
    services = spec.get("services")
    if isinstance(services, dict):
        for name, c in services.items():
            worker = isinstance(c, dict) and is_worker_type(c.get("componentType"))
            if worker and _enabled(c.get("checkpoint")):
                found.add(str(name).lower())
    return frozenset(found)


def _enabled(checkpoint: Any) -> bool:
    return isinstance(checkpoint, dict) and checkpoint.get("enabled") is True


def _of_dgd(obj: SourceObject, dgd: SourceObject | None, *, graph_label: bool) -> bool:
    """A DCD (by its graph label) or PCS (by its name) rendered from `dgd`."""
    if dgd is None or obj.namespace != dgd.namespace:
        return False
    if not graph_label:
        return obj.name == dgd.name
    labels = obj.metadata.get("labels")
    return isinstance(labels, dict) and labels.get(DGD_NAME_LABEL) == dgd.name


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


def build_snapshots(objects: Sequence[SourceObject]) -> list[Snapshot]:
    """Bind every DynamoCheckpoint once; an unbindable one keeps its error for the rules."""
    from renderer.binding import bind
    from renderer.binding.checkpoint import is_checkpoint, is_manual

    snapshots: list[Snapshot] = []
    seen: set[tuple[str, int, int | None]] = set()
    for obj in objects:
        if not is_checkpoint(obj):
            continue
        identity = (obj.file, obj.doc_index, obj.item_index)
        if identity in seen:
            continue
        seen.add(identity)
        if is_manual(obj):
            snapshots.append(Snapshot(obj, manual=True))
            continue
        try:
            snapshots.append(Snapshot(obj, bound=bind(obj)))
        except InputError as exc:
            snapshots.append(Snapshot(obj, error=exc))
    return snapshots
