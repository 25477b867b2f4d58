"""Schema checks as the render command needs them: stop at the first bad input or output.

Rendering must never print or write anything when an input or an output breaks its schema
(exit 2, one message with file:line:column and the JSON path).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from renderer.schema.check import Schemas, validate, validate_data, violations_error
from renderer.schema.violation import Violation
from renderer.source.model import SourceObject


def check_inputs(objects: Iterable[SourceObject], extra_schemas: Schemas | None = None) -> None:
    """Raise InputError for the first object (in order) with schema violations."""
    for obj in objects:
        violations = validate(obj, extra_schemas=extra_schemas)
        if violations:
            raise violations_error(violations)


def check_outputs(
    documents: Sequence[tuple[str, dict[str, Any]]],
    extra_schemas: Schemas | None = None,
) -> None:
    """Raise InputError when a rendered object breaks its schema.

    Positions refer to the object's own rendered YAML document, named
    `<rendered Kind/name from SOURCE>`: the object was never written anywhere.
    """
    from renderer.yamlout import dump_object  # noqa: PLC0415 - the YAML emitter stays off a lint, which checks no rendered output

    for source, obj in documents:
        violations: list[Violation] = validate_data(obj, "", extra_schemas=extra_schemas)
        if not violations:
            continue
        metadata = obj.get("metadata")
        name = metadata.get("name", "") if isinstance(metadata, dict) else ""
        label = f"<rendered {obj.get('kind', '')}/{name} from {source}>"
        located = validate_data(obj, label, text=dump_object(obj), extra_schemas=extra_schemas)
        raise violations_error(located or violations)
