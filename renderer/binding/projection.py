"""The binding projection of one checkpoint, decoded, normalised and encoded as Go would.

Order of work matches the operator: Go decodes the whole object first (a wrong type
anywhere in what is hashed fails before any precondition), then the preconditions are
checked, then the projection is marshalled and hashed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from renderer.binding.checkpoint import Checkpoint
from renderer.binding.gotypes import DecodeContext, type_table
from renderer.binding.normalize import normalize_gms, normalize_job
from renderer.keys import (
    ARTIFACT_VERSION_KEY,
    AUTO_MARKER_KEY,
    COMPONENT_LABEL,
    WORKER_HASH_LABEL,
)
from renderer.operator.consts import API_VERSION_V1ALPHA1
from renderer.source.model import SourceObject

# The Go types the engine knows are those of nvidia.com/v1alpha1; another version may
# have other fields, so it is refused rather than hashed with the wrong table.
SUPPORTED_API_VERSION = API_VERSION_V1ALPHA1


class Projection(NamedTuple):
    canonical: str
    warnings: tuple[str, ...]


def _spec_part(ctx: DecodeContext, key: str) -> Any:
    spec = ctx.obj.data.get("spec")
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ctx.type_error(("spec",), "an object", spec)
    return spec.get(key)


def decode_capture_inputs(ctx: DecodeContext) -> dict[str, Any]:
    """spec.job and spec.gpuMemoryService as Go values, normalised as the operator does."""
    table = type_table()
    captured = table.roots["captureInputs"]
    job_codec = captured.by_name["job"].codec
    gms_codec = captured.by_name["gpuMemoryService"].codec
    raw_job = _spec_part(ctx, "job")
    job: dict[str, Any] = {} if raw_job is None else job_codec.decode(raw_job, ("spec", "job"), ctx)
    inputs: dict[str, Any] = {"job": job}
    raw_gms = _spec_part(ctx, "gpuMemoryService")
    if raw_gms is not None:
        gms = gms_codec.decode(raw_gms, ("spec", "gpuMemoryService"), ctx)
        normalize_gms(gms)
        inputs["gpuMemoryService"] = gms
    normalize_job(job)
    return inputs


def project(cp: Checkpoint, capture_inputs: dict[str, Any]) -> str:
    """The exact JSON text the operator hashes (compact, Go field order, no newline)."""
    projection = {
        "name": cp.name,
        "namespace": cp.namespace,
        "checkpointID": cp.checkpoint_id,
        "automaticMarker": cp.annotations.get(AUTO_MARKER_KEY, ""),
        "artifactVersion": cp.annotations.get(ARTIFACT_VERSION_KEY, ""),
        "componentName": cp.labels.get(COMPONENT_LABEL, ""),
        "workerHash": cp.labels.get(WORKER_HASH_LABEL, ""),
        "captureInputs": capture_inputs,
    }
    root = type_table().roots["bindingProjection"]
    return root.encode(projection)


def decode_metadata(ctx: DecodeContext) -> None:
    """Type-check the checkpoint's own metadata as ObjectMeta (Go decodes it too).

    Its unknown fields are dropped quietly: none of them reaches the digest.
    """
    raw = ctx.obj.data.get("metadata")
    if raw is None:
        return
    meta_codec = type_table().roots["checkpoint"].by_name["metadata"].codec
    meta_codec.decode(raw, ("metadata",), DecodeContext(ctx.obj, strict=False))


def decode_rest(ctx: DecodeContext) -> None:
    """The parts of the object that are never hashed: checked as Go would decode them.

    A wrong type in `spec.identity` or `status` fails the operator's decoding of the whole
    object, so it is an error here too. An unknown key at the top level or in `spec` is
    refused like one in what is hashed (a misspelt `spec` or `gpuMemoryService` would
    silently change what is hashed); unknown keys inside identity and status are dropped
    quietly, like metadata's: they never reach the digest.
    """
    data = ctx.obj.data
    table = type_table()
    for key in data:
        if key not in table.roots["checkpoint"].by_name:
            ctx.unknown_field((key,))
    scratch = DecodeContext(ctx.obj, strict=False)
    spec = data.get("spec")
    if isinstance(spec, dict):  # another type is reported by decode_capture_inputs
        for key in spec:
            if key not in table.roots["checkpointSpec"].by_name:
                ctx.unknown_field(("spec", key))
        identity = spec.get("identity")
        if identity is not None:
            table.roots["checkpointIdentity"].decode(identity, ("spec", "identity"), scratch)
    status = data.get("status")
    if status is not None:
        table.roots["checkpointStatus"].decode(status, ("status",), scratch)


def build_projection(obj: SourceObject, cp: Checkpoint) -> tuple[str, list[str]]:
    """(canonical text, warnings) of a checkpoint already read by checkpoint_from_object."""
    ctx = DecodeContext(obj)
    if obj.api_version != SUPPORTED_API_VERSION:
        raise ctx.error(
            ("apiVersion",),
            f"apiVersion {obj.api_version!r} is not supported; the binding engine knows the"
            f" {SUPPORTED_API_VERSION} DynamoCheckpoint types only",
        )
    decode_metadata(ctx)
    inputs = decode_capture_inputs(ctx)
    decode_rest(ctx)
    return project(cp, inputs), ctx.warnings
