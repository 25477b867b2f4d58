"""A captured checkpoint snapshot that cannot be bound (or should not be trusted as-is).

Only automatic checkpoints (annotation `nvidia.com/dynamo-auto-checkpoint` exactly
"true") are bound, and only they are checked here: a *manual* checkpoint among the
snapshots is no finding, as the operator's pod webhook restores from it without a binding.
Errors for an automatic one, with the operator's wording, in its order: `automatic
checkpoint UID is missing`, `automatic checkpoint generation is missing`, `... ID label is
missing` (label `nvidia.com/snapshot-checkpoint-id`); a value the encoder cannot
reproduce exactly as Go would; a field the pinned operator's types do not have in what is
hashed (its schema never stores one); or two captures of the same checkpoint with different
bindings. A workload carrying a binding to such a checkpoint is an error at its binding
too: the webhook cannot verify the binding against it and denies the pod. Warnings: what
the binding engine warns about, such as `status.phase` not `Ready` (the operator restores
only from Ready checkpoints).

Bad:

    kind: DynamoCheckpoint
    metadata:
      name: checkpoint-9f1e2d3c4b5a6978
      uid: ""

Fixed: capture the live object with `kubectl get dynamocheckpoint NAME -o yaml`, which
carries the server-set `uid` and `generation`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, WARNING, Finding, Severity, finding_at
from renderer.model.checkpoint import UNREADABLE
from renderer.record import replace

ID = "checkpoint-invalid"
SEVERITY: Severity = ERROR
_LOCATED = re.compile(r"\A.*?:(\d+):(\d+): (.*)\Z", re.DOTALL)
_HINT = "capture the snapshot again with `kubectl get dynamocheckpoint NAME -o yaml`"


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _bound_to_unreadable(ctx)
    order = {id(snap.obj): index for index, snap in enumerate(ctx.snapshots)}
    for snap in ctx.snapshots:
        obj = snap.obj
        label = f"checkpoint {obj.namespace}/{obj.name}" if obj.namespace else obj.name
        if snap.error is not None:
            error = snap.error
            finding = finding_at(
                obj,
                ("metadata", "name"),
                rule=ID,
                severity=SEVERITY,
                message=f"{label} cannot be bound: {error.message}",
                hint=_HINT,
            )
            if error.line is not None and error.file == obj.file:
                finding = replace(finding, line=error.line, column=error.column or 1)
            yield finding
            continue
        # the later capture (in the order read: --checkpoint files first) is the one
        # reported as captured again
        if snap.conflict is not None and order.get(id(snap.conflict), -1) < order[id(obj)]:
            yield finding_at(
                obj,
                ("metadata", "uid"),
                rule=ID,
                severity=SEVERITY,
                message=(
                    f"{label} is captured again with a different binding than at"
                    f" {snap.conflict.where()}"
                ),
                hint="keep one capture of each checkpoint",
            )
        if snap.bound is None:
            continue
        for warning in snap.bound.warnings:
            # the engine's warnings may start with `file:line:column: `; use it as the place
            located = _LOCATED.match(warning)
            own = located is not None and warning.startswith(obj.file)
            text = located.group(3) if located is not None and own else warning
            finding = finding_at(
                obj,
                ("status", "phase") if "status.phase" in text else ("metadata", "name"),
                rule=ID,
                severity=WARNING,
                message=f"{label}: {text}",
                hint=_HINT,
            )
            if located is not None and text is not warning:
                finding = replace(finding, line=int(located.group(1)), column=int(located.group(2)))
            yield finding


def _bound_to_unreadable(ctx: LintContext) -> Iterator[Finding]:
    """A binding on a checkpoint no binding can be computed from: the webhook cannot verify
    it, and denies the pod."""
    for workload in ctx.workloads():
        if workload.misplaced is not None:
            continue
        restore = ctx.resolve(workload)
        if restore.state != UNREADABLE:
            continue
        for copy in workload.copies:
            if not copy.value:
                continue
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=SEVERITY,
                message=f"{workload.label}: its {copy.label} binds it to a checkpoint the"
                f" webhook cannot verify it against: {restore.reason} (admission: denied)",
                hint=_HINT,
            )
