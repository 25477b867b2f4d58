"""CustomResourceDefinition `openAPIV3Schema` to JSON Schema draft 2020-12 (`--crd FILE`).

The API server's structural schemas are OpenAPI v3.0 plus Kubernetes extensions. What changes:

- `nullable: true` adds "null" to `type` (and to `enum`); without it null is not allowed.
- `x-kubernetes-int-or-string` (and `format: int-or-string`) is `type: [integer, string]`;
  the `anyOf: [{type: integer}, {type: string}]` controller-gen writes next to it is dropped.
- `x-kubernetes-preserve-unknown-fields: true` keeps an object open. Any other object that
  lists `properties` is closed (`additionalProperties: false`): the API server prunes unknown
  fields silently, so a field the installed version does not know would just vanish, which
  is exactly what validating against the real CRD should reveal.
- `format: int32` / `int64` become minimum/maximum bounds; OpenAPI's boolean
  `exclusiveMinimum`/`exclusiveMaximum` become the numeric draft 2020-12 keywords.
- `x-kubernetes-list-type: set` is `uniqueItems: true`. Embedded resources
  (`x-kubernetes-embedded-resource`) always allow apiVersion, kind and metadata.
- CEL rules (`x-kubernetes-validations`), list-map key uniqueness and other extensions are not
  checked offline; they are dropped.
- The object's own `metadata` stays open: the API server validates ObjectMeta itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from renderer.constants import DEFAULT_MAX_BYTES
from renderer.errors import InputError
from renderer.schema.bundled import SchemaKey
from renderer.source import load_paths
from renderer.source.model import Path, SourceObject

CRD_API_VERSIONS = ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")
ORIGIN_KEY = "x-dynamo-render-origin"  # [file, line, column] of a converted CRD version
CRD_KIND = "CustomResourceDefinition"

_INT_BOUNDS = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
# Keywords that mean the same in OpenAPI v3.0 and draft 2020-12.
_SAME = frozenset(
    {
        "type", "enum", "required", "pattern", "minimum", "maximum", "minLength", "maxLength",
        "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "multipleOf",
        "description", "title", "default", "format",
    }
)  # fmt: skip
_EMBEDDED_FIELDS = ("apiVersion", "kind", "metadata")


def _is_int_or_string_anyof(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(s, dict) and set(s) <= {"type", "pattern"} for s in value
    )


def convert_openapi(node: dict[str, Any], *, top: bool = False) -> dict[str, Any]:
    """One OpenAPI v3 (structural) schema node as a draft 2020-12 schema node."""
    out: dict[str, Any] = {}
    int_or_string = bool(node.get("x-kubernetes-int-or-string")) or (
        node.get("format") == "int-or-string"
    )
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out["properties"] = {n: convert_openapi(s) for n, s in value.items()}
        elif key == "items" and isinstance(value, dict):
            out["items"] = convert_openapi(value)
        elif key == "additionalProperties":
            out[key] = convert_openapi(value) if isinstance(value, dict) else value
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            if int_or_string and key == "anyOf" and _is_int_or_string_anyof(value):
                continue
            out[key] = [convert_openapi(s) for s in value if isinstance(s, dict)]
        elif key == "not" and isinstance(value, dict):
            out[key] = convert_openapi(value)
        elif key in _SAME:
            out[key] = value
    if int_or_string:
        out["type"] = ["integer", "string"]
        out.pop("format", None)
    fmt = out.get("format")
    if isinstance(fmt, str) and fmt in _INT_BOUNDS and out.get("type") == "integer":
        low, high = _INT_BOUNDS[fmt]
        out.setdefault("minimum", low)
        out.setdefault("maximum", high)
    for bound, word in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if node.get(word) is True and bound in out:
            out[word] = out.pop(bound)
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list) and "null" not in kind:
            out["type"] = [*kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    if node.get("x-kubernetes-embedded-resource") and "properties" in out:
        for name in _EMBEDDED_FIELDS:
            field_type = "object" if name == "metadata" else "string"
            out["properties"].setdefault(name, {"type": field_type})
    if "properties" in out and not preserve and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if top and isinstance(out.get("properties"), dict) and "metadata" in out["properties"]:
        metadata = out["properties"]["metadata"]
        if isinstance(metadata, dict):
            metadata.pop("additionalProperties", None)
    return out


def _field(obj: SourceObject, path: Path, kind: type, what: str) -> Any:
    value: Any = obj.data
    for step in path:
        if isinstance(step, int):
            value = value[step] if isinstance(value, list) and step < len(value) else None
        else:
            value = value.get(step) if isinstance(value, dict) else None
    if not isinstance(value, kind):
        mark = obj.mark(path, key=True)
        raise InputError(f"CRD {what} is missing or not {kind.__name__}", obj.file, *mark)
    return value


def _crd_schemas(obj: SourceObject) -> dict[SchemaKey, dict[str, Any]]:
    if obj.kind != CRD_KIND or obj.api_version not in CRD_API_VERSIONS:
        mark = obj.mark(("kind",), key=False)
        raise InputError(
            f"expected a CustomResourceDefinition ({CRD_API_VERSIONS[0]}), "
            f"found {obj.kind or 'no kind'} {obj.api_version}".rstrip(),
            obj.file,
            *mark,
        )
    group = _field(obj, ("spec", "group"), str, "spec.group")
    kind = _field(obj, ("spec", "names", "kind"), str, "spec.names.kind")
    versions = _field(obj, ("spec", "versions"), list, "spec.versions")
    # apiextensions v1beta1 allowed one schema for all versions.
    shared = obj.data["spec"].get("validation")
    found: dict[SchemaKey, dict[str, Any]] = {}
    for index, version in enumerate(versions):
        name = _field(obj, ("spec", "versions", index, "name"), str, "version name")
        if version.get("served") is False:
            continue
        holder = version.get("schema") if "schema" in version else shared
        raw = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
        if not isinstance(raw, dict):
            mark = obj.mark(("spec", "versions", index), key=False)
            raise InputError(
                f"CRD {obj.name} version {name} has no openAPIV3Schema", obj.file, *mark
            )
        try:
            schema = convert_openapi(raw, top=True)
        except RecursionError:
            raise InputError(
                f"CRD {obj.name} version {name}: the schema is nested too deeply to read",
                obj.file,
                *obj.mark(("spec", "versions", index), key=False),
            ) from None
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = f"CRD {obj.name} {name}"
        # where a message about the schema itself points (JSON Schema ignores x- keywords)
        mark = obj.mark(("spec", "versions", index), key=False)
        schema[ORIGIN_KEY] = [obj.file, mark.line, mark.column]
        found[(f"{group}/{name}", kind)] = schema
    if not found:
        raise InputError(f"CRD {obj.name} serves no version", obj.file, *obj.mark(("spec",)))
    return found


def schemas_from_crd(crd_objects: Sequence[SourceObject]) -> dict[SchemaKey, dict[str, Any]]:
    """(apiVersion, kind) -> draft 2020-12 schema for every served version of these CRDs.

    A later CRD for the same group, version and kind replaces an earlier one.
    Raises InputError (file:line:column) for objects that are not usable CRDs.
    """
    schemas: dict[SchemaKey, dict[str, Any]] = {}
    for obj in crd_objects:
        schemas.update(_crd_schemas(obj))
    return schemas


def load_crd_schemas(
    paths: Sequence[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> dict[SchemaKey, dict[str, Any]]:
    """`--crd FILE...`: read the CRD files (YAML, one or more documents) and convert them."""
    return schemas_from_crd(load_paths(list(paths), max_bytes=max_bytes))
