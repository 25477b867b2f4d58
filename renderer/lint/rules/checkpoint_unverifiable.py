"""The checkpoint is among the snapshots, but the binding cannot be checked against it.

The workload's checkpoint is found as the webhook finds it (the DCD's `checkpointRef`, the
`nvidia.com/dynamo-checkpoint-name` annotation, or, for an already-shaped pod, the snapshot
carrying its `nvidia.com/snapshot-checkpoint-id` label). When that snapshot is captured
twice with different bindings, is not trusted under `--trusted-key`, or several snapshots
carry the pod's checkpoint-ID label and no name says which, the binding is neither right
nor wrong: it is unknown, and lint says so rather than passing it. A warning; an error
with `--strict`. A checkpoint that is not among the snapshots is `checkpoint-pending`; one
that cannot be bound is `checkpoint-invalid`.

Bad (two captures of `checkpoint-9f1e2d3c4b5a6978` with different bindings):

    annotations:
      nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978
      nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...

Fixed: keep one capture of each checkpoint
(`kubectl get dynamocheckpoint checkpoint-9f1e2d3c4b5a6978 -n NS -o yaml`).
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import WARNING, Finding, Severity, finding_at
from renderer.model.checkpoint import AMBIGUOUS, CONFLICT, UNTRUSTED

ID = "checkpoint-unverifiable"
SEVERITY: Severity = WARNING


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload, restore in ctx.restores():
        if restore.state not in _UNKNOWN:
            continue
        yield finding_at(
            workload.obj,
            workload.checkpoint_name_path,
            rule=ID,
            severity=SEVERITY,
            message=f"cannot verify the binding of {workload.label}: {restore.reason}",
            hint=_HINTS.get(restore.state, _HINT),
        )


# A checkpoint given but that cannot be used to check the binding; a checkpoint not given
# at all is pending (checkpoint-pending), one that cannot be bound checkpoint-invalid.
_UNKNOWN = frozenset({CONFLICT, UNTRUSTED, AMBIGUOUS})
_HINT = "name the checkpoint with nvidia.com/dynamo-checkpoint-name, as render writes it"
_HINTS = {
    CONFLICT: "keep one capture of each checkpoint",
    UNTRUSTED: "sign the snapshot file (`dynamo-render snapshot sign`) with a trusted key",
}
