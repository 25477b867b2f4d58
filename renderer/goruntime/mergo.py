"""``mergo.Merge(&dst, src, mergo.WithOverride)`` of github.com/imdario/mergo v0.3.16.

The operator's pin, walking the Go types (goruntime.typetable) over values in the model of
goruntime.encoding_json (``None`` or an absent key is Go's zero value):

- struct: field by field; a src field at its zero value never changes dst (an absent key
  changes nothing, and neither do ``""``, ``0``, ``false``);
- scalar: src replaces dst unless src is empty;
- pointer: nil src changes nothing; nil dst takes src (even a pointer to zero); both set
  merges the targets, so ``terminationGracePeriodSeconds: 0`` does NOT override 60;
- slice: a non-empty src replaces dst wholesale; an empty src changes nothing;
- map: src entries overwrite dst's (a non-nil empty src map turns a nil dst into an empty
  one);
- intstr.IntOrString merges its three fields (type, intVal, strVal) like any struct;
  metav1.Time has no exported field, so src replaces dst; FieldsV1 and apiextensions JSON
  merge their one exported field, the raw bytes (a non-empty src replaces dst).

A case whose Go outcome depends on unexported state (a resource.Quantity merged into
another, maps of pointers, slices or maps) raises MergeError naming the path instead of
guessing. Inputs are never modified; the merged value is returned (a struct as a dict that
leaves out the fields at their zero value it did not hold).
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.errors import NotReproducedError, PathTuple
from renderer.goruntime.typetable import field_index, short_name, struct_fields
from renderer.jsoncopy import deep_copy


class MergeError(NotReproducedError):
    """A merge whose Go result this emulation does not reproduce."""


def merge(dst: Any, src: Any, t: dict[str, Any], path: PathTuple = ()) -> Any:
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
    if kind in ("struct", "special"):
        return False
    return not v


def _merge(dst: Any, src: Any, t: dict[str, Any], path: PathTuple) -> Any:
    kind = t["kind"]
    if kind == "struct":
        return _merge_struct(dst, src, t["name"], path)
    if kind == "ptr":
        if src is None:
            return dst
        if dst is None:
            return src
        merged = _merge(dst, src, t["elem"], path)
        return _zero_target(t["elem"]) if merged is None else merged
    if kind == "slice":
        return src if src else dst
    if kind == "map":
        if src is None:
            return dst
        if t["elem"]["kind"] in ("ptr", "slice", "map"):
            raise MergeError("merging maps of this element kind is not reproduced", path)
        out = dst if dst is not None else {}
        out.update(src)  # non-pointer elements: the source entry always lands
        return out
    if kind == "special":
        return _merge_special(dst, src, t, path)
    return dst if _empty(src, t) else src


def _zero_target(t: dict[str, Any]) -> Any:
    return {} if t["kind"] == "struct" else None


def _merge_struct(dst: Any, src: Any, name: str, path: PathTuple) -> dict[str, Any]:
    out: dict[str, Any] = dst if dst is not None else {}
    src = src or {}
    known = field_index(name)
    for key in src:
        if key not in known:
            raise MergeError(f"unknown field of {short_name(name)}", (*path, key))
    for field in struct_fields(name):
        key = field["json"]
        t = field["type"]
        if key not in src and t.get("marshaler") != "time":
            continue  # a zero source field changes nothing (a Time is assigned, even zero)
        merged = _merge(out.get(key), src.get(key), t, (*path, key))
        if merged is None or (merged == {} and t["kind"] == "struct"):
            out.pop(key, None)
        else:
            out[key] = merged
    return out


def _merge_special(dst: Any, src: Any, t: dict[str, Any], path: PathTuple) -> Any:
    how = t["marshaler"]
    if how == "time":
        return src  # no exported field: mergo assigns the source (a struct is never empty)
    if src is None:
        return dst
    if how == "intorstring":
        return _merge_int_or_string(dst, src)
    if how == "raw":
        return src  # the exported Raw bytes: a non-empty source replaces them
    raise MergeError(
        f"merging a {short_name(t['name'])} value over another is not reproduced", path
    )


def _merge_int_or_string(dst: int | str | None, src: int | str) -> int | str:
    # IntOrString is a struct of exported fields {Type, IntVal, StrVal}: each merges on its
    # own, so a string source turns the type to string and a zero field keeps dst's.
    def parts(v: int | str | None) -> tuple[int, int, str]:
        if v is None:
            return 0, 0, ""
        return (1, 0, v) if isinstance(v, str) else (0, int(v), "")

    d_type, d_int, d_str = parts(dst)
    s_type, s_int, s_str = parts(src)
    typ = s_type or d_type
    return (s_str or d_str) if typ == 1 else (s_int or d_int)
