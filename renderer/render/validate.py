"""The schema-validation seam: called on the input DGD and on every rendered object.

The DGD is checked for fields its CRD does not declare (the API server's strict field
validation, `renderer.schema.fields`); the JSON Schema checks run in the CLI
(`renderer.schema.guard`), where `--crd` is known. jsonschema stays imported lazily.
"""

from __future__ import annotations

from typing import Any

from renderer.source.model import SourceObject


def validate_input(dgd: SourceObject) -> None:
    """Raise InputError (located, at the key) for the first field of the DGD its CRD (the
    pinned operator's) does not declare."""
    from renderer.schema.fields import unknown_field_error

    error = unknown_field_error(dgd)
    if error is not None:
        raise error


def validate_output(obj: dict[str, Any], target: str) -> None:
    """Raise DynamoRenderError when a rendered object does not match its schema."""
    del obj, target
