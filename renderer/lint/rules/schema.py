"""A committed DCD or PodCliqueSet does not match its schema.

Checks each DynamoComponentDeployment and PodCliqueSet against the schema bundled for its
apiVersion and kind (`schemas/` in the repository), or, with `--crd FILE`, against the
installed operator's CustomResourceDefinition, which also reports fields that version does
not know (the API server would silently drop them). Reported at the offending value, with
its JSON path. Malformed binding values are left to `binding-malformed`, which names the
operator's own parse error.

Bad (a string where the API wants an integer; the API server rejects the object):

    spec:
      replicas: "2"

Fixed:

    spec:
      replicas: 2
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding
from renderer.source.model import Path

ID = "schema"
SEVERITY = ERROR
CHECKED_KINDS = frozenset({"DynamoComponentDeployment", "PodCliqueSet"})
# LintContext.memo key holding `--crd` schemas ((apiVersion, kind) -> schema), when given.
EXTRA_SCHEMAS_MEMO = "schema.extra"
HINT = "fix the value (or re-render the manifest with `dynamo-render render`)"


def _is_binding_copy(path: Path) -> bool:
    return (
        len(path) >= 2
        and path[-2] == "annotations"
        and path[-1]
        in (
            BINDING_KEY,
            BINDINGS_MAP_KEY,
        )
    )


def check(ctx: LintContext) -> Iterator[Finding]:
    from renderer.schema import validate

    extra: Mapping[tuple[str, str], dict[str, Any]] | None = ctx.memo.get(EXTRA_SCHEMAS_MEMO)
    for obj in ctx.objects:
        if obj.kind not in CHECKED_KINDS:
            continue
        for violation in validate(obj, extra_schemas=extra):
            if _is_binding_copy(violation.path):
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
