"""Go's value comparisons and mergo's merge, on sparse values (see dgd_types).

- ``semantic_equal``: apimachinery ``equality.Semantic.DeepEqual`` (nil and empty slices
  and maps are equal, quantities compare by value, pointers by target).
- ``reflect_equal``: ``reflect.DeepEqual`` (nil and empty slices/maps differ).
- ``mergo_merge``: ``mergo.Merge(&dst, src, mergo.WithOverride)`` of github.com/imdario/mergo
  v0.3.16 (the operator's pin): struct fields merge one by one, a non-empty source scalar
  wins, a non-empty source slice replaces, map entries of the source overwrite, a source
  pointer fills a nil one and merges into a set one.

Sparse values keep a slice's or map's emptiness (``[]`` vs absent) and a pointer's
presence, so both comparisons can be answered from them.
"""

from __future__ import annotations

from typing import Any

from renderer.jsoncopy import deep_copy
from renderer.operator.admission.dgd_types import struct_fields
from renderer.operator.admission.errors import NotReproducedError, PathTuple


def semantic_equal(a: Any, b: Any, t: dict[str, Any]) -> bool:
    """``equality.Semantic.DeepEqual`` of two sparse values of type ``t``."""
    return _equal(a, b, t, semantic=True)


def reflect_equal(a: Any, b: Any, t: dict[str, Any]) -> bool:
    """``reflect.DeepEqual`` of two sparse values of type ``t``."""
    return _equal(a, b, t, semantic=False)


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
        if a is None or b is None:
            return False
        if len(a) != len(b):
            return False
        if kind == "slice":
            return all(
                _equal(x, y, t["elem"], semantic=semantic) for x, y in zip(a, b, strict=False)
            )
        return set(a) == set(b) and all(_equal(a[k], b[k], t["elem"], semantic=semantic) for k in a)
    if kind == "struct":
        a = a or {}
        b = b or {}
        return all(
            _equal(a.get(f["json"]), b.get(f["json"]), f["type"], semantic=semantic)
            for f in struct_fields(t["name"])
        )
    # Scalars and the marshaler types: sparse values are canonical (a zero is absent,
    # quantities are canonical text, so equal value means equal text).
    return bool(_scalar(a, t) == _scalar(b, t))


def _scalar(v: Any, t: dict[str, Any]) -> Any:
    if v is not None:
        return v
    kind = t["kind"]
    if kind == "string":
        return ""
    if kind == "bool":
        return False
    if kind == "special":
        return {"quantity": "0", "intorstring": 0}.get(t["marshaler"])
    return 0


def is_semantic_zero(v: Any, t: dict[str, Any]) -> bool:
    """``Semantic.DeepEqual(v, zero value)``."""
    return semantic_equal(v, None, t)


def mergo_merge(dst: Any, src: Any, t: dict[str, Any], path: PathTuple = ()) -> Any:
    """The merged value (``dst`` after mergo.Merge with override); inputs are not mutated."""
    return _merge(deep_copy(dst), deep_copy(src), t, path)


def _empty(v: Any, t: dict[str, Any]) -> bool:
    """mergo's isEmptyValue (pointers dereferenced, as ShouldNotDereference is off)."""
    kind = t["kind"]
    if v is None:
        return kind not in ("struct", "special")
    if kind == "ptr":
        return _empty(v, t["elem"])
    if kind in ("slice", "map", "string"):
        return len(v) == 0
    if kind in {"struct", "special"}:
        return False
    return not v


def _merge(dst: Any, src: Any, t: dict[str, Any], path: PathTuple) -> Any:
    kind = t["kind"]
    if kind == "struct":
        out = dict(dst or {})
        for field in struct_fields(t["name"]):
            key = field["json"]
            merged = _merge(out.get(key), (src or {}).get(key), field["type"], (*path, key))
            if merged is None:
                out.pop(key, None)
            else:
                out[key] = merged
        return out or None
    if kind == "ptr":
        if src is None:
            return dst
        if dst is None:
            return src
        inner = t["elem"]
        if inner["kind"] == "struct":
            return _merge(dst, src, inner, path) or {}
        if inner["kind"] in ("slice", "map", "special"):
            raise NotReproducedError("merging a pointer to this kind is not reproduced", path)
        return src if not _empty(src, inner) else dst
    if kind == "slice":
        return src if src else dst
    if kind == "map":
        if src is None:
            return dst
        out = dict(dst or {})
        if t["elem"]["kind"] in ("ptr", "slice", "map"):
            raise NotReproducedError("merging maps of this element kind is not reproduced", path)
        out.update(src)  # non-pointer elements: the source entry always wins
        return out
    if kind == "special":
        if src is None:
            return dst
        if dst is None:
            return src
        if t["marshaler"] == "intorstring":
            return _merge_int_or_string(dst, src)
        raise NotReproducedError(f"merging two {t['name']} values is not reproduced", path)
    return src if src else dst


def _merge_int_or_string(dst: int | str, src: int | str) -> int | str:
    # IntOrString is a struct of exported fields {Type, IntVal, StrVal}: each merges on its
    # own, so a string source turns the type to string and a zero field keeps dst's.
    def parts(v: int | str) -> tuple[int, int, str]:
        return (1, 0, v) if isinstance(v, str) else (0, v, "")

    dt, di, ds = parts(dst)
    st, si, ss = parts(src)
    typ = st or dt
    return (ss or ds) if typ == 1 else (si or di)
