"""What rules see: the linted workloads, the captured snapshots, and the checkpoint model.

Which checkpoint a workload restores from, in which state, and the binding it must carry
are the model's answers (renderer.model.checkpoint, admission §1-§3); the context asks it
once per workload and keeps the answer. Every other expensive step (binding a snapshot,
parsing a binding) runs once and is cached here too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from renderer.binding import parse_binding
from renderer.errors import BindingFormatError
from renderer.gojson import marshal_any
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
from renderer.model.checkpoint import (
    MANUAL,
    CheckpointModel,
    Restore,
    Snapshot,
    build_snapshots,
    index_snapshots,
)
from renderer.record import Record, field
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.binding import Binding
    from renderer.lint.checks import Mismatch

__all__ = [
    "LintContext",
    "Resolution",
    "Snapshot",
    "build_snapshots",
    "index_snapshots",
]


# The checkpoint a workload restores from, and its binding: the model's answer.
Resolution = Restore


class LintContext(Record):
    """Everything a rule can see; the fields are the whole of it (no side channel)."""

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
    _by_name: dict[tuple[str, str], Snapshot] = field(init=False)
    # every workload's shape, checkpoint and state (one place)
    model: CheckpointModel = field(init=False, compare=False)
    _parsed: dict[str, Binding | str]
    _resolved: dict[int, Resolution]

    # Its own __init__: it indexes the objects (one context per linted file in a large run)
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
        self.dcds = [dcd_workload(o) for o in iter_dcds(self.objects)]
        self.pcss = [pcs_sites(o) for o in iter_pcss(self.objects)]
        if self.by_name is None:
            self.by_name = index_snapshots(self.snapshots)
        self._by_name = self.by_name
        self.model = CheckpointModel(self.snapshots, self.by_name)

    def workloads(self) -> Iterator[Workload]:
        yield from self.dcds
        for pcs in self.pcss:
            yield from pcs.workloads

    def restores(self) -> Iterator[tuple[Workload, Resolution]]:
        """Each workload that restores from a checkpoint, with where it is bound (no
        misplaced copy: binding-misplaced reports those), and what it restores from."""
        for workload in self.workloads():
            if workload.checkpointed and workload.misplaced is None:
                yield workload, self.resolve(workload)

    def parse(self, value: str) -> Binding | str:
        """The parsed binding, or the operator's parse message."""
        found = self._parsed.get(value)
        if found is None:
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

    def _resolve(self, workload: Workload) -> Resolution:
        return self.model.restore(workload.subject)

    def desired_map(self, pcs: PcsSites) -> str | None:
        """The checkpoint map text `--fix` writes, or None when the PCS needs no map.

        An entry for each clique that must carry a binding: the captured checkpoint's, or,
        when that is not known, the current value (never guessed). Cliques that must carry
        none (restoring from no checkpoint, or from a manual one) have no entry.
        """
        entries: dict[str, str] = {}
        for workload in pcs.workloads:
            if workload.misplaced is not None or workload.clique is None:
                continue
            current = pcs.map.entries.get(workload.clique)
            if current is None and pcs.map.error is not None:
                current = workload.copies[0].value or None  # the clique's own copy
            if workload.odd is not None:
                if current is not None:  # never written for it: never rewritten either
                    entries[workload.clique] = current
                continue
            restore = self.resolve(workload)
            if restore.state == MANUAL:
                continue
            if restore.expected is not None:
                entries[workload.clique] = restore.expected
            elif current is not None:
                entries[workload.clique] = current
        if not entries:
            return None
        return marshal_any(entries)

    def pcs_of(self, copy: Copy) -> PcsSites | None:
        if copy.path != MAP_PATH:
            return None
        return next((p for p in self.pcss if p.obj is copy.obj), None)
