"""Go ``encoding/json`` bytes for a typed operator value held as plain JSON data.

The v2 worker hash digests ``json.Marshal`` of a ``v1beta1.DynamoComponentDeploymentSpec``
and the ``nvidia.com/dcd-spec`` annotation holds ``json.Marshal`` of a v1alpha1 spoke
record. Go writes struct fields in declaration order, drops ``omitempty`` fields only when
empty, writes absent non-omitempty fields as their zero value, and canonicalises
quantities; a dict read from YAML knows none of that. Two packaged tables give the order:
``renderer/data/binding-types-k8s-v0.36.2.json`` (the Kubernetes types) and
``renderer/data/operator-types.json`` (the Dynamo API types, from scripts/gen-operator-types).

A value the tables cannot place (an unknown field, a type from another module) raises
:class:`NotReproducedError` naming its path: the caller refuses instead of hashing bytes
that differ from the operator's.
"""

from __future__ import annotations

import json
import math
from typing import Any

from renderer.gojson import encode_string
from renderer.operator.errors import NotReproducedError

MODULE = "github.com/ai-dynamo/dynamo/deploy/operator"
V1BETA1 = MODULE + "/api/v1beta1."
V1ALPHA1 = MODULE + "/api/v1alpha1."
CORE_V1 = "k8s.io/api/core/v1."
QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity"
TIME = "k8s.io/apimachinery/pkg/apis/meta/v1.Time"
INT_OR_STRING = "k8s.io/apimachinery/pkg/util/intstr.IntOrString"
EXTRA_POD_SPEC = V1ALPHA1 + "ExtraPodSpec"

_TYPES: dict[str, Any] | None = None
_STRING = {"kind": "string"}
_TYPE_META = {
    "fields": [
        {"json": "kind", "omitempty": True, "type": _STRING},
        {"json": "apiVersion", "omitempty": True, "type": _STRING},
    ]
}
_FLAT: dict[str, list[dict[str, Any]]] = {}
# Per struct name, computed once from the immutable tables: its JSON field names, and the
# text of its zero value; per field name, its `"name":` prefix.
_KNOWN: dict[str, frozenset[str]] = {}
_ZERO_STRUCT: dict[str, str] = {}
_KEY_TEXT: dict[str, str] = {}


def unmarshal(raw: str, path: str) -> Any:
    """json.Unmarshal of input text into `any`: ValueError where Go fails to decode it;
    NotReproducedError (naming `path`) where it nests deeper than renderer.gojson reads,
    which Go (up to 10,000 levels) decodes."""
    from renderer.gojson import TooDeepError, loads

    try:
        return loads(raw)
    except TooDeepError:
        raise NotReproducedError(
            "JSON nested deeper than this emulation reads (Go reads it)", path
        ) from None


def _types() -> dict[str, Any]:
    global _TYPES  # noqa: PLW0603 - one process-wide cache of immutable package data
    if _TYPES is None:
        from renderer.packagedata import data_json

        core = data_json("binding-types-k8s-v0.36.2.json")["types"]
        ops = data_json("operator-types.json")["types"]
        merged = dict(core)
        # The corev1 structs of dgd-types.json (k8s.io/api v0.36.2, as the binding table).
        dgd = data_json("dgd-types.json")["types"]
        merged.update({k: _plain(v) for k, v in dgd.items() if k.startswith(CORE_V1)})
        merged.update(ops)  # the pinned source wins over the hand-transcribed Dynamo entries
        merged.setdefault("k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta", _TYPE_META)
        _TYPES = merged
    return _TYPES


