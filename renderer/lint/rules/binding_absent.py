"""A checkpointed workload lacks one of its binding copies.

The operator's pod webhook denies a restore pod whose binding is missing
(`automatic checkpoint binding is missing`). A DCD of a checkpointed worker carries the
binding twice: `metadata.annotations` and its pod template annotations
(v1beta1 `spec.podTemplate.metadata.annotations`, v1alpha1
`spec.extraPodMetadata.annotations`). A PodCliqueSet carries it on every engine clique
(`spec.template.cliques[i].annotations`) and in its checkpoint map
(`metadata.annotations["nvidia.com/dynamo-checkpoint-bindings"]`). A worker-class DCD or
clique counts as checkpointed when it carries the restore-candidate annotations or any
binding copy, when a DCD's own spec enables checkpointing (v1beta1
`spec.experimental.checkpoint.enabled`, v1alpha1 `spec.checkpoint.enabled`), when a clique
keeps the `nvidia.com/snapshot-target-containers` restore annotation, or, with `--dgd`,
when the DGD enables checkpointing for its component: removing every binding copy and
restore annotation does not make it clean. The finding points at the nearest existing
parent key. A workload restoring from a *manual* checkpoint (one without
`nvidia.com/dynamo-auto-checkpoint: "true"`) needs no binding: the operator binds only
automatic checkpoints, and its pod webhook restores from a manual one without one.

Bad (the pod template copy is missing):

    metadata:
      annotations:
        nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...
    spec:
      podTemplate:
        metadata:
          annotations:
            nvidia.com/dynamo-checkpoint-restore-candidate: "true"
            nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978

Fixed (`--fix` writes the captured checkpoint's binding):

    spec:
      podTemplate:
        metadata:
          annotations:
            nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...
            nvidia.com/dynamo-checkpoint-restore-candidate: "true"
            nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.checks import copy_fixes, hint_for
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, WARNING, Finding, Severity, finding_at
from renderer.model.checkpoint import (
    AMBIGUOUS,
    CANDIDATE,
    MANUAL,
    PENDING,
    SUPERSEDED,
    UNNAMED,
    UNREADABLE,
)

ID = "binding-absent"
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload in ctx.workloads():
        if not workload.checkpointed or workload.misplaced is not None:
            continue
        restore = ctx.resolve(workload)
        if restore.state in _NO_BINDING_ASKED:
            continue
        # A restore candidate of an automatic checkpoint is denied without its binding; an
        # already-shaped pod without one is admitted (it is what the operator's renderer
        # makes), but render writes the binding: a warning, which --fix repairs.
        severity = SEVERITY if restore.shape == CANDIDATE else WARNING
        admitted = "" if severity == SEVERITY else " (admitted: the pods are already shaped)"
        for copy in workload.copies:
            if copy.value:
                continue
            if copy.map_entry is not None:
                pcs = ctx.pcs_of(copy)
                if pcs is not None and pcs.map.error is not None:
                    continue  # an unreadable map is binding-malformed, not absent
                message = (
                    f"{workload.label}: the checkpoint map {BINDINGS_MAP_KEY} has no entry"
                    f" for clique {copy.map_entry}"
                )
            else:
                empty = "empty" if copy.value == "" else "missing"
                message = f"{workload.label}: the {copy.label} {BINDING_KEY} is {empty}"
            fixes = copy_fixes(ctx, workload, copy)
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=severity,
                message=f"{message} (restores from checkpoint {restore.name}){admitted}",
                hint=hint_for(fixes, workload),
                fixes=fixes,
            )


# No binding to ask for: the checkpoint is manual (the webhook denies one), unreadable
# (checkpoint-invalid), not named or not captured yet (the operator's own pre-capture
# objects carry none: checkpoint-pending), captured twice or untrusted
# (checkpoint-unverifiable), or superseded (checkpoint-outdated).
_NO_BINDING_ASKED = frozenset({MANUAL, UNREADABLE, UNNAMED, PENDING, AMBIGUOUS, SUPERSEDED})
