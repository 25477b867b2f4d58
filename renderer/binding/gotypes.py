"""The Go type table of the pinned operator, compiled once into codecs that decode and encode.

`renderer/data/binding-types-k8s-v0.36.2.json` (generated from the real Go types of the
operator's module, k8s.io/api v0.36.2) lists, for every struct Go's encoder walks while
hashing a binding projection and for the rest of the DynamoCheckpoint, its JSON fields in
declaration order with their tags. It is read lazily (first bind) and turned into one
`Codec` per type descriptor:

- `decode(value, path, ctx)` applies Go's `encoding/json` decoding to a YAML-read value:
  a value of the wrong JSON type is a BindingError naming the path; so is a field the
  types do not have (matched case-sensitively, as apimachinery does), unless the context
  decodes a part that is never hashed, where it is dropped quietly.
- `encode(decoded)` writes Go's `encoding/json` bytes for the decoded value.

Decoded values: str/int/bool as themselves; a struct is a dict holding only the fields the
input set (an absent key is Go's zero value); a non-nil pointer is its target's decoded
value; slices and maps are lists and dicts (None for a nil element); the four marshaler
types are their final JSON text. Anything in the table this module does not know (another
kind, a `,string` option, omitzero outside metav1.Time) stops compilation: the encoder
never guesses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from renderer.binding.scalars import describe, format_path, go_int, has_surrogate
from renderer.errors import BindingError
from renderer.gojson import encode_string, marshal_any
from renderer.goruntime.gotime import TimeFormatError, marshal_time
from renderer.goruntime.typetable import document, is_empty
from renderer.record import Record
from renderer.source.model import Path, SourceObject

TABLE_RESOURCE = "binding-types-k8s-v0.36.2.json"  # named by its k8s.io/api version
QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity"
TIME = "k8s.io/apimachinery/pkg/apis/meta/v1.Time"
INT_OR_STRING = "k8s.io/apimachinery/pkg/util/intstr.IntOrString"
FIELDS_V1 = "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1"

_MISSING: Any = object()


class TableError(RuntimeError):
    """The packaged type table holds something the encoder cannot reproduce exactly."""


class DecodeContext(Record):
    """Per-object decoding state: where messages point, the warnings collected, and whether
    an unknown field is refused (what is hashed) or dropped (what never is)."""

    _fields = ("obj", "warnings", "strict")
    obj: SourceObject
    warnings: list[str]
    strict: bool

    def __init__(
        self,
        obj: SourceObject,
        warnings: list[str] | None = None,
        strict: bool = True,
    ) -> None:
        self.obj = obj
        self.warnings = [] if warnings is None else warnings
        self.strict = strict

    def error(self, path: Path, message: str, *, key: bool = False) -> BindingError:
        mark = self.obj.mark(path, key=key)
        text = f"{format_path(path)}: {message}"
        return BindingError(text, self.obj.file, mark.line, mark.column)

    def type_error(self, path: Path, expected: str, value: Any) -> BindingError:
        return self.error(
            path,
            f"expected {expected}, found {describe(value)}; Go's decoder rejects it, so the"
            " operator cannot bind this checkpoint",
        )

    def unknown_field(self, path: Path) -> None:
        """A key the Go types lack: a BindingError at the key when strict, else dropped.

        The operator's DynamoCheckpoint schema is generated from the same types, so the API
        server prunes such a field (or refuses it under strict field validation): a
        snapshot holding one is not an object the operator reads, and whether an operator
        built with other types would hash it cannot be told. Dropping it would bind to a
        digest nothing vouches for."""
        if self.strict:
            raise self.error(
                path,
                "unknown field: the pinned operator's Go types (DynamoCheckpoint"
                f" nvidia.com/v1alpha1, k8s.io/api {type_table().k8s_api}) have no such"
                " field and its DynamoCheckpoint schema does not admit one (the API server"
                " prunes it, or refuses it under strict field validation), so the operator"
                " never hashes it; no binding is computed from a snapshot holding it (a"
                " typo, or a field of another Kubernetes version?)",
                key=True,
            )


class Codec:
    """One Go type: how a JSON value decodes into it and how Go encodes it back."""

    nilable = False  # pointer, slice or map: JSON null is a nil value
    zero_text = ""

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        raise NotImplementedError

    def encode(self, value: Any) -> str:
        raise NotImplementedError

    def empty(self, value: Any) -> bool:
        """Go's isEmptyValue for a decoded (present) value."""
        return False

    def zero_json(self) -> str:
        """Go's encoding of the zero value (an absent field that is still written)."""
        return self.zero_text

    def zero(self) -> Any:
        """The decoded value of a JSON null element (slice item or map value)."""
        return None


