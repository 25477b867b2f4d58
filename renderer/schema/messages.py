"""jsonschema errors to short messages a YAML author can act on.

jsonschema's own messages print whole Python reprs of the offending value (a pod spec can be
pages long); these name the rule and show at most a short excerpt of the value.
"""

from __future__ import annotations

import json
from typing import Any

_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "null": "null",
}
_EXCERPT = 60


def type_name(value: Any) -> str:
    """The JSON type of a read YAML value, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _TYPE_NAMES["boolean"]
    if isinstance(value, int):
        return _TYPE_NAMES["integer"]
    if isinstance(value, float):
        return _TYPE_NAMES["number"]
    if isinstance(value, str):
        return _TYPE_NAMES["string"]
    if isinstance(value, list):
        return _TYPE_NAMES["array"]
    return _TYPE_NAMES["object"]


def excerpt(value: Any) -> str:
    """A value as short JSON text (cut at ~60 characters)."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 3] + "..."


def _expected_types(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    words = [_TYPE_NAMES.get(n, n) for n in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def describe(validator: str, expected: Any, instance: Any, schema: dict[str, Any]) -> str | None:
    """The message for one failed keyword, or None to fall back to jsonschema's text."""
    if validator == "type":
        return f"must be {_expected_types(expected)}, not {type_name(instance)}"
    if validator == "enum":
        choices = ", ".join(excerpt(v) for v in expected)
        # Stricter than the operator, which renders any value: the enum is the CRD's, the
        # API server's rule.
        return f"must be one of {choices}; got {excerpt(instance)} (the API server refuses others)"
    if validator == "const":
        return f"must be {excerpt(expected)}; got {excerpt(instance)}"
    if validator == "pattern":
        hint = schema.get("description")
        text = f"{excerpt(instance)} does not match {expected}"
        return f"{text} (expected {hint})" if isinstance(hint, str) else text
    if validator == "minimum":
        return f"must be at least {expected}; got {excerpt(instance)}"
    if validator == "maximum":
        return f"must be at most {expected}; got {excerpt(instance)}"
    if validator == "exclusiveMinimum":
        return f"must be greater than {expected}; got {excerpt(instance)}"
    if validator == "exclusiveMaximum":
        return f"must be less than {expected}; got {excerpt(instance)}"
    if validator == "minLength":
        return "must not be empty" if expected == 1 else f"must be at least {expected} characters"
    if validator == "maxLength":
        return f"must be at most {expected} characters; got {len(instance)}"
    if validator == "minItems":
        return "must not be empty" if expected == 1 else f"must have at least {expected} items"
    if validator == "maxItems":
        return f"must have at most {expected} items; got {len(instance)}"
    if validator == "not" and isinstance(expected, dict) and "pattern" in expected:
        return f"{excerpt(instance)} must not match {expected['pattern']}"
    if validator == "uniqueItems":
        return "items must be unique"
    return None
