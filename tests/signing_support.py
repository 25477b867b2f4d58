"""Shared helpers for the signing tests: vectors, key pairs, and a binding stand-in.

The stand-in is used only while `renderer.binding` is not importable; it projects the
same fields the real engine depends on (name, namespace, the projected labels and
annotations, spec.job and spec.gpuMemoryService), so the tests assert the same things.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer.errors import BindingError
from renderer.source import SourceObject, load_bytes

VECTORS = Path(__file__).parent / "vectors"
BASELINE = VECTORS / "02-worker-baseline.input.yaml"
MINIMAL = VECTORS / "01-minimal.input.yaml"


def have_binding_engine() -> bool:
    try:
        from renderer.binding import bind  # noqa: F401
    except ImportError:
        return False
    return True


def _fail(obj: SourceObject, message: str) -> BindingError:
    mark = obj.mark(("metadata",))
    return BindingError(f"stand-in: {message}", obj.file, mark.line, mark.column)


def standin_bound_fields(obj: SourceObject) -> tuple[str, int, str, str, str]:
    meta: dict[str, Any] = dict(obj.metadata)
    labels = meta.get("labels") or {}
    annotations = meta.get("annotations") or {}
    spec = obj.data.get("spec") or {}
    if not (isinstance(labels, dict) and isinstance(annotations, dict) and isinstance(spec, dict)):
        raise _fail(obj, "labels, annotations and spec must be mappings")
    projection = {
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace", ""),
        "checkpointID": labels.get("nvidia.com/snapshot-checkpoint-id", ""),
        "automaticMarker": annotations.get("nvidia.com/dynamo-auto-checkpoint", ""),
        "artifactVersion": annotations.get("nvidia.com/snapshot-artifact-version", ""),
        "componentName": labels.get("nvidia.com/dynamo-component", ""),
        "workerHash": labels.get("nvidia.com/dynamo-worker-hash", ""),
        "captureInputs": {"job": spec.get("job"), "gpuMemoryService": spec.get("gpuMemoryService")},
    }
    uid, generation = meta.get("uid"), meta.get("generation")
    if not (isinstance(uid, str) and uid):
        raise _fail(obj, "automatic checkpoint UID is missing")
    if not (isinstance(generation, int) and not isinstance(generation, bool) and generation >= 1):
        raise _fail(obj, "automatic checkpoint generation is missing")
    return (
        uid,
        generation,
        meta.get("namespace", ""),
        meta.get("name", ""),
        json.dumps(projection, sort_keys=True, separators=(",", ":")),
    )


def use_binding_or_standin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route signed_message through the stand-in when the real engine is missing."""
    if not have_binding_engine():
        from renderer.trust import message

        monkeypatch.setattr(message, "_bound_fields", standin_bound_fields)


def objects_of(text: str, name: str = "snap.yaml") -> list[SourceObject]:
    return load_bytes(text.encode("utf-8"), name)


def make_keys(tmp_path: Path, stem: str = "release") -> tuple[Path, Path]:
    """A fresh key pair on disk (via the library, not the CLI under test)."""
    from renderer.trust import generate_key_pair

    private_pem, public_pem, _ = generate_key_pair()
    key, pub = tmp_path / f"{stem}.key", tmp_path / f"{stem}.pub"
    key.write_bytes(private_pem)
    pub.write_bytes(public_pem)
    return key, pub