class StringCodec(Codec):
    zero_text = '""'

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        if type(value) is not str:
            raise ctx.type_error(path, "a string", value)
        if has_surrogate(value):
            raise ctx.error(path, "holds a lone surrogate, which is not valid UTF-8")
        return value

    def encode(self, value: Any) -> str:
        return encode_string(value)

    def empty(self, value: Any) -> bool:
        return bool(value == "")

    def zero(self) -> Any:
        return ""


class BoolCodec(Codec):
    zero_text = "false"

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        if type(value) is not bool:
            raise ctx.type_error(path, "a boolean", value)
        return value

    def encode(self, value: Any) -> str:
        return "true" if value else "false"

    def empty(self, value: Any) -> bool:
        return value is False

    def zero(self) -> Any:
        return False


class IntCodec(Codec):
    zero_text = "0"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        number = go_int(value, self.kind)
        if number is None:
            raise ctx.type_error(path, f"an integer that fits in {self.kind}", value)
        return number

    def encode(self, value: Any) -> str:
        return str(value)

    def empty(self, value: Any) -> bool:
        return bool(value == 0)

    def zero(self) -> Any:
        return 0


class PtrCodec(Codec):
    nilable = True
    zero_text = "null"

    def __init__(self, elem: Codec) -> None:
        self.elem = elem

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        return self.elem.decode(value, path, ctx)

    def encode(self, value: Any) -> str:
        return "null" if value is None else self.elem.encode(value)


class SliceCodec(Codec):
    nilable = True
    zero_text = "null"

    def __init__(self, elem: Codec) -> None:
        self.elem = elem

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        if type(value) is not list:
            raise ctx.type_error(path, "an array", value)
        elem = self.elem
        out: list[Any] = []
        for index, item in enumerate(value):
            if item is None:
                out.append(elem.zero())
            else:
                out.append(elem.decode(item, (*path, index), ctx))
        return out

    def encode(self, value: Any) -> str:
        elem = self.elem
        return "[" + ",".join(["null" if v is None else elem.encode(v) for v in value]) + "]"

    def empty(self, value: Any) -> bool:
        return len(value) == 0


def _utf8_key(key: str) -> bytes:
    return key.encode("utf-8")


class MapCodec(Codec):
    nilable = True
    zero_text = "null"

    def __init__(self, elem: Codec) -> None:
        self.elem = elem

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        if type(value) is not dict:
            raise ctx.type_error(path, "an object", value)
        elem = self.elem
        out: dict[str, Any] = {}
        for key, item in value.items():
            if has_surrogate(key):
                raise ctx.error((*path, key), "key holds a lone surrogate", key=True)
            out[key] = elem.zero() if item is None else elem.decode(item, (*path, key), ctx)
        return out

    def encode(self, value: Any) -> str:
        elem = self.elem
        members = [
            encode_string(key) + ":" + ("null" if value[key] is None else elem.encode(value[key]))
            for key in sorted(value, key=_utf8_key)
        ]
        return "{" + ",".join(members) + "}"

    def empty(self, value: Any) -> bool:
        return len(value) == 0


class Field(Record):
    _fields = ("json", "prefix", "omitempty", "omitzero", "codec", "zero_empty")
    json: str
    prefix: str  # the encoded key and colon, computed once
    omitempty: bool
    omitzero: bool
    codec: Codec
    zero_empty: bool  # omitempty drops the type's zero value (goruntime's rule)

    def __init__(
        self,
        json: str,
        prefix: str,
        omitempty: bool,
        omitzero: bool,
        codec: Codec,
        *,
        zero_empty: bool,
    ) -> None:
        self.json = json
        self.prefix = prefix
        self.omitempty = omitempty
        self.omitzero = omitzero
        self.codec = codec
        self.zero_empty = zero_empty


