"""DynamoCheckpoint snapshots as the operator sees them: identity, provenance labels, readiness.

`checkpoint_from_object` reads the fields the binding needs and rejects values of the
wrong JSON type exactly where Go's decoder would fail on the whole object (labels as a
list, a string generation, a numeric uid). `unbindable_reason` states, in the operator's
words and in its order, why no binding can be computed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from renderer.binding.scalars import describe, format_path, go_int, has_surrogate
from renderer.constants import CHECKPOINT_KIND
from renderer.errors import InputError
from renderer.keys import (
    AUTO_MARKER_KEY,
    CHECKPOINT_ID_LABEL,
    COMPONENT_LABEL,
    DGD_NAME_LABEL,
    WORKER_HASH_LABEL,
)
from renderer.source.model import Path, SourceObject

CHECKPOINT_GROUP = "nvidia.com"
READY_PHASE = "Ready"

__all__ = [
    "CHECKPOINT_KIND",
    "READY_PHASE",
    "Checkpoint",
    "checkpoint_from_object",
    "is_checkpoint",
    "unbindable_path",
    "unbindable_reason",
]


class Checkpoint(NamedTuple):
    """The binding-relevant view of one DynamoCheckpoint ("" / 0 where a field is absent)."""

    source: SourceObject
    name: str
    namespace: str
    uid: str
    generation: int
    checkpoint_id: str
    component: str
    dgd_name: str
    worker_hash: str
    phase: str
    labels: dict[str, str]
    annotations: dict[str, str]

    @property
    def ready(self) -> bool:
        """The operator restores only from a checkpoint whose status.phase is Ready."""
        return self.phase == READY_PHASE


def is_checkpoint(obj: SourceObject) -> bool:
    """kind DynamoCheckpoint in the nvidia.com API group."""
    return obj.kind == CHECKPOINT_KIND and obj.api_version.startswith(CHECKPOINT_GROUP + "/")


def type_error(obj: SourceObject, path: Path, expected: str, value: Any) -> InputError:
    """The field at `path` has a JSON type the operator cannot decode, at its position."""
    mark = obj.mark(path, key=False)
    return InputError(
        f"{format_path(path)} must be {expected}, not {describe(value)}"
        " (the operator cannot decode this checkpoint)",
        obj.file,
        mark.line,
        mark.column,
    )


def _string(obj: SourceObject, parent: dict[str, Any], path: Path) -> str:
    value = parent.get(str(path[-1]))
    if value is None:  # absent and null both leave Go's string at ""
        return ""
    if not isinstance(value, str):
        raise type_error(obj, path, "a string", value)
    if has_surrogate(value):
        raise type_error(obj, path, "valid UTF-8 text", value)
    return value


def _mapping(obj: SourceObject, parent: dict[str, Any], path: Path) -> dict[str, Any]:
    value = parent.get(str(path[-1]))
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise type_error(obj, path, "an object", value)
    return value


def _string_map(obj: SourceObject, parent: dict[str, Any], path: Path) -> dict[str, str]:
    """A Go map[string]string: every value a string (null decodes to "")."""
    raw = _mapping(obj, parent, path)
    result: dict[str, str] = {}
    for key in raw:
        result[key] = _string(obj, raw, (*path, key))
    return result


def checkpoint_from_object(obj: SourceObject) -> Checkpoint:
    """Read one DynamoCheckpoint; InputError (file:line:col) on wrong kind or field types."""
    if not is_checkpoint(obj):
        mark = obj.mark(("kind",), key=False)
        raise InputError(
            f"expected a {CHECKPOINT_KIND} ({CHECKPOINT_GROUP}/*), found {obj.kind!r}"
            f" ({obj.api_version!r})",
            obj.file,
            mark.line,
            mark.column,
        )
    data = obj.data
    metadata = _mapping(obj, data, ("metadata",))
    labels = _string_map(obj, metadata, ("metadata", "labels"))
    annotations = _string_map(obj, metadata, ("metadata", "annotations"))
    raw_generation = metadata.get("generation")
    generation = 0
    if raw_generation is not None:
        decoded = go_int(raw_generation, "int64")
        if decoded is None:
            raise type_error(obj, ("metadata", "generation"), "an int64 integer", raw_generation)
        generation = decoded
    status = _mapping(obj, data, ("status",))
    return Checkpoint(
        source=obj,
        name=_string(obj, metadata, ("metadata", "name")),
        namespace=_string(obj, metadata, ("metadata", "namespace")),
        uid=_string(obj, metadata, ("metadata", "uid")),
        generation=generation,
        checkpoint_id=labels.get(CHECKPOINT_ID_LABEL, ""),
        component=labels.get(COMPONENT_LABEL, ""),
        dgd_name=labels.get(DGD_NAME_LABEL, ""),
        worker_hash=labels.get(WORKER_HASH_LABEL, ""),
        phase=_string(obj, status, ("status", "phase")),
        labels=labels,
        annotations=annotations,
    )


def is_manual(obj: SourceObject) -> bool:
    """A manual checkpoint: one without the automatic marker exactly "true".

    The operator's one test for an automatic checkpoint is that annotation (its reconcilers
    and the DynamoCheckpoint controller all ask `annotations[marker] == "true"`); the
    checkpoint-ID label is no part of it: its pod webhook restores from any Ready
    checkpoint, labelled or not, and its test table's checkpoints carry the label and no
    marker. A manual checkpoint is never bound and needs no binding. Annotations (or a
    marker) of the wrong JSON type are not manual: binding reports them, located."""
    metadata = obj.data.get("metadata")
    if not isinstance(metadata, dict):
        return metadata is None
    annotations = metadata.get("annotations")
    if annotations is None:
        return True
    if not isinstance(annotations, dict):
        return False
    marker = annotations.get(AUTO_MARKER_KEY)
    return marker is None or (isinstance(marker, str) and marker != "true")


def unbindable_reason(cp: Checkpoint) -> str | None:
    """Why the operator computes no binding for `cp` (its message, first failure wins)."""
    if cp.uid == "":
        return "automatic checkpoint UID is missing"
    if cp.generation < 1:
        return "automatic checkpoint generation is missing"
    if cp.annotations.get(AUTO_MARKER_KEY) != "true":
        return (
            "automatic checkpoint provenance is invalid:"
            f" checkpoint {cp.name} is not marked automatic"
        )
    if cp.checkpoint_id == "":
        return (
            "automatic checkpoint provenance is invalid:"
            f" automatic checkpoint {cp.name} ID label is missing"
        )
    return None


def unbindable_path(cp: Checkpoint) -> Path:
    """The field `unbindable_reason` complains about, for file:line:column."""
    if cp.uid == "":
        return ("metadata", "uid")
    if cp.generation < 1:
        return ("metadata", "generation")
    if cp.annotations.get(AUTO_MARKER_KEY) != "true":
        return ("metadata", "annotations", AUTO_MARKER_KEY)
    return ("metadata", "labels", CHECKPOINT_ID_LABEL)
