"""Plain YAML-read values as Go `encoding/json` text (what YAMLToJSON would produce)."""

from __future__ import annotations

from typing import Any

from renderer.gojson import encode_string, format_float


def to_go_json(value: Any) -> str:
    """Compact JSON with keys sorted by bytes, strings and floats written as Go writes them.

    Recursive: the reader caps nesting depth well below Python's recursion limit.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, list):
        return "[" + ",".join(to_go_json(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8", "surrogatepass"))
        return "{" + ",".join(f"{encode_string(k)}:{to_go_json(value[k])}" for k in keys) + "}"
    raise TypeError(f"not a plain YAML value: {type(value).__name__}")
