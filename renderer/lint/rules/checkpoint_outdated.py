"""A workload restores from a snapshot the operator would not resolve for it.

Two cases (admission §3).

Superseded (state 4, an error): the workload is still bound to a checkpoint although a
later capture for the same DGD component, for another worker hash, is among the snapshots
(both carry `nvidia.com/dynamo-graph-deployment-name` and `nvidia.com/dynamo-component`
labels, and the later `metadata.creationTimestamp` wins; without both times nothing is
claimed). The re-capture happened and the manifests were not rendered again: the message
names both snapshots and the `render` command that brings the manifests up to date.

Not the automatic lookup's: the pinned operator never finds a checkpoint by its labels.
For a checkpoint-enabled component it reads `checkpointRef` when the DGD sets one, and
otherwise exactly one DynamoCheckpoint: `checkpoint-<DGDCheckpointID>`, the first 32 hex
characters of SHA-256 over the namespace, DGD name, DGD uid, component name and worker
hash; it refuses a found object whose checkpoint ID (`status.checkpointID`) is not that ID.
A committed workload whose checkpoint (found as the model finds it: the DCD's
`checkpointRef`, the `nvidia.com/dynamo-checkpoint-name` annotation, the checkpoint-ID
label) is another snapshot restores from one that lookup never reads: above all after the
worker spec changed since the capture (a new worker hash, so a new name). Reported at the
workload's binding and at the snapshot, naming the checkpoint the operator looks for and
why the given one is not it. A committed workload does not show whether its DGD names the
snapshot with `checkpointRef` (a DCD's own `checkpointRef` is written by the operator in
both cases), so without `--dgd` this is a warning saying what `--dgd` would decide; with
`--dgd`, a workload of that DGD is an error unless the DGD names the component's snapshot by
`checkpointRef` (then it is not checked: the operator reads that name, whatever it is).

Where the inputs come from: the DGD uid from the snapshot's controller ownerReference (kind
DynamoGraphDeployment, the workload's DGD name; else another snapshot's in the namespace),
the DGD and component names from the workload's `nvidia.com/dynamo-graph-deployment-name`
and `nvidia.com/dynamo-component` labels (a PodCliqueSet: that label, else its name), the
worker hash from its `nvidia.com/dynamo-worker-hash` label; with `--dgd`, the worker hash
of a fresh render. When the uid (or another input) is missing, the check cannot run: a
warning says so (an error with `--strict`), never a silent pass. Manual checkpoints are
never bound and are not checked. Not fixed by `--fix`: once the operator has captured the
checkpoint it looks for, save that snapshot and render again (naming the old snapshot with
`checkpointRef` instead pins a process captured from the old worker spec).

Bad (the DCD's worker hash is `c0ffee12` now; the snapshot was captured for `b59eb498`):

    labels:
      nvidia.com/dynamo-worker-hash: c0ffee12
    annotations:
      nvidia.com/dynamo-checkpoint-name: checkpoint-46333b366341a5dbfd4f63b83b7b9fc1

Fixed: wait until the operator has captured `checkpoint-<DGDCheckpointID>` for the new
worker hash, commit that snapshot (`kubectl get dynamocheckpoint NAME -n NS -o yaml >
NAME.yaml`) and render again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.constants import DGD_KIND, PCS_KIND
from renderer.errors import InputError
from renderer.keys import CHECKPOINT_ID_LABEL, COMPONENT_LABEL, DGD_NAME_LABEL, WORKER_HASH_LABEL
from renderer.lint.context import LintContext, Snapshot
from renderer.lint.finding import ERROR, WARNING, Finding, Severity, finding_at
from renderer.lint.sites import (
    Workload,
    dcd_checkpoint_ref_path,
    dcd_template_annotations,
    mapping_at,
)
from renderer.model.checkpoint import SUPERSEDED
from renderer.operator.checkpoint_hash import (
    CheckpointDecodeError,
    checkpoint_id_of,
    checkpoint_name,
)
from renderer.operator.checkpoint_hash import dgd_checkpoint_id as id_of
from renderer.record import FrozenRecord
from renderer.source.model import Path, SourceObject
from renderer.workloads import is_worker_type

ID = "checkpoint-outdated"
SEVERITY: Severity = ERROR
HINT = (
    "once the operator has captured the checkpoint it looks for (it creates it when the DGD"
    " is applied), save it (`kubectl get dynamocheckpoint NAME -n NS -o yaml > NAME.yaml`)"
    " and render again with it; naming the old snapshot with checkpointRef instead pins a"
    " process captured from the old worker spec"
)
UNCHECKED_HINT = (
    "commit the snapshot as `kubectl get dynamocheckpoint NAME -o yaml` prints it (with its"
    " ownerReferences), or lint with --dgd"
)


class _Inputs(FrozenRecord):
    """The DGDCheckpointID inputs for one workload, and where the uid and hash came from."""

    namespace: str
    dgd_name: str
    uid: str
    uid_from: str
    component: str
    worker_hash: str
    hash_from: str

    def describe(self) -> str:
        return (
            f"DGDCheckpointID of namespace {self.namespace!r}, DGD {self.dgd_name!r}, uid"
            f" {self.uid} (from {self.uid_from}), component {self.component!r}, worker hash"
            f" {self.worker_hash} (from {self.hash_from})"
        )


class _Plan(FrozenRecord):
    """With --dgd: the render's worker hash and the components named by checkpointRef."""

    worker_hash: str
    by_ref: frozenset[str]
    workers: frozenset[str]
    uid: str


