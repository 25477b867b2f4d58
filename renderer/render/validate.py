"""The schema-validation seam: called on the input DGD and on every rendered object.

No-ops for now. Schema validation (issue 5) plugs in here without touching the renderers;
it must keep jsonschema imported lazily, inside these functions.
"""

from __future__ import annotations

from typing import Any

from renderer.source.model import SourceObject


def validate_input(dgd: SourceObject) -> None:
    """Raise InputError (located) when the DGD does not match its CRD schema."""
    del dgd


def validate_output(obj: dict[str, Any], target: str) -> None:
    """Raise DynamoRenderError when a rendered object does not match its schema."""
    del obj, target