class StructCodec(Codec):
    fields: tuple[Field, ...]
    by_name: dict[str, Field]

    def __init__(self, name: str, fill: Callable[[StructCodec], None] | None = None) -> None:
        self.name = name
        # `fields` and `by_name` are set by `fill` on first use: a one-file lint reaches a
        # few dozen of the table's structs, and filling all of them was a tenth of its work
        self._fill = fill
        self._zero_text: str | None = None
        # per field, what an absent field writes (None: nothing); built on first encode,
        # after `fields` is set (types refer to each other, so they are filled in later)
        self._absent: tuple[str | None, ...] | None = None

    def __getattr__(self, attr: str) -> Any:
        # only called while `fields` / `by_name` are unset: fill them, then plain attributes
        fill = self.__dict__.get("_fill")
        if attr in ("fields", "by_name") and fill is not None:
            self._fill = None
            fill(self)
            return self.__dict__[attr]
        if attr in ("fields", "by_name"):
            return () if attr == "fields" else {}
        raise AttributeError(attr)

    def _absent_texts(self) -> tuple[str | None, ...]:
        texts: list[str | None] = []
        for spec in self.fields:
            codec = spec.codec
            skipped = (spec.omitempty and spec.zero_empty) or spec.omitzero
            texts.append(None if skipped else spec.prefix + codec.zero_json())
        self._absent = tuple(texts)
        return self._absent

    def zero_json(self) -> str:
        if self._zero_text is None:
            self._zero_text = self.encode({})
        return self._zero_text

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        if type(value) is not dict:
            raise ctx.type_error(path, "an object", value)
        by_name = self.by_name
        out: dict[str, Any] = {}
        for key, item in value.items():
            spec = by_name.get(key)
            if spec is None:
                ctx.unknown_field((*path, key))
            elif item is not None:  # null leaves a Go field at its zero value (or nil)
                out[key] = spec.codec.decode(item, (*path, key), ctx)
        return out

    def encode(self, value: Any) -> str:
        absent = self._absent if self._absent is not None else self._absent_texts()
        parts: list[str] = []
        get = value.get
        for spec, missing in zip(self.fields, absent, strict=True):
            item = get(spec.json, _MISSING)
            if item is _MISSING:
                if missing is not None:
                    parts.append(missing)
                continue
            codec = spec.codec
            if spec.omitempty and codec.empty(item):
                continue
            text = codec.encode(item)
            if spec.omitzero and text == codec.zero_json():
                continue
            parts.append(spec.prefix + text)
        return "{" + ",".join(parts) + "}"

    def zero(self) -> Any:
        return {}


class MarshalerCodec(Codec):
    """A type with its own MarshalJSON: decoded straight to its final JSON text."""

    def __init__(self, zero_text: str, decoder: Callable[[Any, Path, DecodeContext], str]) -> None:
        self.zero_text = zero_text
        self._decoder = decoder

    def decode(self, value: Any, path: Path, ctx: DecodeContext) -> Any:
        return self._decoder(value, path, ctx)

    def encode(self, value: Any) -> str:
        return str(value)

    def zero(self) -> Any:
        return self.zero_text


def _quantity_module() -> Any:
    """renderer.goruntime.quantity (its own module and owner), or None when it is missing."""

    try:
        return importlib.import_module("renderer.goruntime.quantity")
    except ImportError:
        return None


def _decode_quantity(value: Any, path: Path, ctx: DecodeContext) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ctx.type_error(path, "a quantity (string or number)", value)
    quantity = _quantity_module()
    if quantity is None:
        raise ctx.error(
            path, "resource.Quantity encoding is not available in this build; no binding"
        )
    try:
        text: str = quantity.marshal_quantity(value)
    except quantity.QuantityError as exc:
        raise ctx.error(path, f"invalid quantity {describe(value)}: {exc}") from None
    return text if text.startswith('"') else encode_string(text)


def _decode_time(value: Any, path: Path, ctx: DecodeContext) -> str:
    if type(value) is not str:
        raise ctx.type_error(path, "an RFC 3339 timestamp string", value)

    try:
        return marshal_time(value)
    except TimeFormatError as exc:
        raise ctx.error(path, str(exc)) from None


def _decode_int_or_string(value: Any, path: Path, ctx: DecodeContext) -> str:
    if type(value) is str:
        if has_surrogate(value):
            raise ctx.error(path, "holds a lone surrogate, which is not valid UTF-8")
        return encode_string(value)
    number = go_int(value, "int32")
    if number is None:
        raise ctx.type_error(path, "an int32 number or a string", value)
    return str(number)