def _plain(item: Any) -> Any:
    """dgd-types.json's ``special`` descriptors as struct kinds with their own MarshalJSON."""
    if isinstance(item, dict):
        if item.get("kind") == "special":
            return {"kind": "struct", "name": item["name"], "marshaler": "json"}
        return {k: _plain(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_plain(v) for v in item]
    return item


def _fields(name: str) -> list[dict[str, Any]]:
    """The struct's JSON fields in Go's order, embedded structs flattened in place."""
    cached = _FLAT.get(name)
    if cached is not None:
        return cached
    entry = _types().get(name)
    if entry is None:
        raise NotReproducedError(f"no field table for Go type {name}", "")
    out: list[dict[str, Any]] = []
    for spec in entry["fields"]:
        if spec.get("inline"):
            desc = spec["type"]
            inner = desc["elem"] if desc["kind"] == "ptr" else desc
            out.extend(_fields(inner["name"]))
        else:
            out.append(spec)
    _FLAT[name] = out
    return out


def _is_empty(value: Any, desc: dict[str, Any]) -> bool:
    """Go's omitempty test for a present value of this type."""
    kind = desc["kind"]
    if value is None:
        return True
    if kind == "struct":
        return False  # Go never treats a struct value as empty
    if kind in ("slice", "map", "bytes"):
        return len(value) == 0
    if kind == "ptr":
        return False
    if kind == "string":
        return bool(value == "")
    if kind == "bool":
        return value is False
    return bool(value == 0)


def _zero_text(desc: dict[str, Any]) -> str:
    kind = desc["kind"]
    if kind in ("ptr", "slice", "map", "bytes", "external"):
        return "null"
    if kind == "string":
        return '""'
    if kind == "bool":
        return "false"
    if kind in ("int32", "int64", "float32", "float64"):
        return "0"
    name = desc.get("name", "")
    if name == QUANTITY:
        return '"0"'
    if name == TIME:
        return "null"
    if name == INT_OR_STRING:
        return "0"
    text = _ZERO_STRUCT.get(name)
    if text is None:
        text = _ZERO_STRUCT[name] = encode_struct({}, name, "")
    return text


def _known(name: str) -> frozenset[str]:
    known = _KNOWN.get(name)
    if known is None:
        known = _KNOWN[name] = frozenset(f["json"] for f in _fields(name))
    return known


def _key_text(key: str) -> str:
    text = _KEY_TEXT.get(key)
    if text is None:
        text = _KEY_TEXT[key] = encode_string(key) + ":"
    return text


def encode(value: Any, desc: dict[str, Any], path: str) -> str:
    """Go's JSON text for ``value`` as the Go type ``desc`` (a type-table descriptor)."""
    kind = desc["kind"]
    if value is None and kind in ("ptr", "slice", "map", "bytes"):
        return "null"
    if kind == "ptr":
        return encode(value, desc["elem"], path)
    if kind == "string":
        if not isinstance(value, str):
            raise NotReproducedError(f"expected a string, found {type(value).__name__}", path)
        return encode_string(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise NotReproducedError(f"expected a boolean, found {type(value).__name__}", path)
        return "true" if value else "false"
    if kind in ("int32", "int64"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise NotReproducedError(f"expected an integer, found {type(value).__name__}", path)
        return str(value)
    if kind == "slice":
        if not isinstance(value, list):
            raise NotReproducedError(f"expected a list, found {type(value).__name__}", path)
        elem = desc["elem"]
        return "[" + ",".join(encode(v, elem, f"{path}[{i}]") for i, v in enumerate(value)) + "]"
    if kind == "map":
        if not isinstance(value, dict):
            raise NotReproducedError(f"expected a mapping, found {type(value).__name__}", path)
        elem = desc["elem"]
        keys = sorted(value, key=lambda k: str(k).encode("utf-8", "surrogatepass"))
        return (
            "{"
            + ",".join(
                encode_string(str(k)) + ":" + encode(value[k], elem, f"{path}.{k}") for k in keys
            )
            + "}"
        )
    if kind == "struct":
        name = desc.get("name", "")
        if desc.get("marshaler") or name in (QUANTITY, TIME, INT_OR_STRING):
            return _encode_marshaler(value, name, path)
        return encode_struct(value, name, path)
    if kind == "external" and desc.get("name") == "apiextensionsv1.JSON":
        return _raw_json(value, path)
    raise NotReproducedError(
        f"a value of Go type {desc.get('name', kind)} is not reproduced by the emulation", path
    )


def _raw_json(value: Any, path: str) -> str:
    """apiextensionsv1.JSON: its raw bytes, as the YAML->JSON decode wrote them (keys sorted,
    integers as integers, floats in Go's float64 form), compacted and HTML-escaped."""
    from renderer.gojson import format_float

    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotReproducedError("a non-finite number has no JSON form", path)
        return format_float(value)
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, list):
        return "[" + ",".join(_raw_json(v, f"{path}[{i}]") for i, v in enumerate(value)) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: str(k).encode("utf-8", "surrogatepass"))
        return (
            "{"
            + ",".join(
                encode_string(str(k)) + ":" + _raw_json(value[k], f"{path}.{k}") for k in keys
            )
            + "}"
        )
    raise NotReproducedError(f"unexpected JSON value {value!r}", path)


def _encode_marshaler(value: Any, name: str, path: str) -> str:
    if name == QUANTITY:
        from renderer.binding.quantity import QuantityError, marshal_quantity

        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise NotReproducedError("expected a quantity", path)
        try:
            text = marshal_quantity(value)
        except QuantityError as exc:
            raise NotReproducedError(f"invalid quantity {value!r}: {exc}", path) from None
        return text if text.startswith('"') else encode_string(text)
    if name == INT_OR_STRING:
        if isinstance(value, str):
            return encode_string(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        raise NotReproducedError("expected an int or a string", path)
    if name == TIME:
        from renderer.binding.gotime import TimeFormatError, marshal_time

        try:
            return marshal_time(value)
        except TimeFormatError as exc:
            raise NotReproducedError(str(exc), path) from None
    raise NotReproducedError(f"no encoder for {name}", path)


def encode_struct(
    value: Any, name: str, path: str, *, also_omitempty: frozenset[str] = frozenset()
) -> str:
    """A struct value (dict keyed by JSON names; absent key = Go zero) in field order.

    ``also_omitempty`` names fields a custom MarshalJSON re-tags as omitempty.
    """
    if not isinstance(value, dict):
        raise NotReproducedError(f"expected an object, found {type(value).__name__}", path)
    if name == EXTRA_POD_SPEC:
        return _encode_extra_pod_spec(value, path)
    fields = _fields(name)
    known = _known(name)
    for key in value:
        if key not in known:
            raise NotReproducedError(
                f"field {key!r} is not in the pinned Go type {name.rsplit('/', 1)[-1]}",
                f"{path}.{key}" if path else key,
            )
    parts: list[str] = []
    for spec in fields:
        key = spec["json"]
        desc = spec["type"]
        omitempty = spec.get("omitempty") or key in also_omitempty
        if key not in value or (value[key] is None and desc["kind"] != "external"):
            if omitempty and desc["kind"] != "struct":
                continue
            if spec.get("omitzero"):
                continue
            parts.append(_key_text(key) + _zero_text(desc))
            continue
        item = value[key]
        if omitempty and _is_empty(item, desc):
            continue
        text = encode(item, desc, f"{path}.{key}" if path else key)
        if spec.get("omitzero") and text == _zero_text(desc):
            continue
        parts.append(_key_text(key) + text)
    return "{" + ",".join(parts) + "}"


def _encode_extra_pod_spec(value: dict[str, Any], path: str) -> str:
    """v1alpha1.ExtraPodSpec.MarshalJSON: the inline PodSpec with ``containers`` omitempty."""
    pod_fields = {k: v for k, v in value.items() if k != "mainContainer"}
    parts: list[str] = []
    if pod_fields:
        text = encode_struct(
            pod_fields, CORE_V1 + "PodSpec", path, also_omitempty=frozenset({"containers"})
        )
        inner = text[1:-1]
        if inner:
            parts.append(inner)
    if value.get("mainContainer") is not None:
        parts.append(
            '"mainContainer":'
            + encode_struct(value["mainContainer"], CORE_V1 + "Container", f"{path}.mainContainer")
        )
    return "{" + ",".join(parts) + "}"


def struct_fields(name: str) -> list[dict[str, Any]]:
    """The JSON fields of a Go struct in output order (embedded structs flattened)."""
    return _fields(name)


def marshal(value: Any, type_name: str) -> str:
    """``json.Marshal`` of ``value`` as the named Go struct type (full package path)."""
    return encode_struct(value, type_name, "")


def _strip(value: Any, desc: dict[str, Any]) -> Any:
    """v1beta1 normalizeV1Beta1JSON: drop ``{}`` written for a value-typed struct field."""
    kind = desc["kind"]
    if kind == "ptr":
        return _strip(value, desc["elem"])
    if value is None:
        return None
    if kind == "slice":
        return [_strip(v, desc["elem"]) for v in value]
    if kind == "map":
        return {k: _strip(v, desc["elem"]) for k, v in value.items()}
    if kind != "struct" or desc.get("marshaler") or not isinstance(value, dict):
        return value
    name = desc.get("name", "")
    fields = {f["json"]: f for f in _fields(name)} if name != EXTRA_POD_SPEC else {}
    out: dict[str, Any] = {}
    for key, item in value.items():
        spec = fields.get(key)
        if spec is None:
            out[key] = item
            continue
        sub_desc = spec["type"]
        stripped = _strip(item, sub_desc)
        if (
            sub_desc["kind"] == "struct"
            and not sub_desc.get("marshaler")
            and isinstance(stripped, dict)
            and not stripped
        ):
            continue  # an empty value-typed struct is an encoder artefact
        out[key] = stripped
    return out


def printed(value: Any, type_name: str) -> Any:
    """The object as the oracle prints a v1beta1 root object (sigs.k8s.io/yaml of MarshalJSON)."""
    data = json.loads(marshal(value, type_name))
    out = _strip(data, {"kind": "struct", "name": type_name})
    if isinstance(out, dict) and "metadata" in data:
        out.setdefault("metadata", {})
    return out


def semantic_equal(a: Any, b: Any, desc: dict[str, Any]) -> bool:
    """apiequality.Semantic.DeepEqual for two JSON values of the Go type ``desc``.

    Nil and empty slices or maps are equal; a nil pointer never equals a set one; an absent
    struct field is its zero value; quantities compare by value (canonical text).
    """
    kind = desc["kind"]
    if kind == "ptr":
        if a is None or b is None:
            return a is None and b is None
        return semantic_equal(a, b, desc["elem"])
    if kind in ("slice", "map", "bytes"):
        if not a or not b:
            return not a and not b
        if kind == "slice":
            return len(a) == len(b) and all(
                semantic_equal(x, y, desc["elem"]) for x, y in zip(a, b, strict=True)
            )
        if kind == "map":
            return set(a) == set(b) and all(semantic_equal(a[k], b[k], desc["elem"]) for k in a)
        return bool(a == b)
    if (
        kind == "struct"
        and not desc.get("marshaler")
        and desc.get("name")
        not in (
            QUANTITY,
            TIME,
            INT_OR_STRING,
        )
    ):
        a, b = a or {}, b or {}
        fields = _fields(desc["name"])
        known = {f["json"] for f in fields}
        if (set(a) | set(b)) - known:
            raise NotReproducedError(f"unknown field in a {desc['name']} comparison", "")
        return all(semantic_equal(a.get(f["json"]), b.get(f["json"]), f["type"]) for f in fields)
    return encode_or_zero(a, desc) == encode_or_zero(b, desc)


def encode_or_zero(value: Any, desc: dict[str, Any]) -> str:
    """Go's JSON text of a scalar or marshaler value, its zero text when absent."""
    return _zero_text(desc) if value is None else encode(value, desc, "")
