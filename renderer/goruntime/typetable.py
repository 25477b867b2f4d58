"""The pinned Go types as data: one loader, one descriptor format, one omitempty/zero rule.

The operator at ai-dynamo/dynamo 2a6da14c builds with k8s.io/api and apimachinery v0.36.2;
every struct either of its API versions reaches is in one table, named by that pin
(:data:`TABLE`). Three packaged files hold it, read on first need and in this order:

- ``dgd-types.json`` (scripts/gen_dgd_types.py): both DGD versions and everything they reach;
- ``operator-types.json``: the other Dynamo API types (DCD, checkpoint, ...);
- ``binding-types-k8s-v0.36.2.json``: the checkpoint binding's types.

A name found in an earlier file is never read from a later one. Entries of the later two
are turned into the first one's format as they are looked up:

- a type descriptor is ``{"kind": K, ...}``: the Go kinds (``string``, ``bool``, ``int32``,
  ...), ``ptr``/``slice`` with ``elem``, ``map`` with ``key`` and ``elem``, ``struct`` with
  ``name``, or ``special`` with ``name`` and ``marshaler`` (``quantity``, ``time``,
  ``duration``, ``intorstring``, ``raw``) for a type with its own MarshalJSON;
- a struct's fields are in Go's encoding order with embedded structs flattened; a field
  promoted through an embedded pointer carries ``viaPtr`` (the pointer's path).
"""

from __future__ import annotations

from typing import Any

from renderer.packagedata import data_json

TABLE = "dynamo 2a6da14c, k8s.io/api v0.36.2"

OP = "github.com/ai-dynamo/dynamo/deploy/operator/api/"
ALPHA = OP + "v1alpha1."
BETA = OP + "v1beta1."
CORE = "k8s.io/api/core/v1."
META = "k8s.io/apimachinery/pkg/apis/meta/v1."
QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity"
TIME = META + "Time"
INT_OR_STRING = "k8s.io/apimachinery/pkg/util/intstr.IntOrString"
FIELDS_V1 = META + "FieldsV1"
APIEXT_JSON = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON"
RAW_MESSAGE = "encoding/json.RawMessage"

_FILES = ("dgd-types.json", "operator-types.json", "binding-types-k8s-v0.36.2.json")
_MARSHALERS = {QUANTITY: "quantity", TIME: "time", INT_OR_STRING: "intorstring", FIELDS_V1: "raw"}
# Other modules' types the later files name by their import alias.
_ALIASES = {
    "autoscalingv2.": "k8s.io/api/autoscaling/v2.",
    "batchv1.": "k8s.io/api/batch/v1.",
    "apiextensionsv1.": "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.",
}
_STRING = {"kind": "string"}
_TYPE_META = [
    {"json": "kind", "go": "Kind", "omitempty": True, "omitzero": False, "type": _STRING},
    {
        "json": "apiVersion",
        "go": "APIVersion",
        "omitempty": True,
        "omitzero": False,
        "type": _STRING,
    },
]

_LOADED: list[dict[str, Any]] = []
_DOCUMENTS: dict[str, dict[str, Any]] = {}
_FIELDS: dict[str, list[dict[str, Any]]] = {}
_INDEX: dict[str, dict[str, dict[str, Any]]] = {}
_FOLDED: dict[str, dict[str, str]] = {}


class UnknownTypeError(KeyError):
    """The table has no struct of this name."""


def document(file_name: str) -> dict[str, Any]:
    """One packaged type-table file, parsed once per process (shared: never mutated)."""
    doc = _DOCUMENTS.get(file_name)
    if doc is None:
        doc = _DOCUMENTS[file_name] = data_json(file_name)
    return doc


def dgd_roots() -> dict[str, str]:
    """The Go type of a DynamoGraphDeployment, by API version (``v1alpha1``, ``v1beta1``)."""
    roots: dict[str, str] = document(_FILES[0])["roots"]
    return roots


def _file(index: int) -> dict[str, Any]:
    while len(_LOADED) <= index:
        _LOADED.append(document(_FILES[len(_LOADED)])["types"])
    return _LOADED[index]


def has_struct(name: str) -> bool:
    """Whether the table knows the struct."""
    try:
        struct_fields(name)
    except UnknownTypeError:
        return False
    return True


def struct_fields(name: str) -> list[dict[str, Any]]:
    """The struct's JSON fields in Go's encoding order (embedded structs flattened)."""
    fields = _FIELDS.get(name)
    if fields is None:
        fields = _FIELDS[name] = _load(name)
    return fields


def _load(name: str) -> list[dict[str, Any]]:
    if name == META + "TypeMeta":
        return _TYPE_META
    for index in range(len(_FILES)):
        entry = _file(index).get(name)
        if entry is not None:
            if index == 0:
                fields: list[dict[str, Any]] = entry["fields"]
                return _extra_pod_spec(fields) if name == ALPHA + "ExtraPodSpec" else fields
            return _flatten(entry["fields"], ())
    raise UnknownTypeError(name)


