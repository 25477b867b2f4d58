"""Unknown fields in a DGD, found as the API server's strict field validation finds them.

`kubectl apply` (server-side field validation `Strict`, its default) refuses an object with
a field its CRD schema does not declare; without it the API server silently prunes the
field, so a typo (`checkpoint:` directly on a v1beta1 component instead of under
`experimental:`) renders and deploys as if it were not there. This module checks a DGD
against the field tree of the pinned operator's CRD (`renderer/data/dgd-fields.json`,
written by `scripts/update-dgd-fields` from
`deploy/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml`); with `--crd`
naming the DGD CRD, that CRD's schema decides instead (`check_fields`). The CLI calls it
on every DGD it reads (`render`, `lint --dgd`), before rendering.

A field tree keeps only what decides whether a field is known: per node `p` (declared
properties), `a` (the schema of map values, `additionalProperties`), `i` (list items), `x`
(`x-kubernetes-preserve-unknown-fields`: anything goes below), and `r` (a reference into
`defs`, where repeated subtrees such as the PodSpec are kept once). An object node without
`p`, `a` or `x` declares no field: every key under it is unknown, as the API server prunes
them all. The root `metadata` is ObjectMeta, checked against its own field list.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from renderer import EMULATED_OPERATOR
from renderer.errors import InputError
from renderer.packagedata import data_json
from renderer.source.model import Path

Node = dict[str, Any]

# ObjectMeta's fields (k8s.io/apimachinery/pkg/apis/meta/v1): the CRD schema says only
# `type: object` for the root metadata; the API server decodes it as ObjectMeta.
_OWNER_REFERENCE: Node = {
    "p": {k: {} for k in ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")}
}
OBJECT_META: Node = {
    "p": {
        **{
            k: {}
            for k in (
                "name",
                "generateName",
                "namespace",
                "selfLink",
                "uid",
                "resourceVersion",
                "generation",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
            )
        },
        "labels": {"a": {}},
        "annotations": {"a": {}},
        "ownerReferences": {"i": _OWNER_REFERENCE},
        "finalizers": {"i": {}},
        "managedFields": {"x": True},
    }
}
_SHARE_ABOVE = 200  # characters of JSON: smaller subtrees are cheaper written out


def node_from_schema(schema: Mapping[str, Any]) -> Node:
    """The field tree of one OpenAPI v3 schema node (see the module docstring)."""
    node: Node = {}
    if schema.get("x-kubernetes-preserve-unknown-fields") is True:
        node["x"] = True
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        node["p"] = {key: node_from_schema(value) for key, value in properties.items()}
    additional = schema.get("additionalProperties")
    if isinstance(additional, Mapping):
        node["a"] = node_from_schema(additional)
    elif additional is True:
        node["a"] = {}
    items = schema.get("items")
    if isinstance(items, Mapping):
        node["i"] = node_from_schema(items)
    if schema.get("type") == "object" and not ({"p", "a", "x"} & node.keys()):
        node["p"] = {}  # an object that declares no field
    return node


def tree_from_crd(crd: Mapping[str, Any]) -> dict[str, Any]:
    """{"versions": {version: root node}, "defs": {id: node}} for every version of a CRD."""
    versions: dict[str, Node] = {}
    for version in crd["spec"]["versions"]:
        root = node_from_schema(version["schema"]["openAPIV3Schema"])
        root.setdefault("p", {})["metadata"] = OBJECT_META
        versions[version["name"]] = root
    defs: dict[str, Node] = {}
    shared = {name: _share(root, defs) for name, root in versions.items()}
    return {"versions": shared, "defs": dict(sorted(defs.items()))}


def _share(node: Node, defs: dict[str, Node]) -> Node:
    """`node` with every large subtree replaced by a reference to one copy in `defs`."""
    out: Node = {}
    for key, value in node.items():
        if key == "p":
            out["p"] = {name: _share(child, defs) for name, child in value.items()}
        elif key in ("a", "i"):
            out[key] = _share(value, defs)
        else:
            out[key] = value
    import hashlib  # noqa: PLC0415 - hashlib (OpenSSL) only for the generator script

    text = json.dumps(out, sort_keys=True, separators=(",", ":"))
    if len(text) <= _SHARE_ABOVE:
        return out
    ref = hashlib.sha256(text.encode()).hexdigest()[:12]
    defs[ref] = out
    return {"r": ref}


def _bundled() -> dict[str, Any]:
    tree: dict[str, Any] = data_json("dgd-fields.json")  # shared, read only
    return tree


def unknown_fields(
    data: Mapping[str, Any], version: str, tree: Mapping[str, Any] | None = None
) -> list[Path]:
    """Paths of the fields of a DGD (`data`, of CRD version `version`) its CRD does not
    declare, in document order; [] for a version the tree does not know."""
    tree = tree if tree is not None else _bundled()
    root = tree["versions"].get(version)
    if root is None:
        return []
    return list(_walk(data, root, tree["defs"], ()))


def _walk(value: Any, node: Node, defs: Mapping[str, Node], path: Path) -> Iterator[Path]:
    while "r" in node:
        node = defs[node["r"]]
    if node.get("x"):
        return
    if isinstance(value, dict):
        properties = node.get("p")
        additional = node.get("a")
        if properties is None and additional is None:
            return  # not an object in the schema (int-or-string, free-form): not ours to judge
        for key, child in value.items():
            if properties is not None and key in properties:
                yield from _walk(child, properties[key], defs, (*path, key))
            elif additional is not None:
                yield from _walk(child, additional, defs, (*path, key))
            else:
                yield (*path, key)
    elif isinstance(value, list) and "i" in node:
        for index, item in enumerate(value):
            yield from _walk(item, node["i"], defs, (*path, index))


def check_fields(obj: Any, schemas: Mapping[tuple[str, str], Any] | None = None) -> None:
    """Raise the InputError of `unknown_field_error` for a DGD `SourceObject`, unless
    `schemas` (from `--crd`) hold its own schema: that one then decides, and it refuses
    undeclared fields itself (`renderer.schema.crd` closes every declared object)."""
    if schemas and (obj.api_version, obj.kind) in schemas:
        return
    error = unknown_field_error(obj)
    if error is not None:
        raise error


def check_emulated_fields(obj: Any, schemas: Mapping[tuple[str, str], Any] | None) -> None:
    """With `--crd` naming the DGD CRD (whose schema has accepted `obj`): raise InputError
    at the first field that CRD declares and the emulated operator's CRD does not. The
    emulation reads only the fields of its own operator, so the render would drop such a
    field without a word (upstream's `device`, for HAMi GPU sharing, is newer than the
    pinned operator: its workers would lose their GPU request); the user's operator is
    evidently newer than the one emulated."""
    if not schemas or (obj.api_version, obj.kind) not in schemas:
        return

    version = obj.api_version.rsplit("/", 1)[-1]
    found = unknown_fields(obj.data, version)
    if not found:
        return
    first = found[0]
    mark = obj.mark(first, key=True)
    others = [f"{_dotted(p)} at line {obj.mark(p, key=True).line}" for p in found[1:4]]
    if len(found) > 4:
        others.append(f"{len(found) - 4} more")
    also = f" (also: {', '.join(others)})" if others else ""
    raise InputError(
        f"field {_dotted(first)!r} is declared by the CRD given with --crd, but the emulated"
        f" {EMULATED_OPERATOR} does not know it: the render would silently drop it, so it"
        f" would not match what your (newer) operator creates{also}. Render only DGDs the"
        " emulated version reads, or drop the field",
        obj.file,
        mark.line,
        mark.column,
    )


def unknown_field_error(obj: Any, tree: Mapping[str, Any] | None = None) -> Any:
    """The InputError for the first unknown field of a DGD `SourceObject` (at its key), or
    None when every field is declared. Worded as the API server's strict decoding error."""
    version = obj.api_version.rsplit("/", 1)[-1]
    found = unknown_fields(obj.data, version, tree)
    if not found:
        return None
    first = found[0]
    mark = obj.mark(first, key=True)
    others = [f"{_dotted(p)} at line {obj.mark(p, key=True).line}" for p in found[1:4]]
    if len(found) > 4:
        others.append(f"{len(found) - 4} more")
    also = f" (also: {', '.join(others)})" if others else ""
    hint = _spelling_hint(first, version) or _nested_hint(obj.data, first, version, tree)
    hint = hint or _sibling_hint(first, version, tree)
    return InputError(
        f"unknown field {_dotted(first)!r} in DynamoGraphDeployment {obj.api_version}: its"
        " CRD does not declare it, so the API server would refuse it (kubectl apply, strict"
        f" field validation){hint}{also}",
        obj.file,
        mark.line,
        mark.column,
    )


