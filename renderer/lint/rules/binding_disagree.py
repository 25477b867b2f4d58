"""The two copies of one workload's binding differ.

A DCD's metadata copy and pod template copy must be equal, and a PodCliqueSet engine
clique's binding must equal its entry in the PCS checkpoint map. Two different values
mean at least one of them was edited by hand, or copied from another render. Reported at
the pod template copy (DCD) or the clique's binding (PCS), with the captured checkpoint's
binding as the fix when it is known.

Bad:

    metadata:
      annotations:
        nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../2/aa01...
    spec:
      extraPodMetadata:
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...

Fixed (both copies carry the captured checkpoint's binding):

    metadata:
      annotations:
        nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../2/aa01...
    spec:
      extraPodMetadata:
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../2/aa01...
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.checks import hint_for, workload_fixes
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity, finding_at

ID = "binding-disagree"
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    for workload in ctx.workloads():
        if workload.misplaced is not None:
            continue
        first, second = workload.copies
        if first.value is None or second.value is None or first.value == second.value:
            continue
        if workload.clique is not None:
            at = first
            message = (
                f"{workload.label}: the clique's binding differs from its checkpoint map entry"
            )
        else:
            at = second
            message = (
                f"{workload.label}: the pod template binding differs from the metadata binding"
            )
        fixes = workload_fixes(ctx, workload)
        yield finding_at(
            at.obj,
            at.path,
            rule=ID,
            severity=SEVERITY,
            message=message,
            hint=hint_for(fixes, workload),
            fixes=fixes,
        )
