"""The v2 worker hash (internal/dynamo/hash.go ComputeDGDWorkersSpecHash).

Three kinds of reference:

- the oracle's ``worker-hash.txt`` for every rendered case of both corpora;
- the relations internal/dynamo/hash_test.go asserts (these two DGDs hash equal / differ),
  transcribed as v1beta1 DGD pairs (the Go tests build v1alpha1 DGDs and convert them; the
  pairs below are the converted forms);
- when the oracle binary is present, the absolute hash of every DGD in those pairs, which
  the oracle prints after admitting it.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_dcd import all_cases

from renderer.operator.hash import (
    compute_dgd_workers_spec_hash,
    resolve_runtime_version,
    resolved_runtime_version_for_hash,
)

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(
    os.environ.get("DYNAMO_OPERATOR_ORACLE")
    or ROOT.parent / "shared" / "operator-oracle" / "oracle"
)

JSON = dict[str, Any]


@pytest.mark.parametrize("case", [c for c in all_cases() if not c.refused], ids=lambda c: c.name)
def test_hash_equals_the_oracle(case: Any) -> None:
    assert compute_dgd_workers_spec_hash(case.admitted_dgd()) == case.worker_hash()


def dgd(*components: JSON, namespace: str = "default", **meta: Any) -> JSON:
    """baseDGD: name test, namespace default, the given v1beta1 components."""
    metadata: JSON = {"name": "test", "namespace": namespace, **meta}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": metadata,
        "spec": {"components": list(components)},
    }


def comp(name: str, ctype: str, **fields: Any) -> JSON:
    return {"name": name, "type": ctype, **fields}


def main(**fields: Any) -> JSON:
    """A pod template whose only container is main with the given fields."""
    return {"spec": {"containers": [{"name": "main", **fields}]}}


WORKER = comp("worker", "worker")
ALPHA_LABELS = json.dumps(
    {"version": 1, "spec": {"services": {"worker": {"labels": {"foo": "bar"}}}}}
)
ALPHA_ANNOTATIONS = json.dumps(
    {"version": 1, "spec": {"services": {"worker": {"annotations": {"foo": "bar"}}}}}
)
RAY = {"nvidia.com/vllm-distributed-executor-backend": "ray"}
MP = {"nvidia.com/vllm-distributed-executor-backend": "mp"}


def runtime(image: str, override: str = "") -> JSON:
    """betaDGDWithRuntimeVersion."""
    worker = comp("worker", "worker", podTemplate=main(image=image))
    if override:
        worker["runtimeVersionOverride"] = override
    return dgd(worker)


# (name, left, right, equal): each from a TestComputeBetaDGDWorkersSpecHash_* assertion.
RELATIONS: list[tuple[str, JSON, JSON, bool]] = [
    (
        "Deterministic",
        dgd(comp("prefill", "prefill", replicas=2), comp("decode", "decode", replicas=3)),
        dgd(comp("prefill", "prefill", replicas=2), comp("decode", "decode", replicas=3)),
        True,
    ),
    ("IgnoresNonWorkers", dgd(WORKER, comp("frontend", "frontend")), dgd(WORKER), True),
    (
        "IgnoresGeneratedDCDObjectIdentity",
        dgd(comp("worker", "worker", globalDynamoNamespace=True)),
        dgd(comp("worker", "worker", globalDynamoNamespace=True), namespace="other"),
        True,
    ),
    (
        "ChangesOnPodAffectingFields/resources",
        dgd(WORKER),
        dgd(comp("worker", "worker", podTemplate=main(resources={"requests": {"cpu": "2"}}))),
        False,
    ),
    (
        "ChangesOnPodAffectingFields/env",
        dgd(WORKER),
        dgd(comp("worker", "worker", podTemplate=main(env=[{"name": "FOO", "value": "bar"}]))),
        False,
    ),
    (
        "ChangesOnPodAffectingFields/sharedMemory",
        dgd(WORKER),
        dgd(comp("worker", "worker", sharedMemorySize="1Gi")),
        False,
    ),
    (
        "ChangesOnPodAffectingFields/globalDynamoNamespace",
        dgd(WORKER),
        dgd(comp("worker", "worker", globalDynamoNamespace=True)),
        False,
    ),
    (
        "ChangesOnPodAffectingFields/extraPodMetadata",
        dgd(WORKER),
        dgd(
            comp("worker", "worker", podTemplate={"metadata": {"labels": {"rollout": "required"}}})
        ),
        False,
    ),
    (
        "ChangesOnPodAffectingFields/podTemplateMetadata",
        dgd(WORKER),
        dgd(
            comp(
                "worker",
                "worker",
                podTemplate={"metadata": {"annotations": {"rollout": "required"}}},
            )
        ),
        False,
    ),
    (
        "TracksPropagatedDGDObjectAnnotations",
        dgd(WORKER, annotations=RAY),
        dgd(WORKER, annotations=MP),
        False,
    ),
    (
        "IgnoresOverriddenDGDObjectAnnotations",
        dgd(
            comp(
                "worker",
                "worker",
                podTemplate={
                    "metadata": {
                        "annotations": {
                            **RAY,
                            **{"nvidia.com/vllm-distributed-executor-backend": "component"},
                        }
                    }
                },
            ),
            annotations=RAY,
        ),
        dgd(
            comp(
                "worker",
                "worker",
                podTemplate={
                    "metadata": {
                        "annotations": {
                            **RAY,
                            **{"nvidia.com/vllm-distributed-executor-backend": "component"},
                        }
                    }
                },
            ),
            annotations=MP,
        ),
        True,
    ),
    ("TracksGeneratedDCDSpecAndMetadata", dgd(WORKER), dgd(WORKER, namespace="other"), False),
    (
        "IgnoresNonRolloutFields/replicas",
        dgd(WORKER),
        dgd(comp("worker", "worker", replicas=99)),
        True,
    ),
    (
        "IgnoresNonRolloutFields/scaleToZero",
        dgd(WORKER),
        dgd(comp("worker", "worker", replicas=0, minAvailable=1)),
        True,
    ),
    (
        "IgnoresNonRolloutFields/scalingAdapter",
        dgd(WORKER),
        dgd(comp("worker", "worker", scalingAdapter={})),
        True,
    ),
    (
        "UsesResolvedRuntimeVersion/omits resolved versions before 1.5",
        runtime("registry.example/runtime:custom"),
        runtime("registry.example/runtime:custom", "1.4.9"),
        True,
    ),
    (
        "UsesResolvedRuntimeVersion/canonicalizes equivalent implicit and explicit versions",
        runtime("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13"),
        runtime("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "1.5.0"),
        True,
    ),
    (
        "UsesResolvedRuntimeVersion/changes at the 1.5 boundary",
        runtime("registry.example/runtime:custom", "1.4.9"),
        runtime("registry.example/runtime:custom", "1.5.0"),
        False,
    ),
    (
        "UsesResolvedRuntimeVersion/tracks override changes after 1.5",
        runtime("registry.example/runtime:custom", "1.5.0"),
        runtime("registry.example/runtime:custom", "1.5.1"),
        False,
    ),
    (
        "TracksPreservedAlphaResourceMetadata/labels",
        dgd(WORKER),
        dgd(WORKER, annotations={"nvidia.com/dgd-spec": ALPHA_LABELS}),
        False,
    ),
    (
        "TracksPreservedAlphaResourceMetadata/annotations",
        dgd(WORKER),
        dgd(WORKER, annotations={"nvidia.com/dgd-spec": ALPHA_ANNOTATIONS}),
        False,
    ),
    (
        "EnvOrderMatters",
        dgd(
            comp(
                "worker",
                "worker",
                podTemplate=main(env=[{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]),
            )
        ),
        dgd(
            comp(
                "worker",
                "worker",
                podTemplate=main(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]),
            )
        ),
        False,
    ),
    (
        "AllWorkerTypes",
        dgd(comp("w", "worker"), comp("p", "prefill"), comp("d", "decode")),
        dgd(
            comp("w", "worker"),
            comp("p", "prefill", podTemplate=main(env=[{"name": "X", "value": "1"}])),
            comp("d", "decode"),
        ),
        False,
    ),
]


@pytest.mark.parametrize(
    ("name", "left", "right", "equal"), RELATIONS, ids=[r[0] for r in RELATIONS]
)
def test_hash_test_go_relations(name: str, left: JSON, right: JSON, equal: bool) -> None:
    a = compute_dgd_workers_spec_hash(copy.deepcopy(left))
    b = compute_dgd_workers_spec_hash(copy.deepcopy(right))
    assert len(a) == 8 and all(ch in "0123456789abcdef" for ch in a)
    assert (a == b) is equal, (name, a, b)


def test_no_workers_hash() -> None:
    """TestComputeBetaDGDWorkersSpecHash_NoWorkers: ``{}`` digests to 44136fa3."""
    assert compute_dgd_workers_spec_hash(dgd(comp("frontend", "frontend"))) == "44136fa3"


def test_hash_does_not_mutate_the_dgd() -> None:
    source = dgd(comp("worker", "worker", podTemplate=main(image="img:1.5.0")), annotations=RAY)
    before = copy.deepcopy(source)
    compute_dgd_workers_spec_hash(source)
    assert source == before


# runtimeversion.Resolve: (image, override) -> (major, minor, patch) or None (an error).
RESOLVE = [
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", "", (1, 5, 0)),
    ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "", (1, 5, 0)),
    ("registry:5000/img:V2.0.1+build.7", "", (2, 0, 1)),
    ("img:1.5.0@sha256:abc", "", (1, 5, 0)),
    ("registry:5000/img", "", None),  # the colon is part of the host, no tag
    ("img:latest", "", None),
    ("img:01.5.0", "", None),
    ("img:custom", "1.6.2", (1, 6, 2)),
    ("img:custom", "v1.6.2", None),  # an override must be strict semver
    ("img:custom", "1.6", None),
]


@pytest.mark.parametrize(("image", "override", "want"), RESOLVE)
def test_resolve_runtime_version(
    image: str, override: str, want: tuple[int, int, int] | None
) -> None:
    assert resolve_runtime_version(image, override) == want


def test_runtime_version_entry_starts_at_1_5() -> None:
    spec = {"podTemplate": main(image="img:1.4.9")}
    assert resolved_runtime_version_for_hash(spec) == ""
    spec = {"podTemplate": main(image="img:1.5.0-rc1")}
    assert resolved_runtime_version_for_hash(spec) == "1.5.0"


def _admissible(source: JSON) -> JSON:
    """The DGD with a main container where it has none (validation requires containers)."""
    out = copy.deepcopy(source)
    for component in out["spec"]["components"]:
        template = component.setdefault("podTemplate", {})
        spec = template.setdefault("spec", {})
        if not spec.get("containers"):
            spec["containers"] = [{"name": "main", "image": "img:1.0.0"}]
        for container in spec["containers"]:
            container.setdefault("image", "img:1.0.0")
    return out


def _oracle_hash(tmp: Path, index: int, source: JSON) -> tuple[str, JSON] | None:
    """The oracle's worker hash and the admitted DGD it hashed (None: it refused the DGD)."""
    from ruamel.yaml import YAML

    path = tmp / f"dgd-{index}.yaml"
    writer = YAML(typ="safe", pure=True)
    writer.default_flow_style = False
    with path.open("w", encoding="utf-8") as handle:
        writer.dump(source, handle)
    proc = subprocess.run(
        [str(ORACLE), "render", str(path), "--emit-rendered-dgd"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if proc.returncode == 3:
        return None
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("# worker-hash: ")
    admitted = YAML(typ="safe", pure=True).load(
        "\n".join(
            line
            for line in proc.stderr.splitlines()
            if not line.startswith(("warning:", "admission warning:"))
        )
    )
    return first.removeprefix("# worker-hash: ").strip(), admitted


@pytest.mark.skipif(not ORACLE.exists(), reason="operator oracle not available")
def test_relation_dgds_hash_as_the_oracle(tmp_path: Path) -> None:
    """Each DGD of the relations, admitted by the oracle, hashes to the oracle's value."""
    seen = 0
    for i, (_name, left, right, _equal) in enumerate(RELATIONS):
        for j, source in enumerate((left, right)):
            result = _oracle_hash(tmp_path, 2 * i + j, _admissible(source))
            if result is None:  # e.g. an untagged image without runtimeVersionOverride
                continue
            want, admitted = result
            assert compute_dgd_workers_spec_hash(admitted) == want, _name
            seen += 1
    assert seen >= 2 * len(RELATIONS) - 4