def _dotted(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")


def _parent_node(tree: Mapping[str, Any], version: str, path: Path) -> Node:
    """The declared node holding `path`'s last key (references followed; `{}` when the
    version or a step along the path is not declared)."""
    defs = tree["defs"]
    node: Node = tree["versions"].get(version, {})
    for part in path[:-1]:
        while "r" in node:
            node = defs[node["r"]]
        if isinstance(part, int):
            node = node.get("i", {})
        else:
            node = node.get("p", {}).get(part) or node.get("a", {})
    while "r" in node:
        node = defs[node["r"]]
    return node


def _nested_hint(
    data: Mapping[str, Any], path: Path, version: str, tree: Mapping[str, Any] | None
) -> str:
    """`; did you mean ...` when the field is declared one level down, under a sibling
    (`checkpoint` belongs under `experimental` on a v1beta1 component)."""
    tree = tree if tree is not None else _bundled()
    defs = tree["defs"]
    node = _parent_node(tree, version, path)
    for sibling, declared in node.get("p", {}).items():
        child = declared
        while "r" in child:
            child = defs[child["r"]]
        if path[-1] in child.get("p", {}):
            return f" (did you mean {_dotted((*path[:-1], sibling, path[-1]))}?)"
    return ""


# The same field in the other API version, where the conversion webhook renames it (the
# operator's v1alpha1 <-> v1beta1 conversion): (version written, where, key) -> hint.
# Only renames the conversion makes; a field with no counterpart gets no hint.
_COMPONENT, _SPEC = "component", "spec"
_OTHER_VERSION: dict[tuple[str, str, str], str] = {
    ("v1beta1", _COMPONENT, "componentType"): "type",
    ("v1beta1", _COMPONENT, "serviceName"): "name",
    ("v1beta1", _COMPONENT, "sharedMemory"): "sharedMemorySize",
    ("v1beta1", _COMPONENT, "extraPodSpec"): "podTemplate.spec",
    ("v1beta1", _COMPONENT, "extraPodMetadata"): "podTemplate.metadata",
    ("v1beta1", _COMPONENT, "envs"): "podTemplate.spec.containers[main].env",
    ("v1beta1", _SPEC, "services"): "components",
    ("v1beta1", _SPEC, "envs"): "env",
    ("v1alpha1", _COMPONENT, "type"): "componentType",
    ("v1alpha1", _COMPONENT, "name"): "serviceName",
    ("v1alpha1", _COMPONENT, "sharedMemorySize"): "sharedMemory.size",
    ("v1alpha1", _COMPONENT, "podTemplate"): "extraPodSpec and extraPodMetadata",
    ("v1alpha1", _COMPONENT, "experimental"): "checkpoint, gpuMemoryService, failover",
    ("v1alpha1", _SPEC, "components"): "services",
    ("v1alpha1", _SPEC, "env"): "envs",
}


def _spelling_hint(path: Path, version: str) -> str:
    """`(did you mean type? componentType is the v1alpha1 spelling)` for a field written as
    the other API version spells it."""
    if len(path) == 2 and path[0] == "spec":
        where = _SPEC
    elif len(path) == 4 and path[:2] in (("spec", "components"), ("spec", "services")):
        where = _COMPONENT
    else:
        return ""
    key = str(path[-1])
    wanted = _OTHER_VERSION.get((version, where, key))
    if wanted is None:
        return ""
    other = "v1alpha1" if version == "v1beta1" else "v1beta1"
    if "," in wanted or " and " in wanted:  # one field there, several here
        return (
            f" ({key!r} is {other}'s; in nvidia.com/{version} its fields are {wanted},"
            f" on the {'service' if version == 'v1alpha1' else 'component'} itself)"
        )
    return (
        f" (did you mean {_dotted(path[:-1])}.{wanted}? {key!r} is the {other} spelling,"
        f" and this DGD is nvidia.com/{version})"
    )


def _sibling_hint(path: Path, version: str, tree: Mapping[str, Any] | None) -> str:
    """`(did you mean replicas?)` for a key one typo away from a field declared beside it
    (same letters in another case, or a close spelling: difflib ratio 0.85 and the only
    such field), never a guess between several."""
    import difflib  # noqa: PLC0415 - difflib only for the did-you-mean hint of an unknown field

    tree = tree if tree is not None else _bundled()
    node = _parent_node(tree, version, path)
    declared = list(node.get("p", {}))
    key = str(path[-1])
    same = [name for name in declared if name.lower() == key.lower()]
    close = same or difflib.get_close_matches(key, declared, n=2, cutoff=0.85)
    if len(close) != 1:
        return ""
    return f" (did you mean {_dotted((*path[:-1], close[0]))}?)"