def _decode_fields_v1(value: Any, path: Path, ctx: DecodeContext) -> str:

    try:
        return marshal_any(value)
    except ValueError as exc:  # NaN/Inf inside: Go's JSON has no text for them
        raise ctx.error(path, str(exc)) from None


_MARSHALERS: dict[str, tuple[str, Callable[[Any, Path, DecodeContext], str]]] = {
    QUANTITY: ('"0"', _decode_quantity),
    TIME: ("null", _decode_time),
    INT_OR_STRING: ("0", _decode_int_or_string),
    FIELDS_V1: ("null", _decode_fields_v1),
}


class TypeTable:
    """All compiled codecs, by Go type name, plus the roots of the binding projection."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.source: dict[str, str] = dict(raw.get("source", {}))
        self.k8s_api = self.source.get("k8s.io/api", "(unknown version)")
        self._types: dict[str, Any] = raw["types"]
        self._structs: dict[str, StructCodec] = {}
        self.roots: dict[str, StructCodec] = {}
        for role, name in raw["roots"].items():
            self.roots[role] = self._struct(name)

    def fill_all(self) -> int:
        """Fill every struct reachable from the roots now (each is otherwise filled on first
        use), so a table the encoder cannot serve fails here; the number of structs."""
        filled: set[str] = set()
        while len(filled) < len(self._structs):
            for name, codec in list(self._structs.items()):
                if name not in filled:
                    filled.add(name)
                    _ = codec.fields
        return len(filled)

    def _struct(self, name: str) -> StructCodec:
        codec = self._structs.get(name)
        if codec is None:
            if name not in self._types:
                raise TableError(f"type table has no struct {name}")
            codec = StructCodec(name, self._fill)
            self._structs[name] = codec
        return codec

    def _fill(self, codec: StructCodec) -> None:
        fields: list[Field] = []
        for spec in self._types[codec.name]["fields"]:
            if spec.get("string"):
                raise TableError(f"{codec.name}.{spec['json']}: ,string is not supported")
            field_codec = self._codec(spec["type"])
            if spec.get("omitzero") and not (
                isinstance(field_codec, MarshalerCodec) and spec["type"].get("name") == TIME
            ):
                raise TableError(f"{codec.name}.{spec['json']}: omitzero only known for Time")
            fields.append(
                Field(
                    json=spec["json"],
                    prefix=encode_string(spec["json"]) + ":",
                    omitempty=bool(spec.get("omitempty")),
                    omitzero=bool(spec.get("omitzero")),
                    codec=field_codec,
                    zero_empty=is_empty(None, spec["type"]),
                )
            )
        codec.fields = tuple(fields)
        codec.by_name = {f.json: f for f in fields}

    def _codec(self, desc: dict[str, Any]) -> Codec:
        kind = desc["kind"]
        if kind == "string":
            return _STRING
        if kind == "bool":
            return _BOOL
        if kind in ("int32", "int64"):
            return _INTS[kind]
        if kind == "ptr":
            return PtrCodec(self._codec(desc["elem"]))
        if kind == "slice":
            return SliceCodec(self._codec(desc["elem"]))
        if kind == "map":
            if desc["key"]["kind"] != "string":
                raise TableError(f"map key kind {desc['key']['kind']} is not supported")
            return MapCodec(self._codec(desc["elem"]))
        if kind == "struct":
            name = desc.get("name", "")
            if desc.get("marshaler"):
                if name not in _MARSHALERS:
                    raise TableError(f"no encoder for marshaler type {name}")
                zero_text, decoder = _MARSHALERS[name]
                return MarshalerCodec(zero_text, decoder)
            return self._struct(name)
        raise TableError(f"Go kind {kind!r} is not supported by the encoder")


_STRING = StringCodec()
_BOOL = BoolCodec()
_INTS = {"int32": IntCodec("int32"), "int64": IntCodec("int64")}
_TABLE: TypeTable | None = None


def type_table() -> TypeTable:
    """The compiled table, loaded from package data on first use."""
    global _TABLE  # noqa: PLW0603 - one process-wide cache of immutable data
    if _TABLE is None:
        _TABLE = TypeTable(document(TABLE_RESOURCE))  # the operator port's parse too
    return _TABLE
