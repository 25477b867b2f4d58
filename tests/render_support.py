"""Shared inputs for the render tests: DGD texts, vector snapshots, expected bindings.

Expected bindings come only from the Go-computed reference vectors
(tests/vectors/expected.jsonl), never from the tool's own output.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from paths import REPO, VECTORS

from renderer.source import SourceObject, load_bytes, load_paths

EXAMPLES = REPO / "examples"

# All reference vectors 02..55 are checkpoint-9f1e2d3c4b5a6978 of llama-disagg/VllmDecodeWorker
# in dynamo-prod; 01 is checkpoint-a1b2c3d4 with no DGD/component labels.
BASELINE = VECTORS / "02-worker-baseline.input.yaml"  # Ready
BASELINE_TWIN = VECTORS / "03-same-as-02-retain-no-owner.input.yaml"  # same name/labels
FAILED_PHASE = VECTORS / "04-same-as-02-metadata-status-identity.input.yaml"  # phase Failed
MINIMAL = VECTORS / "01-minimal.input.yaml"  # checkpoint-a1b2c3d4, no phase
MISSING_UID = VECTORS / "47-error-missing-uid.input.yaml"
NOT_AUTOMATIC = VECTORS / "51-error-missing-auto-marker.input.yaml"
BASELINE_NAME = "checkpoint-9f1e2d3c4b5a6978"
MINIMAL_NAME = "checkpoint-a1b2c3d4"
WORKER_HASH = "5f8d2c1a9b"  # the baseline's nvidia.com/dynamo-worker-hash label


@cache
def expected_binding(case: str) -> str:
    """The Go-computed binding of a reference vector case (e.g. "02-worker-baseline")."""
    for line in (VECTORS / "expected.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["case"] == case:
            binding = row["binding"]
            assert isinstance(binding, str)
            return binding
    raise KeyError(case)


def load(path: Path) -> list[SourceObject]:
    return load_paths([str(path)])


def dgd(text: str, name: str = "dgd.yaml") -> SourceObject:
    return load_bytes(text.encode(), name)[0]


IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"


def v1beta1_dgd(
    components: str, *, name: str = "llama-disagg", extra_spec: str = "", annotations: str = ""
) -> str:
    """A v1beta1 DGD; `components` is the YAML list under spec.components (4-space items)."""
    meta = f"  annotations:\n{annotations}" if annotations else ""
    return (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        f"  name: {name}\n  namespace: dynamo-prod\n{meta}spec:\n{extra_spec}  components:\n"
        + components
    )


FRONTEND_BETA = f"""\
    - name: Frontend
      type: frontend
      replicas: 1
      podTemplate:
        spec:
          containers:
            - name: main
              image: {IMAGE}
"""


def decode_beta(
    *,
    extra: str = "",
    checkpoint: str = "",
    experimental: str = "",
    name: str = "VllmDecodeWorker",
    component_type: str = "decode",
    replicas: int = 2,
    command: str = "dynamo.vllm",
    ref: str = BASELINE_NAME,
) -> str:
    """A checkpoint-enabled v1beta1 worker.

    `extra`: lines at component level (6 spaces); `checkpoint`: lines under
    experimental.checkpoint (10 spaces); `experimental`: lines under experimental (8 spaces).
    `ref`: its checkpointRef (default: the reference vectors' automatic checkpoint, so the
    expected binding is a Go-computed vector's); "" for the operator's automatic lookup by
    name (`checkpoint-<DGDCheckpointID>`, which the vectors are not named for).
    """
    if ref and "checkpointRef" not in checkpoint:
        checkpoint = f"          checkpointRef: {ref}\n{checkpoint}"
    return f"""\
    - name: {name}
      type: {component_type}
      replicas: {replicas}
{extra}      experimental:
        checkpoint:
          enabled: true
{checkpoint}{experimental}      podTemplate:
        spec:
          containers:
            - name: main
              image: {IMAGE}
              command: [python3, -m, {command}]
"""


V1ALPHA1_TWO_CHECKPOINTED = f"""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: llama-disagg
  namespace: dynamo-prod
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: {IMAGE}
    VllmPrefillWorker:
      componentType: prefill
      checkpoint:
        enabled: true
        checkpointRef: {MINIMAL_NAME}
      extraPodSpec:
        mainContainer:
          image: {IMAGE}
          command: [python3, -m, dynamo.vllm]
    VllmDecodeWorker:
      componentType: decode
      replicas: 2
      checkpoint:
        enabled: true
        checkpointRef: {BASELINE_NAME}
      extraPodSpec:
        mainContainer:
          image: {IMAGE}
          command: [python3, -m, dynamo.vllm]
"""
