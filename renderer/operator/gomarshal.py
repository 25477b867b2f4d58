"""What Go's encoding/json (and so sigs.k8s.io/yaml) writes for a typed Kubernetes value.

The operator builds typed Go values (corev1.PodSpec, Container, ...) and marshals them; the
emulation builds plain dicts. ``marshal(value, "PodSpec")`` turns such a dict into exactly
the JSON value Go would write for the typed value it stands for:

- an ``omitempty`` field at its zero value is dropped (``""``, ``0``, ``false``, nil or empty
  slice/map, nil pointer); a struct-valued field is never dropped (``resources: {}``);
- a field without ``omitempty`` is always written, absent ones as their zero value
  (``name: ""``, ``null`` for nil pointers, slices and maps);
- resource.Quantity is written in Go's canonical form (``8Gi``, ``1536Mi``), IntOrString as
  number or string as decoded, metav1.Time ``null`` / omitted where ``omitzero``.

The field table is renderer/data/dgd-types.json (generated from the pinned API sources with
k8s.io/api v0.36.2, the version the pinned operator builds with; scripts/gen_dgd_types.py).
A key the table does not know, a value of the wrong JSON type or a Go kind this module does
not write (floats, durations, raw JSON other than FieldsV1) raises GoMarshalError naming the
path: nothing is guessed.

``struct_fields`` exposes the same table to the merge emulation (gomerge.py).
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

CORE = "k8s.io/api/core/v1."
META = "k8s.io/apimachinery/pkg/apis/meta/v1."
QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity"
TIME = "k8s.io/apimachinery/pkg/apis/meta/v1.Time"
INT_OR_STRING = "k8s.io/apimachinery/pkg/util/intstr.IntOrString"
FIELDS_V1 = "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1"

#: Go types the marshaller writes through their own MarshalJSON (by type name).
_MARSHALERS = frozenset({QUANTITY, TIME, INT_OR_STRING, FIELDS_V1})


class GoMarshalError(ValueError):
    """A value Go's typed decode/encode would reject, or a field this table does not know."""


class GoField(NamedTuple):
    """One JSON field of a Go struct: key, omitempty/omitzero and its type descriptor."""

    json: str
    omitempty: bool
    omitzero: bool
    type: dict[str, Any]


@functools.cache
def _types() -> dict[str, Any]:
    from renderer.packagedata import data_json

    types: dict[str, Any] = data_json("dgd-types.json")["types"]
    return {
        name: {"fields": [_normalized(f) for f in spec["fields"]]} for name, spec in types.items()
    }


