"""Plain YAML-read values as Go `encoding/json` text (what YAMLToJSON would produce)."""

from __future__ import annotations

from typing import Any

from renderer.gojson import encode_string, format_float


def _key_bytes(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


def to_go_json(value: Any) -> str:
    """Compact JSON with keys sorted by bytes, strings and floats written as Go writes them.

    Recursive, one frame per level: the reader caps nesting depth (256) well below
    Python's recursion limit.
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
    # Plain loops, not generator expressions: one Python frame per nesting level.
    if isinstance(value, list):
        items = []
        for item in value:
            items.append(to_go_json(item))
        return "[" + ",".join(items) + "]"
    if isinstance(value, dict):
        members = []
        for key in sorted(value, key=_key_bytes):
            members.append(encode_string(key) + ":" + to_go_json(value[key]))
        return "{" + ",".join(members) + "}"
    raise TypeError(f"not a plain YAML value: {type(value).__name__}")
