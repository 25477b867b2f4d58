"""A committed DCD, PodCliqueSet or DynamoCheckpoint snapshot does not match its schema.

Checks each DynamoComponentDeployment and PodCliqueSet, and each DynamoCheckpoint snapshot
(among the paths or given with `--checkpoint`, manual ones included: `labels: [a, b]` is no
object the API server stores), against the schema bundled for its apiVersion and kind
(`schemas/` in the repository), or, with `--crd FILE`, against the installed operator's
CustomResourceDefinition, which also reports fields that version does
not know (the API server would silently drop them). Reported at the offending value, with
its JSON path. A binding value the operator cannot parse, or parses but that is not in
canonical form (upper-case hex, a leading `+` or zero in the generation), is left to
`binding-malformed`, which quotes the operator's parse error or names the canonical
value, so that one problem is one finding.

Bad (a string where the API wants an integer; the API server rejects the object):

    spec:
      replicas: "2"

Fixed:

    spec:
      replicas: 2
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.constants import CHECKPOINT_KIND, DCD_KIND, PCS_KIND
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity
from renderer.schema import validate
from renderer.source.model import Path

ID = "schema"
SEVERITY: Severity = ERROR
CHECKED_KINDS = frozenset({DCD_KIND, PCS_KIND, CHECKPOINT_KIND})
HINT = "fix the value (or re-render the manifest with `dynamo-render render`)"


def _value_at(data: Any, path: Path) -> Any:
    for step in path:
        if isinstance(step, int):
            data = data[step] if isinstance(data, list) and step < len(data) else None
        else:
            data = data.get(step) if isinstance(data, dict) else None
    return data


def _left_to_binding_malformed(ctx: LintContext, data: Any, path: Path) -> bool:
    if len(path) < 2 or path[-2] != "annotations":
        return False
    if path[-1] == BINDINGS_MAP_KEY:
        return True  # a JSON text: binding-malformed reports it when it does not parse
    if path[-1] != BINDING_KEY:
        return False
    value = _value_at(data, path)
    if not isinstance(value, str):
        return True
    parsed = ctx.parse(value)
    # unparsable, or parsable but not canonical (`+1`, `01`, upper-case hex): both are
    # binding-malformed, which names the operator's reading and the canonical value
    return isinstance(parsed, str) or str(parsed) != value


def check(ctx: LintContext) -> Iterator[Finding]:
    extra = ctx.schemas
    # the snapshots too, manual ones included (`--checkpoint` files are not among `objects`)
    seen: set[tuple[str, int, int | None]] = set()
    for obj in [*ctx.objects, *(snap.obj for snap in ctx.snapshots)]:
        identity = (obj.file, obj.doc_index, obj.item_index)
        if obj.kind not in CHECKED_KINDS or identity in seen:
            continue
        seen.add(identity)
        for violation in validate(obj, extra_schemas=extra):
            if _left_to_binding_malformed(ctx, obj.data, violation.path):
                continue
            yield Finding(
                rule=ID,
                severity=SEVERITY,
                message=f"{obj.kind} {obj.name}: {violation.json_path}: {violation.message}"
                f" (schema {violation.schema})",
                hint=HINT,
                file=obj.file,
                line=violation.line,
                column=violation.column,
                doc_index=obj.doc_index,
                kind=obj.kind,
                namespace=obj.namespace,
                name=obj.name,
                item_index=obj.item_index,
            )
