"""A bound workload does not name its checkpoint.

A restore candidate (annotation `nvidia.com/dynamo-checkpoint-restore-candidate: "true"`)
that carries a binding but no `nvidia.com/dynamo-checkpoint-name` (and, for a DCD, no
`checkpointRef`) binds itself to a checkpoint the webhook cannot find: a binding on a
missing checkpoint is denied. Not fixed: nothing says which checkpoint it meant.

**[our contract]** (admission §1): a pod template that is already shaped (label
`nvidia.com/snapshot-checkpoint-id`, as WaitForCheckpoint workloads are rendered) and
carries a binding keeps `nvidia.com/dynamo-checkpoint-name`: a binding-aware webhook re-reads
the checkpoint by that name to verify the binding, and the checkpoint-ID label alone cannot
name it (several checkpoints may share one ID). Without the name such a pod is denied.
`render` writes the name; `--fix` writes the name of the snapshot that carries the pod's
checkpoint-ID label, when exactly one does.

Bad:

    cliques:
      - name: vllmdecodeworker
        labels:
          nvidia.com/snapshot-checkpoint-id: 9f1e2d3c4b5a6978
          nvidia.com/snapshot-is-restore-target: "true"
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...

Fixed:

    annotations:
      nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...
      nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.keys import CHECKPOINT_NAME_KEY
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, SET, Finding, FixAction, Severity, finding_at
from renderer.model.checkpoint import BY_ID, CANDIDATE, MANUAL, SHAPED

ID = "checkpoint-unnamed"
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload in ctx.workloads():
        if workload.misplaced is not None or workload.shape not in (CANDIDATE, SHAPED):
            continue
        if workload.checkpoint_name is not None or workload.checkpoint_ref is not None:
            continue
        if workload.shape == SHAPED and not workload.name_required:
            continue  # shaped by its DCD's controller, which names the checkpoint itself
        if not any(copy.value for copy in workload.copies):
            continue  # unbound: the webhook admits it without reading any checkpoint
        restore = ctx.resolve(workload)
        if restore.state == MANUAL:
            continue  # the binding itself is the error there (binding-misplaced removes it)
        fixes: tuple[FixAction, ...] = ()
        named = ""
        if restore.named_by == BY_ID and restore.snapshot is not None and restore.name:
            fixes = (FixAction(SET, workload.checkpoint_name_path, restore.name),)
            named = f" (the snapshot carrying its checkpoint ID is {restore.name})"
        yield finding_at(
            workload.obj,
            workload.checkpoint_name_path,
            rule=ID,
            severity=SEVERITY,
            message=f"{workload.label} is a bound {workload.shape}, but does not name its"
            f" checkpoint with {CHECKPOINT_NAME_KEY}{named}: the webhook reads the checkpoint"
            " by that name to verify the binding (admission: denied)",
            hint="run `dynamo-render lint --fix` to write the name"
            if fixes
            else "render again, or write the checkpoint's name (the snapshot is not given)",
            fixes=fixes,
        )