def check(ctx: LintContext) -> Iterator[Finding]:
    plan = _dgd_plan(ctx)
    for workload, restore in ctx.restores():
        snap = restore.snapshot
        if snap is None or snap.manual or snap.untrusted is not None:
            continue  # pending / untrusted are other rules' findings; manual: unbound
        if restore.state == SUPERSEDED and restore.superseded_by is not None:
            by_ref = plan is not None and _component(workload) in plan.by_ref
            if not by_ref:
                yield _superseded(ctx, workload, snap, restore.superseded_by)
                continue
        yield from _check_workload(ctx, workload, snap, plan)


def _superseded(ctx: LintContext, workload: Workload, snap: Snapshot, later: Snapshot) -> Finding:
    """State 4 (admission §3): a capture for the same component replaced the checkpoint the
    committed workload is still bound to; its pods come from the new one."""
    obj, path = _binding_site(workload)
    dgd = ctx.dgd.file if ctx.dgd is not None else "DGD_FILE"
    return finding_at(
        obj,
        path,
        rule=ID,
        severity=SEVERITY,
        message=f"{workload.label} restores from checkpoint {snap.obj.name}"
        f" ({snap.obj.where(('metadata', 'name'))}), which is no longer the one captured for"
        f" its component: {later.obj.name} ({later.obj.where(('metadata', 'name'))}) was"
        " captured since, for another worker hash; the manifests are what is out of date",
        hint=f"render again with the new snapshot (`dynamo-render render {dgd} --checkpoint"
        f" {later.obj.file} ...`) and commit the result",
    )


def _check_workload(
    ctx: LintContext, workload: Workload, snap: Snapshot, plan: _Plan | None
) -> Iterator[Finding]:
    obj, path = _binding_site(workload)
    namespace = workload.obj.namespace
    dgd_name = _dgd_name(workload)
    component = _component(workload)
    ours = plan is not None and ctx.dgd is not None and _of_dgd(workload, ctx.dgd, dgd_name)
    if ours and plan is not None and component in plan.by_ref:
        return  # the DGD names the snapshot by checkpointRef: the operator reads that name
    if ours and plan is not None:
        worker_hash, hash_from = plan.worker_hash, "a fresh render of the --dgd DGD"
        if component not in plan.workers:
            worker_hash = ""  # only worker-class components hash their spec into the ID
    else:
        worker_hash, hash_from = _label(workload, WORKER_HASH_LABEL), f"label {WORKER_HASH_LABEL}"
    uid, uid_from = (plan.uid, "the --dgd DGD's metadata.uid") if ours and plan else ("", "")
    if not uid:
        uid, uid_from = _owner_uid(ctx, snap, namespace, dgd_name)
    missing = _missing(workload, dgd_name, component, worker_hash, uid, ours)
    if missing is not None:
        yield finding_at(
            obj,
            path,
            rule=ID,
            severity=WARNING,
            message=f"could not check that the operator restores {workload.label} from"
            f" checkpoint {snap.obj.name}: its name is checkpoint-<DGDCheckpointID>, and"
            f" {missing}",
            hint=UNCHECKED_HINT,
        )
        return
    inputs = _Inputs(namespace, dgd_name, uid, uid_from, component, worker_hash, hash_from)
    expected = id_of(namespace, dgd_name, uid, component, worker_hash)
    wanted = checkpoint_name(expected)
    given = snap.obj.name
    if given != wanted:
        why = f"its name is not {wanted}: {_name_why(snap, inputs)}"
        also = _present(ctx, namespace, wanted)
        snap_path: Path = ("metadata", "name")
    else:
        try:
            found_id = checkpoint_id_of(snap.obj.data)
        except CheckpointDecodeError as exc:  # a snapshot Go cannot decode
            yield finding_at(
                obj,
                path,
                rule=ID,
                severity=WARNING,
                message=f"could not check that the operator restores {workload.label} from"
                f" checkpoint {given}: its checkpoint ID cannot be read ({exc})",
                hint=UNCHECKED_HINT,
            )
            return
        if found_id == expected:
            return
        why = f"its checkpoint ID is {found_id}, not {expected}, and the operator refuses it"
        also = ""
        snap_path = _id_path(snap.obj)
    where = f"{namespace}/{given}" if namespace else given
    # Without the DGD, a checkpointRef naming this very snapshot cannot be ruled out (a
    # committed workload does not show it): say what --dgd would decide, claim no more.
    severity: Severity = SEVERITY if ours else WARNING
    unless = (
        ""
        if ours
        else " (unless its DGD names this snapshot with checkpointRef, which the committed"
        " objects do not show: lint with --dgd to decide)"
    )
    yield finding_at(
        obj,
        path,
        rule=ID,
        severity=severity,
        message=f"{workload.label} restores from checkpoint {where}, which the operator's"
        f" automatic lookup never resolves for it: it looks for checkpoint {wanted}"
        f" ({inputs.describe()}); {why}{also}{unless}",
        hint=HINT,
    )
    yield finding_at(
        snap.obj,
        snap_path,
        rule=ID,
        severity=severity,
        message=f"the operator's automatic lookup never restores component {component!r} of"
        f" DGD {namespace}/{dgd_name} from checkpoint {given}: it looks for checkpoint"
        f" {wanted} ({inputs.describe()}); {why}{also}{unless}",
        hint=HINT,
    )


