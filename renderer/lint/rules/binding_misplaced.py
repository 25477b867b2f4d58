"""A binding where none belongs.

Only a pod that restores from an automatic checkpoint carries a binding (admission §1):
a restore candidate, or an already-shaped pod. Errors, refused by the cluster:

- a binding on a workload restoring from a *manual* checkpoint: the pod webhook denies a
  binding on any checkpoint that is not automatic. `--fix` removes every copy.
- a binding (or the PCS checkpoint map) in `labels`: a binding is no valid label value,
  so the API server refuses the object. `--fix` removes it (rule `binding-absent` asks for
  the annotation).

Warnings, admitted but wrong: a binding on a pod that restores from no checkpoint (an
ordinary pod: no restore-candidate annotation, no checkpoint-ID label, and a DCD whose
spec does not enable checkpointing; or the capture job's pod), on a PodCliqueSet's own
metadata (its bindings are the map and the cliques'), and a PCS checkpoint-map entry for
a clique that does not exist or carries no restore metadata: stale by construction, and
hiding which workloads really restore. `--fix` removes them. A restore candidate the
operator never makes (a GPU memory service clique, a component type other than worker,
prefill or decode) is read by the webhook like any other: its binding is checked as
usual, and a warning says the candidate itself is the anomaly (`--fix` does not touch it:
remove its restore metadata, or render again).

Bad (a decode worker restoring from the manual checkpoint `qwen3-06b-bf16`):

    cliques:
      - name: decode
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48e...
          nvidia.com/dynamo-checkpoint-name: qwen3-06b-bf16
          nvidia.com/dynamo-checkpoint-restore-candidate: "true"

Fixed (a mapping left empty goes too):

    cliques:
      - name: decode
        annotations:
          nvidia.com/dynamo-checkpoint-name: qwen3-06b-bf16
          nvidia.com/dynamo-checkpoint-restore-candidate: "true"
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.constants import PCS_KIND
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.checks import copy_fixes, hint_for, odd_hint
from renderer.lint.context import LintContext
from renderer.lint.finding import DELETE, ERROR, WARNING, Finding, FixAction, Severity, finding_at
from renderer.lint.sites import MAP_PATH, Workload, dcd_template_annotations, mapping_at
from renderer.model.checkpoint import MANUAL
from renderer.source.model import Path, SourceObject

ID = "binding-misplaced"
SEVERITY: Severity = ERROR
_REMOVE_HINT = "remove the binding (`dynamo-render lint --fix` does)"


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _in_labels(ctx)
    for pcs in ctx.pcss:
        annotations = mapping_at(pcs.obj.data, ("metadata", "annotations"))
        if BINDING_KEY in annotations:
            path = ("metadata", "annotations", BINDING_KEY)
            yield finding_at(
                pcs.obj,
                path,
                rule=ID,
                severity=WARNING,
                message=(
                    f"PCS {pcs.obj.namespace}/{pcs.obj.name} carries {BINDING_KEY} on its own"
                    f" metadata: a PodCliqueSet holds its bindings in {BINDINGS_MAP_KEY} and"
                    " on its cliques"
                ),
                hint=_REMOVE_HINT,
                fixes=(FixAction(DELETE, path),),
            )
        bound = {w.clique for w in pcs.workloads if w.misplaced is None}
        stray = sorted(name for name in pcs.map.entries if name not in bound)
        if stray:
            fixes = next(
                (copy_fixes(ctx, w, w.copies[1]) for w in pcs.workloads if w.misplaced is None),
                (FixAction(DELETE, MAP_PATH),),
            )
            for name in stray:
                if name not in pcs.clique_names:
                    why = "no such clique"
                elif name in pcs.gms_cliques:
                    why = "a GPU memory service clique that restores from no checkpoint"
                else:
                    why = "a clique that restores from no checkpoint"
                yield finding_at(
                    pcs.obj,
                    MAP_PATH,
                    rule=ID,
                    severity=WARNING,
                    message=(
                        f"PCS {pcs.obj.namespace}/{pcs.obj.name}: the checkpoint map"
                        f" {BINDINGS_MAP_KEY} has an entry for {name} ({why})"
                    ),
                    hint=_REMOVE_HINT if fixes else hint_for(fixes),
                    fixes=fixes,
                )
    for workload in ctx.workloads():
        yield from _workload(ctx, workload)


def _workload(ctx: LintContext, workload: Workload) -> Iterator[Finding]:
    present = [c for c in workload.copies if c.value]
    if workload.misplaced is not None:
        for copy in present:
            if copy.map_entry is not None:
                continue  # a map entry of such a clique is a stray entry (above)
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=WARNING,
                message=f"{workload.misplaced}, but its {copy.label} carries a binding",
                hint=_REMOVE_HINT,
                fixes=copy_fixes(ctx, workload, copy),
            )
        return
    restore = ctx.resolve(workload)
    if restore.state == MANUAL:
        for copy in present:
            yield finding_at(
                copy.obj,
                copy.path,
                rule=ID,
                severity=ERROR,
                message=f"{workload.label}: its {copy.label} carries a binding, but"
                f" {restore.reason} (admission: denied)",
                hint=_REMOVE_HINT,
                fixes=copy_fixes(ctx, workload, copy),
            )
        return
    if workload.odd is not None and present:
        yield finding_at(
            present[0].obj,
            present[0].path,
            rule=ID,
            severity=WARNING,
            message=f"{workload.odd}, yet it is a {restore.shape} restoring from checkpoint"
            f" {restore.name}, with a binding",
            hint=odd_hint(workload),
        )


def _label_sites(obj: SourceObject) -> list[Path]:
    """Where an object keeps labels its pods (or itself) carry."""
    if obj.kind == PCS_KIND:
        cliques = mapping_at(obj.data, ("spec", "template")).get("cliques")
        count = len(cliques) if isinstance(cliques, list) else 0
        return [
            ("metadata", "labels"),
            *(("spec", "template", "cliques", i, "labels") for i in range(count)),
        ]
    return [("metadata", "labels"), (*dcd_template_annotations(obj)[:-1], "labels")]


def _in_labels(ctx: LintContext) -> Iterator[Finding]:
    objects = [w.obj for w in ctx.dcds] + [p.obj for p in ctx.pcss]
    for obj in objects:
        for site in _label_sites(obj):
            labels = mapping_at(obj.data, site)
            for key in (BINDING_KEY, BINDINGS_MAP_KEY):
                if key not in labels:
                    continue
                path = (*site, key)
                yield finding_at(
                    obj,
                    path,
                    rule=ID,
                    severity=ERROR,
                    key=True,
                    message=f"{obj.kind} {obj.namespace}/{obj.name}: {key} is a label at"
                    f" {'.'.join(str(p) for p in site)}; it is an annotation, and no binding is a"
                    " valid label value (the API server refuses the object)",
                    hint=_REMOVE_HINT,
                    fixes=(FixAction(DELETE, path),),
                )
