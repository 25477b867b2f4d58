"""``mergo.Merge(&dst, src, mergo.WithOverride)`` (github.com/imdario/mergo v0.3.16) on dicts.

The operator layers user pod-template values over its defaults with mergo, whose rules are
not a plain deep merge. With ``WithOverride`` and no other option, walking the Go types:

- struct: field by field; a src field at its zero value never changes dst (so an absent
  key changes nothing, and neither do ``""``, ``0``, ``false``);
- scalar: src replaces dst unless src is empty;
- pointer: nil src changes nothing; nil dst takes src (even a pointer to zero); both set
  merges the pointees, so ``terminationGracePeriodSeconds: 0`` does NOT override 60;
- slice: a non-empty src replaces dst wholesale (no element merge); empty src changes nothing;
- map: keys are merged, src values replace dst values (a non-nil empty src map turns a nil
  dst into an empty one);
- intstr.IntOrString merges its three fields (type, intVal, strVal) like any struct.

A case whose Go outcome depends on unexported state (a resource.Quantity merged into another,
maps of pointers or slices) raises MergeError naming the path instead of guessing. Inputs are
never modified; the merged value is returned.
"""

from __future__ import annotations

from typing import Any

from renderer.jsoncopy import deep_copy
from renderer.operator.errors import OperatorError
from renderer.operator.gomarshal import (
    FIELDS_V1,
    INT_OR_STRING,
    QUANTITY,
    TIME,
    struct_desc,
    struct_fields,
)


class MergeError(OperatorError):
    """A merge whose Go result this emulation does not reproduce."""


def merge_override(dst: dict[str, Any] | None, src: dict[str, Any] | None, name: str) -> Any:
    """mergo.Merge(&dst, src, WithOverride) for two values of struct type ``name``."""
    return _merge(
        dst if dst is not None else {}, src if src is not None else {}, struct_desc(name), name
    )


def _is_empty(value: Any, desc: dict[str, Any]) -> bool:
    """mergo's isEmptyValue (pointers dereferenced) for a JSON value of this type."""
    if value is None:
        return True
    kind = desc["kind"]
    if kind == "ptr":
        return _is_empty(value, desc["elem"])
    if kind == "string":
        return bool(value == "")
    if kind == "bool":
        return value is False
    if kind in {"int32", "int64"}:
        return bool(value == 0)
    if kind in {"slice", "map"}:
        return len(value) == 0
    return False  # structs are never empty to mergo


def _merge(dst: Any, src: Any, desc: dict[str, Any], path: str) -> Any:
    kind = desc["kind"]
    if kind == "struct":
        return _merge_struct(dst, src, desc, path)
    if kind == "ptr":
        if src is None:
            return dst
        if dst is None:
            return deep_copy(src)
        return _merge(dst, src, desc["elem"], path)
    if kind == "slice":
        if src is None or len(src) == 0:
            return dst
        return deep_copy(src)
    if kind == "map":
        return _merge_map(dst, src, desc, path)
    # string, bool, ints: set unless the source is empty
    return dst if _is_empty(src, desc) else src


def _merge_map(dst: Any, src: Any, desc: dict[str, Any], path: str) -> Any:
    if src is None:
        return dst
    elem_kind = desc["elem"]["kind"]
    if elem_kind in {"ptr", "slice", "map"}:
        raise MergeError(f"{path}: merging a map of {elem_kind} values is not reproduced")
    out = dict(dst) if dst is not None else {}
    for key, value in src.items():
        out[key] = deep_copy(value)  # overwrite: the source element always lands
    return out


def _merge_struct(dst: Any, src: Any, desc: dict[str, Any], path: str) -> Any:
    name = desc.get("name", "")
    if name == INT_OR_STRING:
        return _merge_int_or_string(dst, src)
    if name == QUANTITY:
        if src is None:
            return dst
        raise MergeError(
            f"{path}: merging a resource.Quantity value over another is not reproduced"
        )
    if name in {TIME, FIELDS_V1}:
        # No mergeable fields: mergo assigns src (a struct is never "empty").
        return deep_copy(src) if src is not None else dst
    fields = struct_fields(name)
    base = dict(dst) if dst is not None else {}
    if src is None:
        return base
    for key, value in src.items():
        spec = fields.get(key)
        if spec is None:
            raise MergeError(f"{path}.{key}: unknown field of {name.rsplit('.', 1)[-1]}")
        if value is None:
            continue  # JSON null decodes to the zero value: no effect
        merged = _merge(base.get(key), value, spec.type, f"{path}.{key}")
        if merged is None:
            base.pop(key, None)
        else:
            base[key] = merged
    return base


def _merge_int_or_string(dst: Any, src: Any) -> Any:
    """IntOrString{Type, IntVal, StrVal} merged field by field, as mergo does."""
    if src is None:
        return dst
    d_type, d_int, d_str = _ios_fields(dst)
    s_type, s_int, s_str = _ios_fields(src)
    m_type = s_type if s_type != 0 else d_type
    m_int = s_int if s_int != 0 else d_int
    m_str = s_str if s_str != "" else d_str
    return m_str if m_type == 1 else m_int


def _ios_fields(value: Any) -> tuple[int, int, str]:
    if value is None:
        return 0, 0, ""
    if isinstance(value, str):
        return 1, 0, value
    return 0, int(value), ""
