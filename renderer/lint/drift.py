"""Semantic comparison of a committed object with a freshly rendered one, for render-drift.

Data are compared, not text: comments, quoting, indentation and key order of the committed
file do not count. A difference is located at the first differing key, walking the
rendered object's key order (keys only the committed object has come after the rendered
keys of their mapping), and shown as the first hunk of a unified diff of both sides dumped
with `renderer.yamlout.dump_object`. The committed side is dumped with its keys put in the
rendered order first, so the hunk shows the difference rather than a reordering.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from renderer.operator import consts
from renderer.source.model import Path
from renderer.yamlout import dump_object

_MISSING = object()

# What the API server and controllers write on a live object, never a render: an export
# (`kubectl get dcd,pcs -o yaml`) carries them, and `kubectl diff` / Argo CD do not count
# them as drift. Annotations: kubectl's client-side apply record; the operator's
# bookkeeping (internal/controller_common/resource.go: the hash and generation it last
# applied; api/v1alpha1/dynamocomponentdeployment_conversion.go: what a DCD served in
# the other API version keeps of itself).
SERVER_METADATA = frozenset(
    {
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "ownerReferences",
        "selfLink",
    }
)
SERVER_ANNOTATIONS = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        consts.NVIDIA_ANNOTATION_HASH_KEY,
        consts.NVIDIA_ANNOTATION_GENERATION_KEY,
        consts.DCD_SPEC_ANNOTATION,
        consts.DCD_STATUS_ANNOTATION,
    }
)
# Finalizers the controllers add to what they own: the DCD controller's and Grove's.
CONTROLLER_FINALIZERS = frozenset({consts.FINALIZER, consts.GROVE_PCS_FINALIZER})


def without_server_fields(data: dict[str, Any]) -> dict[str, Any]:
    """`data` (a whole object) without `status` and the server-populated metadata above; an
    `annotations` mapping only they filled goes too, and so does a `finalizers` list only
    controllers filled."""
    out = {k: v for k, v in data.items() if k != "status"}
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        kept = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            left = {k: v for k, v in annotations.items() if k not in SERVER_ANNOTATIONS}
            if left or not annotations:
                kept["annotations"] = left
            else:
                del kept["annotations"]
        finalizers = metadata.get("finalizers")
        if isinstance(finalizers, list):
            own = [f for f in finalizers if f not in CONTROLLER_FINALIZERS]
            if own or not finalizers:
                kept["finalizers"] = own
            else:
                del kept["finalizers"]
        out["metadata"] = kept
    return out


def _same_scalar(a: Any, b: Any) -> bool:
    # 1 == 1.0 == True in Python; Kubernetes tells them apart
    return type(a) is type(b) and a == b


def first_difference(committed: Any, rendered: Any, path: Path = ()) -> Path | None:
    """Path of the first difference (see the module docstring), or None when equal."""
    if isinstance(committed, dict) and isinstance(rendered, dict):
        keys = [*rendered, *(k for k in committed if k not in rendered)]
        for key in keys:
            if key not in committed or key not in rendered:
                return (*path, key)
            found = first_difference(committed[key], rendered[key], (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(committed, list) and isinstance(rendered, list):
        for index, (a, b) in enumerate(zip(committed, rendered, strict=False)):
            found = first_difference(a, b, (*path, index))
            if found is not None:
                return found
        if len(committed) != len(rendered):
            return (*path, min(len(committed), len(rendered)))
        return None
    if isinstance(committed, (dict, list)) or isinstance(rendered, (dict, list)):
        return path
    return None if _same_scalar(committed, rendered) else path


def aligned(committed: Any, rendered: Any) -> Any:
    """`committed` with every mapping's keys in `rendered`'s order (extra keys last)."""
    if isinstance(committed, dict) and isinstance(rendered, Mapping):
        keys = [k for k in rendered if k in committed]
        keys += [k for k in committed if k not in rendered]
        return {k: aligned(committed[k], rendered.get(k, _MISSING)) for k in keys}
    if isinstance(committed, list) and isinstance(rendered, list):
        return [
            aligned(item, rendered[i] if i < len(rendered) else _MISSING)
            for i, item in enumerate(committed)
        ]
    return committed


def first_hunk(
    committed: dict[str, Any], rendered: dict[str, Any], *, names: tuple[str, str]
) -> str:
    """The first hunk of the unified diff committed -> rendered, with its file header."""
    before = dump_object(aligned(committed, rendered)).splitlines(keepends=True)
    after = dump_object(rendered).splitlines(keepends=True)
    lines = list(difflib.unified_diff(before, after, fromfile=names[0], tofile=names[1], n=2))
    hunks = [i for i, line in enumerate(lines) if line.startswith("@@")]
    end = hunks[1] if len(hunks) > 1 else len(lines)
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines[:end])
    return text.rstrip("\n")