def _flatten(fields: list[dict[str, Any]], via_ptr: tuple[str, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for spec in fields:
        t = _normalized(spec["type"])
        if spec.get("inline"):
            inner = t["elem"] if t["kind"] == "ptr" else t
            path = (*via_ptr, spec["go"]) if t["kind"] == "ptr" or via_ptr else ()
            for field in struct_fields(inner["name"]):
                out.append({**field, "viaPtr": list(path)} if path else field)
            continue
        field = {
            "json": spec["json"],
            "go": spec.get("go", ""),
            "omitempty": bool(spec.get("omitempty")),
            "omitzero": bool(spec.get("omitzero")),
            "type": t,
        }
        if via_ptr:
            field["viaPtr"] = list(via_ptr)
        out.append(field)
    return out


def _normalized(t: dict[str, Any]) -> dict[str, Any]:
    """A later file's descriptor in the first file's format."""
    kind = t["kind"]
    if kind in ("ptr", "slice", "map"):
        out = dict(t)
        out["elem"] = _normalized(t["elem"])
        return out
    if kind == "bytes":
        return {"kind": "slice", "elem": {"kind": "uint8"}}
    name = t.get("name", "")
    for alias, package in _ALIASES.items():
        if name.startswith(alias):
            name = package + name[len(alias) :]
    if name in _MARSHALERS:
        return {"kind": "special", "name": name, "marshaler": _MARSHALERS[name]}
    if name == APIEXT_JSON:
        return {"kind": "special", "name": name, "marshaler": "raw"}
    if kind == "external" and name != t.get("name"):
        return {"kind": "struct", "name": name}
    return t


def _extra_pod_spec(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """v1alpha1.ExtraPodSpec.MarshalJSON shadows PodSpec.containers with an omitempty field
    declared after the embedded PodSpec: Go writes it after the pod fields, and never null."""
    containers = next(f for f in fields if f["json"] == "containers")
    rest = [f for f in fields if f is not containers]
    return [*rest[:-1], {**containers, "omitempty": True}, rest[-1]]


def field_index(name: str) -> dict[str, dict[str, Any]]:
    """JSON key -> field entry of a struct."""
    idx = _INDEX.get(name)
    if idx is None:
        idx = _INDEX[name] = {f["json"]: f for f in struct_fields(name)}
    return idx


def folded_keys(name: str) -> dict[str, str]:
    """Case-folded JSON key -> JSON key (what Go's decoder would also match)."""
    folded = _FOLDED.get(name)
    if folded is None:
        folded = _FOLDED[name] = {k.casefold(): k for k in field_index(name)}
    return folded


def struct_type(name: str) -> dict[str, Any]:
    """A descriptor for the named struct."""
    return {"kind": "struct", "name": name}


def core_type(name: str) -> dict[str, Any]:
    """A descriptor for a struct; a bare name (``PodSpec``) means k8s.io/api/core/v1."""
    return struct_type(name if "." in name or "/" in name else CORE + name)


def field_type(struct: str, key: str) -> dict[str, Any]:
    """The descriptor of one field (KeyError if the struct has no such JSON key)."""
    t: dict[str, Any] = field_index(struct)[key]["type"]
    return t


def go_type_name(t: dict[str, Any]) -> str:
    """reflect.Type.String() of a descriptor (``v1.PodSpec``, ``map[string]string``)."""
    kind = t["kind"]
    if "name" in t:
        pkg, _, name = t["name"].rpartition(".")
        return f"{pkg.rsplit('/', 1)[-1]}.{name}"
    if kind == "ptr":
        return "*" + go_type_name(t["elem"])
    if kind == "slice":
        return "[]" + go_type_name(t["elem"])
    if kind == "map":
        return f"map[{go_type_name(t['key'])}]{go_type_name(t['elem'])}"
    return str(kind)


def short_name(name: str) -> str:
    """The type's name without its package (``PodSpec``)."""
    return name.rsplit(".", 1)[-1]


# ---------------------------------------------------------------------------
# Go's zero values and encoding/json's omitempty / omitzero tests
# ---------------------------------------------------------------------------

#: What MarshalJSON writes for the zero value of each marshaler type (as a JSON value).
SPECIAL_ZERO: dict[str, Any] = {
    "quantity": "0",
    "time": None,
    "duration": "0s",
    "raw": None,
    "intorstring": 0,
}
_INT_KINDS = frozenset(
    {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}
)
_FLOAT_KINDS = frozenset({"float32", "float64"})


def is_number_kind(kind: str) -> bool:
    """Go's integer and float kinds."""
    return kind in _INT_KINDS or kind in _FLOAT_KINDS


def is_int_kind(kind: str) -> bool:
    """Go's integer kinds."""
    return kind in _INT_KINDS


def zero_scalar(t: dict[str, Any]) -> Any:
    """The JSON value of a type's zero value, for the kinds that are not structs."""
    kind = t["kind"]
    if kind == "string":
        return ""
    if kind == "bool":
        return False
    if kind == "special":
        return SPECIAL_ZERO[t["marshaler"]]
    if kind in ("ptr", "slice", "map", "struct", "external"):
        return None
    return 0


def is_empty(value: Any, t: dict[str, Any]) -> bool:
    """encoding/json's omitempty test (isEmptyValue); ``None`` is Go's zero value.

    Zero scalars, nil or empty slices and maps and nil pointers are empty; a struct never is
    (nor a type with its own MarshalJSON that is a struct: quantities, times, IntOrString).
    """
    kind = t["kind"]
    if value is None:
        if kind == "special":
            return bool(t["name"] == RAW_MESSAGE)  # a byte slice; the others are structs
        return kind not in ("struct", "external")
    if kind in ("slice", "map", "string"):
        return len(value) == 0
    if kind == "bool":
        return value is False
    if kind in _INT_KINDS or kind in _FLOAT_KINDS:
        return bool(value == 0)
    return False  # non-nil pointers, structs


def is_zero_wire(wire: Any, t: dict[str, Any], zero_struct: Any) -> bool:
    """omitzero on an encoded value: Time.IsZero for times, Go's zero value otherwise.

    ``zero_struct`` is the encoding of the struct's zero value (structs only)."""
    if t["kind"] == "struct":
        return bool(wire == zero_struct)
    if t["kind"] == "special":
        return bool(wire == SPECIAL_ZERO[t["marshaler"]])
    return bool(wire == zero_scalar(t))
