"""Helpers shared by the transcribed pod-spec table tests (test_podspec_tables*.py)."""

from __future__ import annotations

import copy
from typing import Any

from renderer.operator.component_common import ComponentContext, DiscoveryContext
from renderer.operator.config import OperatorConfig
from renderer.operator.graph_podspec import generate_base_pod_spec
from renderer.operator.v1beta1_helpers import ensure_pod_template

EMPTY_CONFIG = OperatorConfig(discovery_backend="")
TOPOLOGY_LABEL_KEY = "topology.kubernetes.io/zone"


def env_map(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


def base_pod_spec(
    component: dict[str, Any],
    backend: str = "noop",
    config: OperatorConfig = EMPTY_CONFIG,
    retriever: Any = None,
    service: str = "test-service",
) -> dict[str, Any]:
    return generate_base_pod_spec(
        component, backend, retriever, "test-deployment", "default", "main", 1, config,
        "grove", service, None, None, lambda: 0,
    )  # fmt: skip


def template(spec: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"spec": spec or {}}
    if metadata:
        out["metadata"] = metadata
    return out


def main_container(**fields: Any) -> dict[str, Any]:
    return {"name": "main", **fields}


def context(**fields: Any) -> ComponentContext:
    values: dict[str, Any] = {
        "number_of_nodes": 0,
        "dynamo_namespace": "",
        "component_type": "",
        "parent_graph_deployment_name": "",
        "parent_graph_deployment_namespace": "",
        "discovery": DiscoveryContext("", ""),
    }
    values.update(fields)
    return ComponentContext(**values)


def field_ref(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def beta_component(alpha: dict[str, Any]) -> dict[str, Any]:
    """betaComponent (test_beta_helpers_test.go): ConvertTo plus the alpha metadata."""
    from renderer.operator.admission.conversion_spec import (
        convert_from_dynamo_component_deployment_shared_spec,
    )

    beta: dict[str, Any] = convert_from_dynamo_component_deployment_shared_spec(
        copy.deepcopy(alpha), None, False
    )
    annotations, labels = alpha.get("annotations") or {}, alpha.get("labels") or {}
    if annotations or labels:
        metadata = ensure_pod_template(beta)["metadata"]
        metadata["annotations"].update(annotations)
        metadata["labels"].update(labels)
    return beta


def system_probe(path: str, **timing: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": "system"}, **timing}
