"""api/v1beta1/marshal.go: the v1beta1 root objects' MarshalJSON.

Go's encoder writes ``{}`` for every value-typed struct field; the v1beta1 MarshalJSON then
walks the JSON along the Go types and drops each empty object whose field is a non-pointer
struct (pointer-typed empty objects stay: they are set). The root's ``metadata`` stays.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import encode
from renderer.goruntime.typetable import field_index, struct_type


def normalize_v1beta1_json(wire: Any, t: dict[str, Any]) -> Any:
    """normalizeV1Beta1JSON, in place on an encoded value: drop ``{}`` of value structs."""
    while t["kind"] == "ptr":
        t = t["elem"]
    kind = t["kind"]
    if isinstance(wire, dict) and kind == "struct":
        idx = field_index(t["name"])
        for key in list(wire):
            field = idx.get(key)
            if field is None:
                continue
            child = normalize_v1beta1_json(wire[key], field["type"])
            if isinstance(child, dict) and not child and field["type"]["kind"] == "struct":
                del wire[key]
    elif isinstance(wire, dict) and kind == "map":
        for key in wire:
            normalize_v1beta1_json(wire[key], t["elem"])
    elif isinstance(wire, list) and kind == "slice":
        for item in wire:
            normalize_v1beta1_json(item, t["elem"])
    return wire


def marshal_root(value: Any, type_name: str) -> Any:
    """A v1beta1 root object as its MarshalJSON writes it (as a JSON value)."""
    t = struct_type(type_name)
    out = normalize_v1beta1_json(encode(value, t), t)
    if isinstance(out, dict):
        out.setdefault("metadata", {})  # the object envelope is kept
    return out
