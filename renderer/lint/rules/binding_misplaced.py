"""A binding where none belongs.

GMS cliques (`<component>-gms-<rank>`) never carry a binding, nor does a PodCliqueSet's own
metadata (its bindings are the map and the engine cliques'); neither do DCDs or cliques
of components that are not checkpointed (only worker, prefill and decode components are;
with `--dgd`, a worker DCD whose component the DGD does not checkpoint, and whose pod
template names no checkpoint and is no restore candidate, is not either); and the PCS
checkpoint map must have no entry for a clique that does not exist, or that is not an
engine clique. A stray binding is harmless at admission but stale by construction,
and hides which workloads really restore from a checkpoint. `--fix` removes it.

Bad:

    cliques:
      - name: decode-gms-0
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...

Fixed (a mapping left empty goes too):

    cliques:
      - name: decode-gms-0
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.checks import copy_fixes, hint_for
from renderer.lint.context import LintContext
from renderer.lint.finding import DELETE, ERROR, Finding, FixAction, Severity, finding_at
from renderer.lint.sites import MAP_PATH

ID = "binding-misplaced"
SEVERITY: Severity = ERROR
_REMOVE_HINT = "remove the binding (`dynamo-render lint --fix` does)"


def check(ctx: LintContext) -> Iterator[Finding]:
    for pcs in ctx.pcss:
        annotations = (pcs.obj.data.get("metadata") or {}).get("annotations")
        if isinstance(annotations, dict) and BINDING_KEY in annotations:
            path = ("metadata", "annotations", BINDING_KEY)
            yield finding_at(
                pcs.obj,
                path,
                rule=ID,
                severity=SEVERITY,
                message=(
                    f"PCS {pcs.obj.namespace}/{pcs.obj.name} carries {BINDING_KEY} on its own"
                    f" metadata: a PodCliqueSet holds its bindings in {BINDINGS_MAP_KEY} and"
                    " on its engine cliques"
                ),
                hint=_REMOVE_HINT,
                fixes=(FixAction(DELETE, path),),
            )
        for copy in pcs.gms_copies:
            clique = pcs.obj.data["spec"]["template"]["cliques"][copy.path[3]]["name"]
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=SEVERITY,
                message=(
                    f"clique {clique} of PCS {pcs.obj.namespace}/{pcs.obj.name} is a GPU memory"
                    " service clique and carries no binding"
                ),
                hint=_REMOVE_HINT,
                fixes=(FixAction(DELETE, copy.path),),
            )
        engine = {w.clique for w in pcs.workloads if w.misplaced is None}
        stray = sorted(name for name in pcs.map.entries if name not in engine)
        if stray:
            fixes = next(
                (copy_fixes(ctx, w, w.copies[1]) for w in pcs.workloads if w.misplaced is None),
                (FixAction(DELETE, MAP_PATH),),
            )
            for name in stray:
                if name not in pcs.clique_names:
                    why = "no such clique"
                elif name in pcs.gms_cliques:
                    why = "a GPU memory service clique"
                else:
                    why = "not an engine clique of a checkpointed component"
                yield finding_at(
                    pcs.obj,
                    MAP_PATH,
                    rule=ID,
                    severity=SEVERITY,
                    message=(
                        f"PCS {pcs.obj.namespace}/{pcs.obj.name}: the checkpoint map"
                        f" {BINDINGS_MAP_KEY} has an entry for {name} ({why})"
                    ),
                    hint=_REMOVE_HINT if fixes else hint_for(fixes),
                    fixes=fixes,
                )
    for workload in ctx.workloads():
        if workload.misplaced is None:
            continue
        for copy in workload.copies:
            if copy.value is None or copy.map_entry is not None:
                continue  # a map entry of a misplaced clique is a stray entry (above)
            fixes = copy_fixes(ctx, workload, copy)
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=SEVERITY,
                message=f"{workload.misplaced}, but its {copy.label} carries a binding",
                hint=_REMOVE_HINT,
                fixes=fixes,
            )
