"""No usable captured checkpoint matches the workload, so its binding cannot be checked.

The workload names its checkpoint with `nvidia.com/dynamo-checkpoint-name` (DCD pod
template, or PCS clique annotations); lint looks for a DynamoCheckpoint of that name in the
same namespace among `--checkpoint` files and the linted paths. When there is none (or it
cannot be bound, is captured twice with different bindings, or is not trusted under
`--trusted-key`), the binding is neither right nor wrong: it is unknown, and lint says so
rather than passing it. A warning; an error with `--strict`. A workload that restores
from a *manual* checkpoint and carries no binding is fine (the operator binds only
automatic checkpoints); one that carries a binding anyway gets this warning, since no
binding of a manual checkpoint can be checked.

Bad (`checkpoint-9f1e2d3c4b5a6978` is not among the snapshots):

    annotations:
      nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978
      nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...

Fixed: capture it (`kubectl get dynamocheckpoint checkpoint-9f1e2d3c4b5a6978 -o yaml`)
and pass the file with `--checkpoint`, or commit it next to the manifests.
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import WARNING, Finding, Severity, finding_at

ID = "checkpoint-unverifiable"
SEVERITY: Severity = WARNING


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload in ctx.workloads():
        if not workload.checkpointed or workload.misplaced is not None:
            continue
        resolution = ctx.resolve(workload)
        if resolution.expected is not None:
            continue
        if resolution.manual and all(copy.value is None for copy in workload.copies):
            continue  # a manual checkpoint, and no binding to verify: nothing unknown
        yield finding_at(
            workload.obj,
            workload.checkpoint_name_path,
            rule=ID,
            severity=SEVERITY,
            message=f"cannot verify the binding: {resolution.reason}",
            hint=(
                "pass the captured DynamoCheckpoint with --checkpoint"
                " (kubectl get dynamocheckpoint NAME -o yaml)"
            ),
        )