def _binding_site(workload: Workload) -> tuple[SourceObject, Path]:
    """The first binding copy present, else what names the checkpoint."""
    for copy in workload.copies:
        if copy.value is not None:
            return copy.obj, copy.path
    if workload.checkpoint_name is not None or workload.checkpoint_ref is None:
        return workload.obj, workload.checkpoint_name_path
    return workload.obj, dcd_checkpoint_ref_path(workload.obj)


def _labels(workload: Workload) -> list[dict[str, Any]]:
    """Where the workload's labels are, most specific first (a clique's, then the object's;
    a DCD's metadata, then its pod template's)."""
    obj = workload.obj
    found: list[Any] = []
    if workload.clique is not None:
        cliques = mapping_at(obj.data, ("spec", "template")).get("cliques")
        for clique in cliques if isinstance(cliques, list) else []:
            if isinstance(clique, dict) and clique.get("name") == workload.clique:
                found.append(clique.get("labels"))
        found.append(mapping_at(obj.data, ("metadata", "labels")))
    else:
        found.append(mapping_at(obj.data, ("metadata", "labels")))
        template = dcd_template_annotations(obj)[:-1]
        found.append(mapping_at(obj.data, (*template, "labels")))
    return [labels for labels in found if isinstance(labels, dict)]


def _label(workload: Workload, key: str) -> str:
    for labels in _labels(workload):
        value = labels.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _dgd_name(workload: Workload) -> str:
    name = _label(workload, DGD_NAME_LABEL)
    if not name and workload.obj.kind == PCS_KIND:
        return workload.obj.name  # the operator names the PodCliqueSet after the DGD
    return name


def _component(workload: Workload) -> str:
    """The component's own name (the ID hashes it as the DGD spells it)."""
    return _label(workload, COMPONENT_LABEL)


def _of_dgd(workload: Workload, dgd: SourceObject, dgd_name: str) -> bool:
    return workload.obj.namespace == dgd.namespace and dgd_name == dgd.name


def _missing(  # noqa: PLR0917 - the inputs the ID needs, each checked
    workload: Workload,
    dgd_name: str,
    component: str,
    worker_hash: str,
    uid: str,
    ours: bool,
) -> str | None:
    if not dgd_name:
        return f"{workload.label} has no label {DGD_NAME_LABEL} naming its DGD"
    if not component:
        return f"{workload.label} has no label {COMPONENT_LABEL} naming its component"
    if not worker_hash and not ours:
        return f"{workload.label} has no label {WORKER_HASH_LABEL} (pass its DGD with --dgd)"
    if not uid:
        return (
            f"the ID needs the uid of DGD {workload.obj.namespace}/{dgd_name}, which no"
            " snapshot gives (none has a controller ownerReference to it; kubectl get -o yaml"
            " keeps it)"
        )
    return None


