"""A checkpointed workload whose checkpoint is not captured yet (or not committed).

The life of an automatic checkpoint (admission §3): once the DGD is applied, the operator
creates `checkpoint-<ID>` and its capture job runs; until the snapshot is saved beside the
manifests, the workload's checkpoint is not among the snapshots. The operator's own objects
for that state carry the restore metadata and no binding, and the cluster admits them
(a restore candidate whose checkpoint is missing or not Ready starts without restoring),
so this is a warning (an error with `--strict`), never a reason to block a commit. It names
the command that saves the snapshot; then render again with it, which writes the binding.
A DCD that enables checkpointing but names no checkpoint yet is in the same state (the
operator fills its `checkpointRef` once the checkpoint exists).

When the snapshots hold a capture for the same DGD component under another name, the
message says so: which of the two is current only the DGD's worker spec tells (lint it
with `--dgd`, or render again with the newer snapshot).

Bad (`checkpoint-9f1e2d3c4b5a6978` is not among the snapshots):

    annotations:
      nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978
      nvidia.com/dynamo-checkpoint-restore-candidate: "true"

Fixed: `kubectl get dynamocheckpoint checkpoint-9f1e2d3c4b5a6978 -n dynamo-prod -o yaml >
snapshots/checkpoint-9f1e2d3c4b5a6978.yaml`, commit it, and render again with
`--checkpoint snapshots`.
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import WARNING, Finding, Severity, finding_at
from renderer.lint.sites import dcd_checkpoint_ref_path
from renderer.model.checkpoint import ORDINARY, PENDING, UNNAMED, capture_command

ID = "checkpoint-pending"
SEVERITY: Severity = WARNING


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload, restore in ctx.restores():
        namespace = workload.obj.namespace
        if restore.state == PENDING:
            name = restore.name
            message = (
                f"{workload.label} restores from a checkpoint not captured yet: {restore.reason}"
            )
            hint = (
                "once the operator has captured it, save it with"
                f" `{capture_command(name, namespace)}`, commit it and render again with"
                " --checkpoint"
                if name
                else "save the captured checkpoint with `kubectl get dynamocheckpoint NAME"
                f"{' -n ' + namespace if namespace else ''} -o yaml > NAME.yaml`, commit it and"
                " render again with --checkpoint"
            )
        elif restore.state == UNNAMED and workload.shape == ORDINARY:
            # a DCD whose spec enables checkpointing, before the operator names the checkpoint
            message = (
                f"{workload.label} enables checkpointing but names no checkpoint yet (the"
                " operator names it checkpoint-<ID> once the DGD is applied and fills the"
                " workload's checkpointRef)"
            )
            subject = workload.subject
            held = ctx.model.captures_for(namespace, subject.dgd_name, subject.component)
            if held:
                listed = ", ".join(sorted({s.obj.name for s in held}))
                message += (
                    f"; the snapshots hold {listed} for component {subject.component!r}:"
                    " render again with them"
                )
            hint = (
                "apply the DGD; once the checkpoint is captured, save it with `kubectl get"
                f" dynamocheckpoint NAME{' -n ' + namespace if namespace else ''} -o yaml >"
                " NAME.yaml`, commit it and render again with --checkpoint"
            )
        else:
            continue
        path = workload.checkpoint_name_path
        if workload.checkpoint_ref is not None:
            path = dcd_checkpoint_ref_path(workload.obj)
        yield finding_at(
            workload.obj,
            path,
            rule=ID,
            severity=SEVERITY,
            message=message,
            hint=hint,
        )
