"""A workload that restores from an automatic checkpoint lacks one of its binding copies.

The pod webhook reads a pod's shape from its labels and annotations, never from its
component type, clique name or GMS role (admission §1). A *restore candidate*
(annotation `nvidia.com/dynamo-checkpoint-restore-candidate: "true"` naming an automatic
checkpoint) without its binding is denied (`automatic checkpoint binding is missing`): an
error. An *already-shaped* pod (label `nvidia.com/snapshot-checkpoint-id`, as
WaitForCheckpoint workloads are rendered) without a binding is admitted, but render writes
the binding: a warning. An empty value is a missing one (the operator reads them alike).

A DCD carries the binding twice: `metadata.annotations` and its pod template annotations
(v1beta1 `spec.podTemplate.metadata.annotations`, v1alpha1
`spec.extraPodMetadata.annotations`); its pods' shape is its pod template's, or what its
controller makes of the DCD's own checkpoint block (v1beta1
`spec.experimental.checkpoint`, v1alpha1 `spec.checkpoint`): a `checkpointRef` makes them
restore candidates, or already shaped under `startupPolicy: WaitForCheckpoint`. A
PodCliqueSet carries it on each such clique (`spec.template.cliques[i].annotations`) and in
its checkpoint map (`metadata.annotations["nvidia.com/dynamo-checkpoint-bindings"]`). The
finding points at the nearest existing parent key.

No binding is asked for when the checkpoint is manual (the webhook denies one), not
captured yet (`checkpoint-pending`: the operator's pre-capture objects carry none), or
cannot be bound (`checkpoint-invalid`). `--fix` writes the captured checkpoint's binding,
except on a candidate the operator never makes (a GPU memory service clique, a component
type other than worker, prefill or decode): there the hint says why (remove its restore
metadata, or render again).

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
    for workload, restore in ctx.restores():
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
