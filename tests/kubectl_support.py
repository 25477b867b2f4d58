"""The kubectl reading oracle (`../shared/kubectl-oracle/`) for the differential tests.

`kubectl_objects(paths)` runs `kubectl-apply-objects` (the real kubectl, offline, in a
private network namespace) and returns (exit status, the objects it would send, stderr).
`normalise(sent, read)` removes what `kubectl apply` adds to an object it sends (its
last-applied annotation, the default namespace), so that what is left is what it read.
`unavailable()` says why the oracle cannot run here (None when it can).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from paths import REPO

ORACLE = Path(
    os.environ.get(
        "DYNAMO_KUBECTL_ORACLE", REPO.parent / "shared" / "kubectl-oracle" / "kubectl-apply-objects"
    )
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CLUSTER_SCOPED = frozenset({"Namespace"})


@cache
def unavailable() -> str | None:
    """Why the oracle cannot run here, or None."""
    if not ORACLE.exists():
        return f"the kubectl oracle is not at {ORACLE}"
    for tool in ("kubectl", "unshare", "ip", "python3"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "the kubectl oracle needs root (unshare -n)"
    return None


def kubectl_objects(paths: list[Path]) -> tuple[int, list[dict[str, Any]], str]:
    """(kubectl's exit status, the objects it would send, its stderr)."""
    proc = subprocess.run(
        [str(ORACLE), *map(str, paths)], capture_output=True, text=True, timeout=300, check=False
    )
    objects = loads_sent(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else []
    return proc.returncode, objects, proc.stderr


def _sent_int(text: str) -> int | float:
    # kubectl holds an object's numbers as int64 or float64 and prints an integral float64
    # without a point (9223372036854776000): a literal beyond int64 is a float64.
    number = int(text)
    return number if -(1 << 63) <= number < (1 << 63) else float(number)


def loads_sent(text: str) -> Any:
    """The objects kubectl printed, its numbers read back as the int64 or float64 it held."""
    return json.loads(text, parse_int=_sent_int)


def normalise(sent: dict[str, Any], read: dict[str, Any] | None) -> dict[str, Any]:
    """`sent` without what kubectl apply adds to it: the last-applied annotation (and the
    annotations and metadata that held only it) and the default namespace, where `read`
    (what this tool read) has none."""
    sent = json.loads(json.dumps(sent))
    read_metadata = (read or {}).get("metadata")
    read_metadata = read_metadata if isinstance(read_metadata, dict) else None
    metadata = sent.get("metadata")
    if not isinstance(metadata, dict):
        return sent
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations and (read_metadata is None or "annotations" not in read_metadata):
            del metadata["annotations"]
    if metadata.get("namespace") == "default" and (
        read_metadata is None or "namespace" not in read_metadata
    ):
        del metadata["namespace"]
    if not metadata and read_metadata is None and "metadata" not in (read or {}):
        del sent["metadata"]
    return sent


def without_nulls(value: Any) -> Any:
    """`value` without mapping entries whose value is null, at any depth."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def compare(sent: list[dict[str, Any]], read: list[dict[str, Any]]) -> None:
    """Assert that `read` (this tool's objects, in order) are the objects kubectl sends.

    kubectl's printed object leaves out mapping entries whose value is null (its
    last-applied annotation, the object as it read it, keeps them): such entries are
    compared as absent on both sides."""
    assert len(read) == len(sent), (len(read), len(sent), read, sent)
    for index, (ours, theirs) in enumerate(zip(read, sent, strict=True)):
        assert without_nulls(ours) == without_nulls(normalise(theirs, ours)), (
            index,
            ours,
            theirs,
        )
