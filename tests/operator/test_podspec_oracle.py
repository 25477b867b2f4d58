"""Pod specs from generate_pod_spec_for_component against the pinned operator's output.

For every rendered oracle case (tests/operator/goldens/oracle/ and the pod-spec edge cases
in tests/operator/goldens/podspec/), each component of the admitted DGD is prepared the way
the Grove path prepares it before calling generatePodSpecForComponent (the worker-hash label
of the Grove render prelude, propagated DGD annotations, the Dynamo-namespace label, the
discovery-backend annotation), rendered for each of its roles, marshalled as Go writes a
corev1.PodSpec, and compared with the podSpec of the matching clique in expected-pcs.yaml:
equal as parsed values, both ways.

Left out, because the Grove layer reshapes their pod specs after this function: inter-pod GMS
components (augmentEngineForGMS, gmsWeightServerPodSpec) and components whose checkpoint
restore is injected at render time (``restoreInjectedAtRender`` in the oracle's report).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from renderer.goruntime.encoding_json import encode
from renderer.goruntime.typetable import core_type
from renderer.operator.backend import get_backend_framework_from_component
from renderer.operator.config import OperatorConfig
from renderer.operator.graph_env import is_worker_component, propagate_dgd_annotations
from renderer.operator.graph_podspec import generate_pod_spec_for_component
from renderer.operator.v1beta1_helpers import (
    compute_dynamo_namespace,
    ensure_pod_template,
    get_number_of_nodes,
    is_inter_pod_gms_enabled,
)
from renderer.source.reader import iter_values

GOLDENS = Path(__file__).parent / "goldens"
CORPORA = (GOLDENS / "oracle", GOLDENS / "podspec")


def _load(path: Path) -> Any:
    """The first document as sigs.k8s.io/yaml reads it (YAML 1.1 scalars: ``1053e749`` is
    a string, as Go wrote it, where a YAML 1.2 loader would read a float); a fresh copy."""
    return copy.deepcopy(_parsed(path))


@functools.cache
def _parsed(path: Path) -> Any:
    return next(iter_values(path.read_bytes(), str(path)))


def _cases() -> list[Any]:
    params = []
    for corpus in CORPORA:
        for case in sorted(corpus.iterdir()):
            if not (case / "expected-pcs.yaml").exists():
                continue
            dgd = _load(case / "admitted-dgd.yaml")
            for component in dgd["spec"]["components"]:
                if is_inter_pod_gms_enabled(component) or _restore_injected(case, component):
                    continue
                base = component["name"].lower()
                if get_number_of_nodes(component) == 1:
                    roles = [("main", base)]
                else:
                    roles = [("leader", f"{base}-ldr"), ("worker", f"{base}-wkr")]
                for role, clique in roles:
                    params.append(
                        pytest.param(
                            case, component["name"], role, clique, id=f"{case.name}-{clique}"
                        )
                    )
    return params


def _restore_injected(case: Path, component: dict[str, Any]) -> bool:
    report = case / "checkpoint-resolution.yaml"
    if not report.exists():
        return False
    entry = (_load(report).get("components") or {}).get(component["name"]) or {}
    return bool(entry.get("restoreInjectedAtRender"))


def _checkpoint_info(case: Path, component_name: str) -> dict[str, Any] | None:
    """CheckpointInfo (Go field names) from the oracle's checkpoint resolution report."""
    report = case / "checkpoint-resolution.yaml"
    if not report.exists():
        return None
    entry = (_load(report).get("components") or {}).get(component_name)
    if entry is None:
        return None
    return {
        "Enabled": True,
        "Ready": bool(entry.get("ready")),
        "CheckpointName": entry.get("checkpointName", ""),
        "StartupPolicy": entry.get("startupPolicy", ""),
    }


def _grove_prepared(dgd: dict[str, Any], component: dict[str, Any], worker_hash: str) -> Any:
    """The component as GenerateGrovePodCliqueSet hands it on (after the render prelude)."""
    component = copy.deepcopy(component)
    annotations = dgd["metadata"].get("annotations") or {}
    if is_worker_component(component.get("type", "")):
        labels = ensure_pod_template(component)["metadata"]["labels"]
        labels["nvidia.com/dynamo-worker-hash"] = worker_hash
    propagate_dgd_annotations(annotations, component)
    metadata = ensure_pod_template(component)["metadata"]
    metadata["labels"]["nvidia.com/dynamo-namespace"] = compute_dynamo_namespace(
        bool(component.get("globalDynamoNamespace", False)),
        dgd["metadata"]["namespace"],
        dgd["metadata"]["name"],
    )
    backend = annotations.get("nvidia.com/dynamo-discovery-backend", "kubernetes")
    if backend:
        metadata["annotations"]["nvidia.com/dynamo-discovery-backend"] = backend
    return component


@pytest.mark.parametrize(("case", "component_name", "role", "clique_name"), _cases())
def test_pod_spec_equals_oracle(
    case: Path, component_name: str, role: str, clique_name: str
) -> None:
    dgd = _load(case / "admitted-dgd.yaml")
    pcs = _load(case / "expected-pcs.yaml")
    worker_hash = (case / "worker-hash.txt").read_text(encoding="utf-8").strip()
    checkpoint = "--checkpoint" in (
        (case / "oracle-args").read_text(encoding="utf-8")
        if (case / "oracle-args").exists()
        else ""
    )
    config = OperatorConfig.for_oracle(dgd["metadata"]["namespace"], checkpoint_enabled=checkpoint)
    component = next(c for c in dgd["spec"]["components"] if c["name"] == component_name)
    prepared = _grove_prepared(dgd, component, worker_hash)
    framework = get_backend_framework_from_component(prepared, dgd)
    cliques = {c["name"]: c for c in pcs["spec"]["template"]["cliques"]}
    assert clique_name in cliques, sorted(cliques)

    pod_spec = generate_pod_spec_for_component(
        prepared,
        framework,
        None,
        dgd,
        role,
        get_number_of_nodes(prepared),
        config,
        "grove",
        component_name,
        _checkpoint_info(case, component_name),
        None,
        None,
        None,
    )

    assert encode(pod_spec, core_type("PodSpec")) == cliques[clique_name]["spec"]["podSpec"]


def test_input_component_is_not_modified() -> None:
    case = GOLDENS / "podspec" / "merge-edges"
    dgd = _load(case / "admitted-dgd.yaml")
    before = copy.deepcopy(dgd)
    config = OperatorConfig.for_oracle("dynamo")
    for component in dgd["spec"]["components"]:
        generate_pod_spec_for_component(
            component, "noop", None, dgd, "main", 1, config, "grove", component["name"],
            None, None, None, None,
        )  # fmt: skip
    assert dgd == before
