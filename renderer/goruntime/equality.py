"""apimachinery ``equality.Semantic.DeepEqual`` and ``reflect.DeepEqual`` over typed values.

Values are in the model of goruntime.encoding_json (sparse or plain: ``None`` or an absent
key is Go's zero value, a non-nil pointer is its target):

- ``semantic_equal``: nil and empty slices and maps are equal, quantities compare by value
  (their canonical text), pointers by target;
- ``reflect_equal``: the same, except that a nil slice or map differs from an empty one.

A key the struct does not have raises NotReproducedError: Go's value cannot hold it.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import encode
from renderer.goruntime.errors import NotReproducedError
from renderer.goruntime.typetable import field_index, struct_fields, zero_scalar


def semantic_equal(a: Any, b: Any, t: dict[str, Any]) -> bool:
    """``equality.Semantic.DeepEqual`` of two values of type ``t``."""
    return _equal(a, b, t, semantic=True)


def reflect_equal(a: Any, b: Any, t: dict[str, Any]) -> bool:
    """``reflect.DeepEqual`` of two values of type ``t``."""
    return _equal(a, b, t, semantic=False)


def is_semantic_zero(v: Any, t: dict[str, Any]) -> bool:
    """``Semantic.DeepEqual(v, zero value)``."""
    return _equal(v, None, t, semantic=True)


def _equal(a: Any, b: Any, t: dict[str, Any], *, semantic: bool) -> bool:
    kind = t["kind"]
    if kind == "ptr":
        if (a is None) != (b is None):
            return False
        return a is None or _equal(a, b, t["elem"], semantic=semantic)
    if kind in ("slice", "map"):
        if semantic:
            if not a and not b:
                return True
        elif (a is None) != (b is None):
            return False
        if a is None or b is None or len(a) != len(b):
            return False
        elem = t["elem"]
        if kind == "slice":
            if elem["kind"] == "uint8":
                return bool(a == b)
            return all(_equal(x, y, elem, semantic=semantic) for x, y in zip(a, b, strict=True))
        return set(a) == set(b) and all(_equal(a[k], b[k], elem, semantic=semantic) for k in a)
    if kind == "struct":
        a = a or {}
        b = b or {}
        known = field_index(t["name"])
        for key in (*a, *b):
            if key not in known:
                raise NotReproducedError(f"unknown field in a {t['name']} comparison", (key,))
        return all(
            _equal(a.get(f["json"]), b.get(f["json"]), f["type"], semantic=semantic)
            for f in struct_fields(t["name"])
        )
    return bool(_canonical(a, t) == _canonical(b, t))


def _canonical(v: Any, t: dict[str, Any]) -> Any:
    """A scalar or marshaler value as Go compares it: zero for None, quantities by value."""
    if v is None:
        return zero_scalar(t)
    if t["kind"] == "special" and t["marshaler"] in ("quantity", "time"):
        return encode(v, t)
    return v
