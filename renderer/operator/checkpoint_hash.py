"""internal/checkpoint hash.go and resource.go's CheckpointID: the names and IDs of checkpoints.

``DGDCheckpointID`` names a DGD-owned automatic checkpoint: the first 32 hex characters of
SHA-256 over ``json.Marshal`` of ``{namespace, dgdName, dgdUID, componentName, workerHash}``
(empty namespace, UID and worker hash omitted); the object is ``checkpoint-<ID>``.
``CheckpointID`` reads a DynamoCheckpoint's ID: ``status.checkpointID``, else
``status.identityHash``, else the ``nvidia.com/snapshot-checkpoint-id`` label, else
``ComputeIdentityHash`` of ``spec.identity``; the fields are read with the Go types the
operator's client decodes them into (:class:`CheckpointDecodeError` names a field of the
wrong JSON type). Light on purpose: lint asks these questions without the resolution and
pod-spec code of checkpoint_id.py.
"""

from __future__ import annotations

from typing import Any

from renderer.binding.scalars import describe, go_int
from renderer.gojson import encode_string, marshal_any
from renderer.operator import consts
from renderer.operator.errors import OperatorError
from renderer.sha256 import sha256_hex

JSON = dict[str, Any]

CHECKPOINT_ID_LABEL = consts.CHECKPOINT_ID_LABEL


def dgd_checkpoint_id(
    namespace: str, dgd_name: str, dgd_uid: str, component_name: str, worker_hash: str
) -> str:
    """DGDCheckpointID: hex(sha256(json.Marshal(struct)))[:32], Go field order and omitempty."""
    parts = []
    if namespace:
        parts.append('"namespace":' + encode_string(namespace))
    parts.append('"dgdName":' + encode_string(dgd_name))
    if dgd_uid:
        parts.append('"dgdUID":' + encode_string(dgd_uid))
    parts.append('"componentName":' + encode_string(component_name))
    if worker_hash:
        parts.append('"workerHash":' + encode_string(worker_hash))
    data = "{" + ",".join(parts) + "}"
    return sha256_hex(data.encode("utf-8", "surrogatepass"))[:32]


def checkpoint_name(checkpoint_id: str) -> str:
    """The DynamoCheckpoint an automatic checkpoint lives in."""
    return f"checkpoint-{checkpoint_id}"


class CheckpointDecodeError(OperatorError):
    """A DynamoCheckpoint field of the wrong JSON type: the operator's client cannot decode
    the object (json.Unmarshal fails), so no checkpoint ID is read from it. ``path`` names
    the field."""

    def __init__(self, path: tuple[str, ...], expected: str, value: Any) -> None:

        super().__init__(f"{'.'.join(path)} must be {expected}, not {describe(value)}")
        self.path = path
        self.expected = expected
        self.value = value


def _field(obj: JSON, path: tuple[str, ...]) -> Any:
    """The value at ``path`` (None where a level is absent or null; Go's zero)."""
    value: Any = obj
    for depth, key in enumerate(path):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise CheckpointDecodeError(path[:depth], "an object", value)
        value = value.get(key)
    return value


def _go_string(obj: JSON, *path: str) -> str:
    value = _field(obj, path)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CheckpointDecodeError(path, "a string", value)
    return value


def _go_int32(obj: JSON, *path: str) -> int:

    value = _field(obj, path)
    if value is None:
        return 0
    number = go_int(value, "int32")
    if number is None:
        raise CheckpointDecodeError(path, "an int32 integer", value)
    return number


def compute_identity_hash(identity: JSON) -> str:
    """ComputeIdentityHash: sha256 of the normalized identity, first 16 hex characters.
    ``identity`` is ``spec.identity`` decoded as Go decodes it (CheckpointDecodeError where a
    field has the wrong type)."""

    wrapped = {"spec": {"identity": identity}}

    def text(key: str) -> str:
        return _go_string(wrapped, "spec", "identity", key)

    tp = _go_int32(wrapped, "spec", "identity", "tensorParallelSize") or 1
    pp = _go_int32(wrapped, "spec", "identity", "pipelineParallelSize") or 1
    parts = ['"model":' + encode_string(text("model"))]
    parts.append('"backendFramework":' + encode_string(text("backendFramework")))
    if text("dynamoVersion"):
        parts.append('"dynamoVersion":' + encode_string(text("dynamoVersion")))
    parts.append(f'"tensorParallelSize":{tp}')
    parts.append(f'"pipelineParallelSize":{pp}')
    if text("dtype"):
        parts.append('"dtype":' + encode_string(text("dtype")))
    max_len = _go_int32(wrapped, "spec", "identity", "maxModelLen")
    if max_len:
        parts.append(f'"maxModelLen":{max_len}')
    extra = _field(wrapped, ("spec", "identity", "extraParameters")) or {}
    if not isinstance(extra, dict):
        raise CheckpointDecodeError(("spec", "identity", "extraParameters"), "an object", extra)
    if extra:
        strings = {k: _go_string(wrapped, "spec", "identity", "extraParameters", k) for k in extra}
        parts.append('"extraParameters":' + marshal_any(strings))
    data = "{" + ",".join(parts) + "}"
    return sha256_hex(data.encode("utf-8"))[:16]


def checkpoint_id_of(ckpt: JSON) -> str:
    """CheckpointID: status.checkpointID, status.identityHash, the ID label, the identity hash
    (CheckpointDecodeError where a field it reads has the wrong type)."""
    found = (
        _go_string(ckpt, "status", "checkpointID")
        or _go_string(ckpt, "status", "identityHash")
        or _go_string(ckpt, "metadata", "labels", CHECKPOINT_ID_LABEL)
    )
    if found:
        return found
    identity = _field(ckpt, ("spec", "identity"))
    if identity is not None and not isinstance(identity, dict):
        raise CheckpointDecodeError(("spec", "identity"), "an object", identity)
    return compute_identity_hash(identity or {})
