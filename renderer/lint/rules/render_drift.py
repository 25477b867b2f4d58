"""With `--dgd`: committed objects differ from a fresh render of that DGD.

Lint renders the DGD again with the same captured checkpoints (`--checkpoint` and the
DynamoCheckpoint objects among the linted paths; under `--trusted-key` only trusted ones),
for the target the committed objects show: a PodCliqueSet means `grove`, DCDs mean `dcd`
(nothing committed: the DGD's default target). Each committed DCD or PodCliqueSet of that
DGD (same namespace, and the label `nvidia.com/dynamo-graph-deployment-name`, or the kind
and name of a rendered object) is compared with the rendered object of the same kind,
namespace and name. The data are compared, not the text: comments, quoting and key order do
not count, and neither do the binding copies (the checkpoint binding annotations and the
PodCliqueSet checkpoint map): the `binding-*` rules check those against the same snapshots,
so a wrong binding is one finding, not also a drift. Nor do the fields the API server and
controllers populate, as `kubectl diff` and Argo CD leave them out: `status`,
`metadata.uid`, `resourceVersion`, `generation`, `creationTimestamp`, `deletionTimestamp`,
`deletionGracePeriodSeconds`, `managedFields`, `ownerReferences`, `selfLink`, and the
annotations `kubectl.kubernetes.io/last-applied-configuration`,
`nvidia.com/last-applied-hash` and `nvidia.com/last-applied-generation` (the operator's
record of what it applied) and `nvidia.com/dcd-spec` / `nvidia.com/dcd-status` (its API
conversion bookkeeping), left out on both sides (the operator writes its dcd-spec record on
the DCDs it creates, so a render has it too). So `kubectl get dcd,pcs -o yaml` of an
up-to-date workload, one object per document or one `kind: List`, lints clean. The finding
is at the first differing key, and its message shows the first hunk of a unified diff (both
sides as `dynamo-render render` writes them). A rendered object that is not committed is
reported at the DGD, a committed one the render does not produce at its `metadata.name`,
and a DGD that cannot be rendered with these snapshots (render finds none for a
checkpointed component, say) at the place render names. A DGD the API server or the
operator's webhooks refuse (a field its CRD does not declare, a schema violation, an
admission error) is not a finding: lint stops with exit 2 and render's message, as
render does. Not fixed by `--fix`: render again.

Bad (the DGD now asks for 3 decode replicas; the committed DCD still says 2):

    --- committed: rendered/dcd.yaml
    +++ rendered: llama-disagg/dgd.yaml
    @@ -14,3 +14,3 @@
       backendFramework: vllm
    -  replicas: 2
    +  replicas: 3

Fixed: `dynamo-render render llama-disagg/dgd.yaml --checkpoint snapshots --target dcd
> rendered/dcd.yaml`, and commit the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.constants import DCD_KIND, PCS_KIND, TARGET_DCD, TARGET_GROVE, Target
from renderer.errors import InputError
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY, DGD_NAME_LABEL
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity, finding_at
from renderer.lint.sites import mapping_at
from renderer.record import replace
from renderer.schema.violation import json_path
from renderer.source.model import SourceObject

ID = "render-drift"
SEVERITY: Severity = ERROR
HINT = "render the DGD again (`dynamo-render render DGD_FILE --checkpoint ...`) and commit it"
_SHORT = {DCD_KIND: "DCD", PCS_KIND: "PCS"}

Identity = tuple[str, str, str]  # kind, namespace, name


def _identity_of(data: dict[str, Any]) -> Identity:
    meta = mapping_at(data, ("metadata",))
    return (str(data.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")))


def _label(identity: Identity) -> str:
    kind, namespace, name = identity
    return f"{_SHORT.get(kind, kind)} {namespace}/{name}" if namespace else f"{kind} {name}"


def _of_dgd(obj: SourceObject, dgd: SourceObject) -> bool:
    labels = mapping_at(obj.data, ("metadata", "labels"))
    return obj.namespace == dgd.namespace and labels.get(DGD_NAME_LABEL) == dgd.name


def _target(committed: list[SourceObject]) -> Target | None:
    kinds = {obj.kind for obj in committed}
    if PCS_KIND in kinds:
        return TARGET_GROVE
    return TARGET_DCD if DCD_KIND in kinds else None


def check(ctx: LintContext) -> Iterator[Finding]:
    dgd = ctx.dgd
    if dgd is None:
        return
    from renderer.render import render  # noqa: PLC0415 - the operator emulation only for a lint given --dgd

    workloads = [o for o in ctx.objects if o.kind in (DCD_KIND, PCS_KIND)]
    labelled = [o for o in workloads if _of_dgd(o, dgd)]
    target = _target(labelled)
    snapshots = [s.obj for s in ctx.snapshots if s.untrusted is None]
    try:
        result = render(dgd, snapshots, target=target, config=ctx.operator)
    except InputError as exc:
        yield _render_refused(dgd, exc)
        return
    rendered = {_identity_of(obj): obj for obj in result.objects}
    dgd_label = f"DGD {dgd.namespace}/{dgd.name} (target {result.target})"
    committed: dict[Identity, SourceObject] = {}
    for obj in workloads:
        identity = (obj.kind, obj.namespace, obj.name)
        if identity in rendered or _of_dgd(obj, dgd):
            committed.setdefault(identity, obj)
    for identity, obj in committed.items():
        fresh = rendered.get(identity)
        if fresh is None:
            yield finding_at(
                obj,
                ("metadata", "name"),
                rule=ID,
                severity=SEVERITY,
                message=f"{_label(identity)} is committed, but a fresh render of {dgd_label}"
                " does not produce it",
                hint="delete it, or render the DGD again and commit the result",
                key=True,
            )
            continue
        yield from _compare(obj, fresh, dgd, dgd_label)
    for identity in rendered:
        if identity not in committed:
            yield finding_at(
                dgd,
                ("metadata", "name"),
                rule=ID,
                severity=SEVERITY,
                message=f"a fresh render of {dgd_label} produces {_label(identity)},"
                " which is not among the linted objects",
                hint=HINT,
                key=True,
            )


def _compare(
    obj: SourceObject, fresh: dict[str, Any], dgd: SourceObject, dgd_label: str
) -> Iterator[Finding]:
    from renderer.lint.drift import first_difference, first_hunk, without_server_fields  # noqa: PLC0415 - the drift report (and the YAML emitter) only for a lint given --dgd

    committed = _without_bindings(without_server_fields(obj.data))
    # the same fields go on the rendered side: the operator writes some of them itself
    # (its dcd-spec record, a zero status), and they are never compared
    rendered = _without_bindings(without_server_fields(fresh))
    path = first_difference(committed, rendered)
    if path is None:
        return
    diff = first_hunk(
        committed, rendered, names=(f"committed: {obj.file}", f"rendered: {dgd.file}")
    )
    yield finding_at(
        obj,
        path,
        rule=ID,
        severity=SEVERITY,
        message=f"{_label((obj.kind, obj.namespace, obj.name))} differs from a fresh render"
        f" of {dgd_label} at {json_path(path)}:\n{diff}",
        hint=HINT,
        key=True,
    )


_BINDING_KEYS = frozenset({BINDING_KEY, BINDINGS_MAP_KEY})


def _without_bindings(node: Any) -> Any:
    """`node` without binding copies (in any `annotations` mapping), and without a mapping
    that only they filled."""
    if isinstance(node, list):
        return [_without_bindings(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "annotations" and isinstance(value, dict):
            kept = {k: v for k, v in value.items() if k not in _BINDING_KEYS}
            if kept or not value:
                out[key] = kept
            continue
        stripped = _without_bindings(value)
        if isinstance(value, dict) and value and not stripped:
            continue  # emptied by the stripping: as if absent
        out[key] = stripped
    return out


def _render_refused(dgd: SourceObject, exc: InputError) -> Finding:
    finding = finding_at(
        dgd,
        ("metadata", "name"),
        rule=ID,
        severity=SEVERITY,
        message=f"cannot render DGD {dgd.namespace}/{dgd.name} to compare: {exc.message}",
        hint="fix what render reports (`dynamo-render render DGD_FILE --checkpoint ...`)",
        key=True,
    )
    if exc.file and exc.line is not None:
        finding = replace(finding, file=exc.file, line=exc.line, column=exc.column or 1)
    return finding
