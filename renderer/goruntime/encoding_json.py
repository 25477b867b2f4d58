"""Go's ``encoding/json`` over the pinned types (goruntime.typetable): Unmarshal and Marshal.

One value model serves admission and the controller: a Go value is its JSON value, where
``None`` (or an absent struct key) is Go's zero value and a non-nil pointer is its target.

- *sparse* values, what ``decode`` (``json.Unmarshal`` into a type) returns, hold only the
  fields Go sees as set (non-zero scalars, non-nil pointers, slices and maps); quantities
  and times are their canonical text, so two equal Go values are equal dicts.
- *plain* values are JSON as written (the controller's dicts): zero scalars may be present,
  quantities are as the user wrote them.

``encode`` (``json.Marshal`` as an ordered JSON value: struct fields in Go order, map keys
sorted, zero non-omitempty fields written) and ``marshal`` (its compact bytes) accept both:
they check each value's JSON kind and write the marshaler types' canonical text. A value Go
would not hold (a wrong JSON kind, a key the struct does not have, a type this module does
not write) raises :class:`NotReproducedError` naming its path.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from decimal import Decimal
from functools import cache
from typing import Any

from renderer.gojson import TooDeepError, format_number, loads, marshal_any
from renderer.goruntime.errors import NotReproducedError, PathTuple
from renderer.goruntime.gotime import TimeFormatError, marshal_time
from renderer.goruntime.quantity import FORMAT_ERROR, QuantityError, marshal_quantity
from renderer.goruntime.typetable import (
    SPECIAL_ZERO,
    UnknownTypeError,
    field_index,
    folded_keys,
    go_type_name,
    is_empty,
    is_zero_wire,
    short_name,
    struct_fields,
    zero_scalar,
)
from renderer.jsoncopy import deep_copy

_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "int": (-(2**63), 2**63 - 1),  # Go's int on the 64-bit platforms the operator runs on
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "uint": (0, 2**64 - 1),
}
_ZERO_STRUCT: dict[str, dict[str, Any]] = {}
_GROUPS: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}


class DecodeError(ValueError):
    """Go's json.Unmarshal refuses the document; ``message`` is Go's error text (the caller
    reports it as the operator's refusal, or treats the input as unreadable, as Go does)."""

    def __init__(self, message: str, path: PathTuple = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _utf8(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


def _sorted_items(value: dict[Any, Any]) -> list[tuple[str, Any]]:
    return sorted(((str(k), v) for k, v in value.items()), key=lambda kv: _utf8(kv[0]))


def _group_keys(name: str, group: tuple[str, ...]) -> frozenset[str]:
    """The JSON keys promoted through one embedded pointer of a struct."""
    keys = _GROUPS.get((name, group))
    if keys is None:
        keys = _GROUPS[(name, group)] = frozenset(
            f["json"]
            for f in struct_fields(name)
            if f.get("viaPtr") and tuple(f["viaPtr"]) == group
        )
    return keys


def _group_present(value: dict[str, Any], name: str, group: tuple[str, ...]) -> bool:
    """Whether the embedded pointer is non-nil: one of its fields is in the value."""
    return not _group_keys(name, group).isdisjoint(value)


# ---------------------------------------------------------------------------
# decode: json.Unmarshal
# ---------------------------------------------------------------------------


class _Ctx:
    """One json.Unmarshal call: the root struct's name (for Go's error text)."""

    def __init__(self, root: str | None) -> None:
        self.root = root


def json_kind(value: Any) -> str:
    """The JSON kind Go's decode errors name for a value (``number``, ``array``, ...)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _mismatch(ctx: _Ctx, path: PathTuple, value: Any, t: dict[str, Any], what: str = "") -> None:
    """UnmarshalTypeError, as the pinned Go (1.27) words it; the first error stops decoding.

    The field path names list indexes too; "Go struct field" is left out when the value is
    a list element.
    """
    got = what or json_kind(value)
    # Map keys are escaped as JSON Pointer tokens ("/" -> "~1", "~" -> "~0").
    fields = ".".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)
    target = go_type_name(t)
    if ctx.root is None or not fields:
        text = f"json: cannot unmarshal {got} into Go value of type {target}"
    elif isinstance(path[-1], int):
        text = f"json: cannot unmarshal {got} into {ctx.root}.{fields} of type {target}"
    else:
        field = f"{ctx.root}.{fields}"
        text = f"json: cannot unmarshal {got} into Go struct field {field} of type {target}"
    raise DecodeError(text, path)


def decode(value: Any, t: dict[str, Any], path: PathTuple = ()) -> Any:
    """``json.Unmarshal`` of a JSON value into type ``t``, as a sparse value.

    Returns ``None`` for a Go zero value that a sparse struct leaves out (null, "", 0,
    false, an empty struct); pointers keep zero targets (``*int32`` 0 is not nil). Raises
    DecodeError with Go's text for the first error in key order (Go decodes the JSON that
    sigs.k8s.io/yaml writes, keys sorted).
    """
    root = t["name"].rpartition(".")[2] if t["kind"] == "struct" else None
    return _decode(value, t, path, _Ctx(root))


def _decode(value: Any, t: dict[str, Any], path: PathTuple, ctx: _Ctx) -> Any:
    kind = t["kind"]
    if kind == "ptr":
        if value is None:
            return None
        inner = _decode(value, t["elem"], path, ctx)
        return _zero_target(t["elem"]) if inner is None else inner
    if value is None:
        return None
    if kind == "struct":
        if not isinstance(value, dict):
            return _mismatch(ctx, path, value, t)
        return _decode_struct(value, t["name"], path, ctx) or None
    if kind == "slice":
        if t["elem"]["kind"] == "uint8":
            raise NotReproducedError("byte slices are not reproduced", path)
        if not isinstance(value, list):
            return _mismatch(ctx, path, value, t)
        return [_decode_elem(v, t["elem"], (*path, i), ctx) for i, v in enumerate(value)]
    if kind == "map":
        if not isinstance(value, dict):
            return _mismatch(ctx, path, value, t)
        return {k: _decode_elem(v, t["elem"], (*path, k), ctx) for k, v in _sorted_items(value)}
    if kind == "special":
        return _decode_special(value, t, path)
    return _decode_scalar(value, t, path, ctx)


def _zero_target(t: dict[str, Any]) -> Any:
    """The sparse value of a zero pointer target or element: explicit, never absent."""
    return {} if t["kind"] == "struct" else zero_scalar(t)


def _decode_elem(value: Any, t: dict[str, Any], path: PathTuple, ctx: _Ctx) -> Any:
    """A slice element or map value: never absent, so zero values stay explicit."""
    out = _decode(value, t, path, ctx)
    if out is None and t["kind"] != "ptr":
        return _zero_target(t)
    return out


def _decode_struct(value: dict[str, Any], name: str, path: PathTuple, ctx: _Ctx) -> dict[str, Any]:
    idx = field_index(name)
    folded = folded_keys(name)
    out: dict[str, Any] = {}
    groups: dict[tuple[str, ...], tuple[str, Any]] = {}
    for key, raw in _sorted_items(value):
        field = idx.get(key)
        if field is None:
            if key.casefold() in folded:
                raise NotReproducedError(
                    f"key {key!r} differs from the field {folded[key.casefold()]!r} only in"
                    " case; Go's decoder would take it, this emulation does not",
                    (*path, key),
                )
            continue  # unknown: Go drops it
        decoded = _decode(raw, field["type"], (*path, key), ctx)
        if field.get("viaPtr"):
            groups.setdefault(tuple(field["viaPtr"]), (key, _zero_target(field["type"])))
        if decoded is None:
            out.pop(key, None)
        else:
            out[key] = decoded
    for group, (key, zero) in groups.items():
        if not _group_present(out, name, group):
            # Go allocated the embedded pointer for a key that decoded to zero. Keep that
            # key with its zero value (the one exception to "zero is absent"), so the
            # pointer stays non-nil and its fields are written, as Go writes them.
            out[key] = zero
    return out


def _decode_scalar(value: Any, t: dict[str, Any], path: PathTuple, ctx: _Ctx) -> Any:
    kind = t["kind"]
    if kind == "string":
        if not isinstance(value, str):
            return _mismatch(ctx, path, value, t)
        return value or None
    if kind == "bool":
        if not isinstance(value, bool):
            return _mismatch(ctx, path, value, t)
        return value or None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number:
        return _mismatch(ctx, path, value, t)
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        if (isinstance(value, float) and not value.is_integer()) or not low <= value <= high:
            return _mismatch(ctx, path, value, t, "number " + format_number(value))
        return int(value) or None
    if kind in ("float32", "float64"):
        if kind == "float32":
            return _float32(float(value), path) or None
        return _json_number(float(value)) or None
    raise NotReproducedError(f"Go kind {kind} is not reproduced", path)


@cache
def _rfc3339() -> re.Pattern[str]:
    return re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def _metav1_time(text: str, path: PathTuple) -> str | None:
    """metav1.Time: time.Parse(RFC3339) then ``UTC().Format(RFC3339)`` (seconds), zero = nil."""

    m = _rfc3339().fullmatch(text)
    if m is None:
        raise DecodeError(f"parsing time {text!r} as RFC 3339 failed", path)
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    zone = m.group(8)
    try:
        offset = dt.timedelta(0)
        if zone != "Z":
            zh, zm = int(zone[1:3]), int(zone[4:6])
            if zh >= 24 or zm >= 60:
                raise ValueError(zone)
            offset = dt.timedelta(hours=zh, minutes=zm) * (1 if zone[0] == "+" else -1)
        stamp = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone(offset))
        utc = stamp.astimezone(dt.UTC)
    except (ValueError, OverflowError) as err:
        if year in {0, 9999}:
            raise NotReproducedError(f"the time {text!r} (year range)", path) from err
        raise DecodeError(f"parsing time {text!r}: {err}", path) from err
    fraction = m.group(7)
    if utc == dt.datetime(1, 1, 1, tzinfo=dt.UTC) and not (fraction and fraction.strip(".0")):
        return None  # Go's zero time: written as null, dropped by omitzero
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}Z"


def _float32(value: float, path: PathTuple) -> float | int:
    """The float32 Go stores, as the float64 whose shortest text Go writes for it."""

    if math.isinf(value) or math.isnan(value) or abs(value) > 3.4028234663852886e38:
        raise NotReproducedError("a float32 value out of range", path)
    single = struct.unpack("<f", struct.pack("<f", value))[0]
    if single != value:
        # Go rounds the decimal text to float32 directly; from the float64 the result is
        # the same unless the float64 sits exactly halfway between two float32 values.
        bits = struct.unpack("<I", struct.pack("<f", single))[0]
        other = struct.unpack(
            "<f", struct.pack("<I", bits + (1 if abs(value) > abs(single) else -1))
        )

        if value - single == other[0] - value and Decimal(repr(value)) != Decimal(value):
            raise NotReproducedError("a float32 value halfway between two floats", path)
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            return _json_number(float(text))
    return _json_number(float(single))


def _json_number(value: float) -> float | int:
    """A float as a JSON reader sees Go's text for it: integral values below 1e21 are ints."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _decode_special(value: Any, t: dict[str, Any], path: PathTuple) -> Any:
    how = t["marshaler"]
    if how == "quantity":
        if not isinstance(value, str | int | float):
            raise DecodeError(FORMAT_ERROR, path)  # Quantity.UnmarshalJSON on the raw text
        try:
            text = marshal_quantity(value)
        except QuantityError as err:
            if "cannot be encoded exactly" in str(err):
                raise NotReproducedError(str(err), path) from err
            raise DecodeError(str(err), path) from err
        return text
    if how == "intorstring":
        if isinstance(value, str):
            return value
        # IntOrString.UnmarshalJSON decodes anything else as its int32, in a fresh Unmarshal.
        return decode(value, {"kind": "int32"}, path)
    if how == "raw":
        return value
    if how == "time":
        if not isinstance(value, str):
            decode(value, {"kind": "string"}, path)  # Time.UnmarshalJSON: into a string first
        return _metav1_time(value, path)
    raise NotReproducedError(f"{t['name']} values are not reproduced", path)


def unmarshal(raw: str, path: str) -> Any:
    """json.Unmarshal of input text into ``any``: ValueError where Go fails to decode it;
    NotReproducedError (naming ``path``) where it nests deeper than renderer.gojson reads,
    which Go (up to 10,000 levels) decodes."""

    try:
        return loads(raw)
    except TooDeepError:
        raise NotReproducedError(
            "JSON nested deeper than this emulation reads (Go reads it)", path
        ) from None


# ---------------------------------------------------------------------------
# encode: json.Marshal
# ---------------------------------------------------------------------------


def _kind_error(expected: str, value: Any, path: PathTuple | str) -> NotReproducedError:
    return NotReproducedError(f"expected {expected}, found {type(value).__name__}", path)


def zero_value(t: dict[str, Any]) -> Any:
    """What Go writes for the zero value of a type (a field written although absent)."""
    if t["kind"] == "struct":
        return deep_copy(_zero_struct(t["name"]))
    return zero_scalar(t)


def _zero_struct(name: str) -> dict[str, Any]:
    zero = _ZERO_STRUCT.get(name)
    if zero is None:
        zero = _ZERO_STRUCT[name] = _encode_struct({}, name, ())
    return zero


def encode(value: Any, t: dict[str, Any], path: PathTuple = ()) -> Any:
    """``json.Marshal`` of a sparse or plain value of type ``t``, as an ordered JSON value."""
    if value is None:
        return zero_value(t)
    kind = t["kind"]
    if kind == "ptr":
        return encode(value, t["elem"], path)
    if kind == "struct":
        return _encode_struct(value, t["name"], path)
    if kind == "string":
        if not isinstance(value, str):
            raise _kind_error("a string", value, path)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise _kind_error("a boolean", value, path)
        return value
    if kind == "slice":
        if not isinstance(value, list):
            raise _kind_error("a list", value, path)
        elem = t["elem"]
        if elem["kind"] == "uint8":
            raise NotReproducedError("byte slices are not reproduced", path)
        return [encode(v, elem, (*path, i)) for i, v in enumerate(value)]
    if kind == "map":
        if not isinstance(value, dict):
            raise _kind_error("a mapping", value, path)
        elem = t["elem"]
        return {k: encode(value[k], elem, (*path, k)) for k in sorted(value, key=_utf8)}
    if kind == "special":
        return _encode_special(value, t, path)
    if kind in _INT_RANGES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _kind_error("an integer", value, path)
        low, high = _INT_RANGES[kind]
        if not low <= value <= high:
            raise NotReproducedError(f"{value} does not fit in {kind}", path)
        return value
    if kind in ("float32", "float64"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _kind_error("a number", value, path)
        return value
    raise NotReproducedError(
        f"a value of Go type {t.get('name', kind)} is not reproduced by the emulation", path
    )


def _encode_struct(value: Any, name: str, path: PathTuple) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _kind_error("an object", value, path)
    try:
        idx = field_index(name)
    except UnknownTypeError:
        raise NotReproducedError(f"no field table for Go type {name}", path) from None
    for key in value:
        if key not in idx:
            raise NotReproducedError(
                f"not a field of {short_name(name)} in the pinned Go types; refusing rather"
                " than guessing how the operator writes it",
                (*path, key),
            )
    out: dict[str, Any] = {}
    for field in struct_fields(name):
        via = field.get("viaPtr")
        if via and not _group_present(value, name, tuple(via)):
            continue  # nil embedded pointer: none of its fields are written
        key = field["json"]
        t = field["type"]
        item = value.get(key)
        if item is None:
            if field["omitzero"] or (field["omitempty"] and is_empty(None, t)):
                continue
            out[key] = zero_value(t)
            continue
        if field["omitempty"] and is_empty(item, t):
            continue
        wire = encode(item, t, (*path, key))
        if field["omitzero"] and is_zero_wire(
            wire, t, _zero_struct(t["name"]) if t["kind"] == "struct" else None
        ):
            continue
        out[key] = wire
    return out


def _encode_special(value: Any, t: dict[str, Any], path: PathTuple) -> Any:
    how = t["marshaler"]
    if how == "quantity":
        return quantity_text(value, path)
    if how == "intorstring":
        if isinstance(value, str):
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise _kind_error("an int or a string", value, path)
        if not -(2**31) <= value < 2**31:
            raise NotReproducedError(f"{value} does not fit in int32", path)
        return value
    if how == "time":
        if not isinstance(value, str):
            raise _kind_error("a timestamp", value, path)
        try:
            text = marshal_time(value)
        except TimeFormatError as exc:
            raise NotReproducedError(str(exc), path) from None
        return None if text == "null" else text[1:-1]
    if how == "raw":
        return _sorted_json(value)
    if how == "duration" and value == SPECIAL_ZERO["duration"]:
        return value
    raise NotReproducedError(f"writing a {short_name(t['name'])} is not reproduced", path)


def _sorted_json(value: Any) -> Any:
    """Raw JSON as the operator holds it: the YAML->JSON decode wrote its keys sorted."""
    if isinstance(value, dict):
        return {k: _sorted_json(value[k]) for k in sorted(value, key=lambda k: _utf8(str(k)))}
    if isinstance(value, list):
        return [_sorted_json(v) for v in value]
    return value


def quantity_text(value: Any, path: PathTuple | str = ()) -> str:
    """Go's canonical text for a resource.Quantity (what MarshalJSON writes, unquoted)."""

    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _kind_error("a quantity", value, path)
    try:
        return marshal_quantity(value)
    except QuantityError as exc:
        raise NotReproducedError(f"invalid quantity {value!r}: {exc}", path) from None


def quantity_is_zero(value: Any) -> bool:
    """Quantity.IsZero of a quantity as JSON holds it (absent or empty: the zero value)."""
    if value is None or value == "":
        return True
    number = re.match(r"[+-]?([0-9.]*)", quantity_text(value))
    return number is None or set(number.group(1)) <= {"0", "."}


def dumps(wire: Any) -> str:
    """The compact bytes Go writes for an encoded value (fields and keys in the order
    ``encode`` gave them; HTML-safe escaping)."""
    try:
        return marshal_any(wire, ordered=True)
    except ValueError as exc:
        raise NotReproducedError(f"{exc}; Go's encoder refuses it") from None


def marshal(value: Any, t: dict[str, Any], path: PathTuple = ()) -> str:
    """``json.Marshal`` of a value of type ``t``: the compact bytes Go writes."""
    return dumps(encode(value, t, path))