def _owner_refs(obj: SourceObject, dgd_name: str) -> list[str]:
    refs = mapping_at(obj.data, ("metadata",)).get("ownerReferences")
    return [
        ref["uid"]
        for ref in (refs if isinstance(refs, list) else [])
        if isinstance(ref, dict)
        and ref.get("controller") is True
        and ref.get("kind") == DGD_KIND
        and ref.get("name") == dgd_name
        and isinstance(ref.get("uid"), str)
        and ref["uid"]
    ]


def _owner_uid(ctx: LintContext, snap: Snapshot, namespace: str, dgd_name: str) -> tuple[str, str]:
    """The DGD uid: the snapshot's own controller ownerReference, else another snapshot's in
    the namespace (the uid is one per DGD)."""
    own = _owner_refs(snap.obj, dgd_name)
    if own:
        return own[0], f"the ownerReference of {snap.obj.name}"
    for other in ctx.snapshots:
        if other is snap or (other.obj.namespace or namespace) != namespace:
            continue
        if other.untrusted is None and (uids := _owner_refs(other.obj, dgd_name)):
            return uids[0], f"the ownerReference of {other.obj.name}"
    return "", ""


def _name_why(snap: Snapshot, inputs: _Inputs) -> str:
    """Which of the ID's inputs the snapshot was captured for differ (its labels and owner)."""
    labels = mapping_at(snap.obj.data, ("metadata", "labels"))
    owner = _owner_refs(snap.obj, inputs.dgd_name)
    recorded = [
        ("worker hash", labels.get(WORKER_HASH_LABEL), inputs.worker_hash),
        ("DGD", labels.get(DGD_NAME_LABEL), inputs.dgd_name),
        ("component", labels.get(COMPONENT_LABEL), inputs.component),
        ("DGD uid", owner[0] if owner else None, inputs.uid),
    ]
    changed = [
        f"it was captured for {what} {then}, and the {what} is now {now}"
        for what, then, now in recorded
        if isinstance(then, str) and then and then != now
    ]
    if not changed:
        return "its labels and owner do not say what it was captured for"
    first = changed[0]
    if recorded[0][1] not in (None, "", inputs.worker_hash):
        first += " (the DGD's worker spec changed since the capture)"
    return "; ".join([first, *changed[1:]])


def _present(ctx: LintContext, namespace: str, name: str) -> str:
    for other in ctx.snapshots:
        if other.obj.name == name and (other.obj.namespace or namespace) == namespace:
            return f" (that snapshot is at {other.obj.where(('metadata', 'name'))}: render again)"
    return ""


def _id_path(obj: SourceObject) -> Path:
    """The field the operator's CheckpointID reads first (status, label, identity)."""
    status = mapping_at(obj.data, ("status",))
    if status.get("checkpointID"):
        return ("status", "checkpointID")
    if status.get("identityHash"):
        return ("status", "identityHash")
    if mapping_at(obj.data, ("metadata", "labels")).get(CHECKPOINT_ID_LABEL):
        return ("metadata", "labels", CHECKPOINT_ID_LABEL)
    return ("spec", "identity")


def _dgd_plan(ctx: LintContext) -> _Plan | None:
    """The --dgd DGD admitted as the operator admits it: its worker hash, the components it
    names by checkpointRef, its worker-class components (None: no --dgd, or it does not
    render: render-drift reports that)."""
    if ctx.dgd is None:
        return None
    from renderer.operator.errors import NotReproducedError, OperatorError  # noqa: PLC0415 - the operator emulation only for a lint given --dgd

    # render's own admission and worker hash, so both agree with what render-drift renders
    from renderer.render import admit, worker_hash  # noqa: PLC0415 - the operator emulation only for a lint given --dgd

    dgd = ctx.dgd
    try:
        admission = admit(dgd, config=ctx.operator)
        admitted_hash = worker_hash(admission.data)
    except (InputError, OperatorError, NotReproducedError):
        return None  # render-drift reports the refusal
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # Neither of the port's expected errors: a defect, reported as one (exit 70).
        from renderer.render.locate import internal_error  # noqa: PLC0415 - only on a defect of the port

        raise internal_error(dgd, exc) from exc
    admitted = admission.data
    by_ref: set[str] = set()
    workers: set[str] = set()
    for component in (admitted.get("spec") or {}).get("components") or []:
        name = str(component.get("name", ""))
        cfg = (component.get("experimental") or {}).get("checkpoint") or {}
        if cfg.get("checkpointRef"):
            by_ref.add(name)
        if is_worker_type(component.get("type")):
            workers.add(name)
    uid = mapping_at(dgd.data, ("metadata",)).get("uid")
    return _Plan(
        admitted_hash, frozenset(by_ref), frozenset(workers), uid if isinstance(uid, str) else ""
    )