def _normalized(item: Any) -> Any:
    """The table's ``special`` descriptors (own MarshalJSON) as named struct kinds."""
    if isinstance(item, dict):
        if item.get("kind") == "special":
            return {"kind": "struct", "name": item["name"], "marshaler": item["marshaler"]}
        return {k: _normalized(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_normalized(v) for v in item]
    return item


def type_name(name: str) -> str:
    """Full Go type name; a bare name (``PodSpec``) means k8s.io/api/core/v1."""
    if "." in name or "/" in name:
        return name
    return CORE + name


@functools.cache
def struct_fields(name: str) -> dict[str, GoField]:
    """The JSON fields of struct ``name`` in Go's output order, keyed by JSON name."""
    full = type_name(name)
    spec = _types().get(full)
    if spec is None:
        raise GoMarshalError(f"no Go type table entry for {full}")
    out: dict[str, GoField] = {}
    for item in spec["fields"]:
        out[item["json"]] = GoField(
            json=item["json"],
            omitempty=bool(item.get("omitempty")),
            omitzero=bool(item.get("omitzero")),
            type=item["type"],
        )
    return out


def struct_desc(name: str) -> dict[str, Any]:
    """A type descriptor for the named struct (as the table's field types are written)."""
    return {"kind": "struct", "name": type_name(name)}


def marshal(value: Any, name: str, path: str = "") -> Any:
    """Go's JSON for ``value`` typed as struct ``name`` (a fresh value; input untouched)."""
    return _marshal(value, struct_desc(name), path or _short(type_name(name)))


def marshal_desc(value: Any, desc: dict[str, Any], path: str) -> Any:
    """Like ``marshal`` for any type descriptor (slice, map, pointer, ...)."""
    return _marshal(value, desc, path)


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def is_quantity_zero(value: Any) -> bool:
    """Quantity.Sign() == 0 for a quantity as written in JSON (string or number)."""
    text = quantity_text(value, "quantity")
    number = re.match(r"[+-]?([0-9.]*)", text)
    return number is None or set(number.group(1)) <= {"0", "."}


def quantity_text(value: Any, path: str) -> str:
    """Go's canonical text for a resource.Quantity (what MarshalJSON writes, unquoted)."""
    from renderer.binding.quantity import QuantityError, marshal_quantity

    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise GoMarshalError(f"{path}: expected a quantity, found {type(value).__name__}")
    try:
        return marshal_quantity(value)
    except QuantityError as exc:
        raise GoMarshalError(f"{path}: invalid quantity {value!r}: {exc}") from None


def zero_json(desc: dict[str, Any]) -> Any:
    """What Go writes for the zero value of a type (a field written although absent)."""
    kind = desc["kind"]
    if kind == "string":
        return ""
    if kind == "bool":
        return False
    if kind in {"int", "int32", "int64"}:
        return 0
    if kind in {"ptr", "slice", "map"}:
        return None
    name = desc.get("name", "")
    if name == QUANTITY:
        return "0"
    if name == INT_OR_STRING:
        return 0
    if name in {TIME, FIELDS_V1}:
        return None
    return _marshal({}, desc, "")


def is_empty(value: Any, desc: dict[str, Any]) -> bool:
    """encoding/json's isEmptyValue for a present value of this type (omitempty)."""
    kind = desc["kind"]
    if value is None:
        return kind in {"ptr", "slice", "map"}
    if kind == "string":
        return bool(value == "")
    if kind == "bool":
        return value is False
    if kind in {"int", "int32", "int64"}:
        return bool(value == 0)
    if kind in {"slice", "map"}:
        return len(value) == 0
    return False  # pointers (non-nil) and structs are never empty


def _check(ok: bool, path: str, expected: str, value: Any) -> None:
    if not ok:
        raise GoMarshalError(f"{path}: expected {expected}, found {type(value).__name__}")


def _marshal(value: Any, desc: dict[str, Any], path: str) -> Any:
    kind = desc["kind"]
    if kind == "string":
        _check(isinstance(value, str), path, "a string", value)
        return value
    if kind == "bool":
        _check(isinstance(value, bool), path, "a boolean", value)
        return value
    if kind in {"int", "int32", "int64"}:
        ok = isinstance(value, int) and not isinstance(value, bool)
        _check(ok, path, "an integer", value)
        limit = 2**31 if kind == "int32" else 2**63  # Go's int: 64 bits on linux/amd64
        if not -limit <= value < limit:
            raise GoMarshalError(f"{path}: {value} does not fit in {kind}")
        return value
    if kind == "ptr":
        return None if value is None else _marshal(value, desc["elem"], path)
    if kind == "slice":
        if value is None:
            return None
        _check(isinstance(value, list), path, "an array", value)
        elem = desc["elem"]
        return [
            zero_json(elem) if v is None else _marshal(v, elem, f"{path}[{i}]")
            for i, v in enumerate(value)
        ]
    if kind == "map":
        if value is None:
            return None
        _check(isinstance(value, dict), path, "an object", value)
        elem = desc["elem"]
        return {
            k: zero_json(elem) if v is None else _marshal(v, elem, f"{path}.{k}")
            for k, v in value.items()
        }
    if kind == "struct":
        return _marshal_struct(value, desc, path)
    raise GoMarshalError(f"{path}: Go kind {kind!r} is not supported")


def _marshal_struct(value: Any, desc: dict[str, Any], path: str) -> Any:
    name = desc.get("name", "")
    if name == QUANTITY:
        return quantity_text(value, path)
    if name == INT_OR_STRING:
        ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
        _check(ok, path, "an int32 or a string", value)
        return value
    if name == TIME:
        _check(value is None or isinstance(value, str), path, "a timestamp", value)
        return value
    if name == FIELDS_V1:
        return value
    if desc.get("marshaler"):
        raise GoMarshalError(f"{path}: writing a {_short(name)} is not reproduced")
    _check(isinstance(value, dict), path, "an object", value)
    fields = struct_fields(name)
    unknown = [k for k in value if k not in fields]
    if unknown:
        raise GoMarshalError(
            f"{path}.{unknown[0]}: not a field of {_short(name)} in the Kubernetes types this"
            " emulation knows; refusing rather than guessing how the operator writes it"
        )
    out: dict[str, Any] = {}
    for key, spec in fields.items():
        item = value.get(key)
        if item is None:
            # Absent or null: Go's zero value (nil for pointers, slices and maps).
            if spec.omitzero or (spec.omitempty and _zero_droppable(spec.type)):
                continue
            out[key] = zero_json(spec.type)
            continue
        if spec.omitempty and is_empty(item, spec.type):
            continue
        text = _marshal(item, spec.type, f"{path}.{key}")
        if spec.omitzero and text is None:
            continue
        out[key] = text
    return out


def _zero_droppable(desc: dict[str, Any]) -> bool:
    """omitempty drops the zero value of every kind except struct values."""
    return bool(desc["kind"] != "struct")
