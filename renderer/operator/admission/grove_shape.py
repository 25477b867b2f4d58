"""validateKnownGroveShape: ``json.Unmarshal`` of a provider-override value into a Grove type.

The operator decodes ``override.value`` into the Grove Go type of its target
(PodCliqueSet, PodCliqueTemplateSpec or PodCliqueScalingGroupConfig; Grove API
v0.1.0-alpha.12-rc1) and refuses the value with Go's first decode error, e.g.
``json: cannot unmarshal string into Go struct field PodCliqueSet.spec.template.
topologyConstraint.pack of type v1alpha1.TopologyPackConstraint``. The struct named there is
the decoded root type, as the Go release the reference oracle is built with (1.27) writes
it; the operator's own test expects the innermost struct (``TopologyConstraint.spec...``),
what older Go releases wrote, so the text depends on the Go the operator is built with.

Modelled here: the fields an override uses to place topology (``topologyConstraint`` with
``topologyName``, ``pack.required``/``pack.preferred`` and the legacy ``packDomain``), the
scalar and string-map fields around it, and the field lists of the three targets and the
topology types (a key outside those is dropped, as Go drops it). Deeper structs are judged
only when empty; anything else could be any Grove type, so it is refused with
``NotReproducedError`` naming it (a JSON null is always accepted: Go leaves the field alone).
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import json_kind
from renderer.operator import consts
from renderer.operator.admission.errors import NotReproducedError

# Go type name -> {json key: (kind, Go type as reflect prints it, struct table name or None)}.
# Kinds: string, int32, map (of strings), list (of strings), struct (a table below), opaque
# (a struct or list of types not modelled: only empty or null is judged).
_STRING = ("string", "string", None)
_DOMAIN = ("string", "v1alpha1.TopologyDomain", None)
_INT32 = ("int32", "int32", None)
_STR_MAP = ("map", "map[string]string", None)
_STR_LIST = ("list", "[]string", None)
_TOPOLOGY = ("struct", "v1alpha1.TopologyConstraint", "TopologyConstraint")

_TYPES: dict[str, dict[str, tuple[str, str, str | None]]] = {
    consts.PCS_KIND: {
        "apiVersion": _STRING,
        "kind": _STRING,
        "metadata": ("struct", "v1.ObjectMeta", "ObjectMeta"),
        "spec": ("struct", "v1alpha1.PodCliqueSetSpec", "PodCliqueSetSpec"),
        "status": ("opaque", "v1alpha1.PodCliqueSetStatus", None),
    },
    "ObjectMeta": {
        "name": _STRING,
        "generateName": _STRING,
        "namespace": _STRING,
        "labels": _STR_MAP,
        "annotations": _STR_MAP,
    },
    "PodCliqueSetSpec": {
        "replicas": _INT32,
        "template": ("struct", "v1alpha1.PodCliqueSetTemplateSpec", "PodCliqueSetTemplateSpec"),
    },
    "PodCliqueSetTemplateSpec": {"topologyConstraint": _TOPOLOGY},
    "PodCliqueTemplateSpec": {
        "name": _STRING,
        "labels": _STR_MAP,
        "annotations": _STR_MAP,
        "topologyConstraint": _TOPOLOGY,
        "spec": ("opaque", "v1alpha1.PodCliqueSpec", None),
    },
    "PodCliqueScalingGroupConfig": {
        "name": _STRING,
        "cliqueNames": _STR_LIST,
        "annotations": _STR_MAP,
        "replicas": _INT32,
        "minAvailable": _INT32,
        "scaleConfig": ("opaque", "v1alpha1.AutoScalingConfig", None),
        "rollingUpdate": ("opaque", "v1alpha1.RollingUpdateConfiguration", None),
        "resourceSharing": ("opaque", "[]v1alpha1.PCSGResourceSharingSpec", None),
        "topologyConstraint": _TOPOLOGY,
    },
    "TopologyConstraint": {
        "topologyName": _STRING,
        "pack": ("struct", "v1alpha1.TopologyPackConstraint", "TopologyPackConstraint"),
        "packDomain": _DOMAIN,
    },
    "TopologyPackConstraint": {"required": _DOMAIN, "preferred": _DOMAIN},
}
# Tables that list every field of their Go type: another key is one Go's decoder ignores.
# The others are partial, so another key could be a field of any type: not reproduced.
_COMPLETE = frozenset(
    {
        consts.PCS_KIND,
        "PodCliqueTemplateSpec",
        "PodCliqueScalingGroupConfig",
        "TopologyConstraint",
        "TopologyPackConstraint",
    }
)


class _TypeError(Exception):
    def __init__(self, value: str, struct: str, path: str, go_type: str) -> None:
        super().__init__(
            f"json: cannot unmarshal {value} into Go struct field {struct}.{path} of type {go_type}"
        )


def known_shape_error(target: str, value: dict[str, Any]) -> str | None:
    """Go's first decode error for ``value`` as the target type, or None if it decodes."""
    if target not in _TYPES:
        return None
    try:
        _decode_struct(value, target, "", target)
    except _TypeError as err:
        return str(err)
    return None


def _refuse(path: str, why: str) -> NotReproducedError:
    return NotReproducedError(
        f"provider override value field {path!r}: {why} is not reproduced "
        "(only the topology fields of the Grove types are modelled)",
        (),
    )


def _decode_struct(obj: dict[str, Any], struct: str, path: str, root: str) -> None:
    fields = _TYPES[struct]
    folded = {k.casefold(): k for k in fields}
    for key, item in obj.items():
        sub = f"{path}.{key}" if path else key
        if key not in fields:
            if key.casefold() in folded:
                raise _refuse(sub, "Go's case-insensitive field match")
            if item is None or struct in _COMPLETE:
                continue  # Go's decoder drops an unknown field
            raise _refuse(sub, "checking this field against the Grove schema")
        if item is None:
            continue
        _decode_field(item, fields[key], root, sub)


def _decode_field(item: Any, field: tuple[str, str, str | None], root: str, path: str) -> None:
    kind, go_type, table = field
    got = json_kind(item)
    if kind == "string":
        if got != "string":
            raise _TypeError(got, root, path, go_type)
    elif kind == "int32":
        if got != "number":
            raise _TypeError(got, root, path, go_type)
        if isinstance(item, float) or not -(2**31) <= item < 2**31:
            raise _refuse(path, "Go's text for a non-int32 number")
    elif kind == "opaque":
        want = "array" if go_type.startswith("[]") else "object"
        if got != want:
            raise _TypeError(got, root, path, go_type)
        if item:
            raise _refuse(path, "checking this field against the Grove schema")
    elif kind == "struct":
        if got != "object":
            raise _TypeError(got, root, path, go_type)
        assert table is not None
        _decode_struct(item, table, path, root)
    elif kind == "map":
        if got != "object":
            raise _TypeError(got, root, path, go_type)
        if any(not isinstance(v, str) for v in item.values() if v is not None):
            raise _refuse(path, "Go's text for a map element of the wrong type")
    elif kind == "list":
        if got != "array":
            raise _TypeError(got, root, path, go_type)
        if any(not isinstance(v, str) for v in item if v is not None):
            raise _refuse(path, "Go's text for a list element of the wrong type")
