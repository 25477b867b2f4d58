"""DGD -> DynamoComponentDeployments (domain.md section 5), bindings per section 4.

One DCD per component, in component order, with the DGD's apiVersion. A checkpointed
component's DCD carries the binding twice (metadata.annotations and the pod template
annotations) plus the restore-candidate annotations on the pod template; no other DCD
carries any of them.
"""

from __future__ import annotations

import copy
from typing import Any

from renderer.keys import (
    BINDING_KEY,
    COMPONENT_LABEL,
    DGD_NAME_LABEL,
    DYNAMO_NAMESPACE_LABEL,
    WORKER_HASH_LABEL,
)
from renderer.model import Component, Graph
from renderer.model.pod import merge_dgd_env_v1beta1, merge_env
from renderer.render.match import Match, restore_annotations
from renderer.render.names import dcd_name

DCD_KIND = "DynamoComponentDeployment"


def sorted_map(values: dict[str, str]) -> dict[str, str]:
    """Label and annotation maps in key order, as Go writes a map."""
    return {key: values[key] for key in sorted(values)}


def _dict_at(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """parent[key] as a dict, created when absent (a non-dict value is replaced)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def _str_map(value: Any) -> dict[str, str]:
    return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def _stamp_pod_metadata(
    metadata_parent: dict[str, Any], key: str, labels: dict[str, str], annotations: dict[str, str]
) -> None:
    """Merge into the pod metadata block at parent[key], creating it only when needed."""
    existing = metadata_parent.get(key)
    if not labels and not annotations and not isinstance(existing, dict):
        return
    if not isinstance(existing, dict) and key == "metadata":
        # A new PodTemplateSpec metadata block goes first, where Kubernetes writes it.
        rest = dict(metadata_parent)
        metadata_parent.clear()
        metadata_parent["metadata"] = {}
        metadata_parent.update(rest)
    metadata = _dict_at(metadata_parent, key)
    merged_labels = {**_str_map(metadata.get("labels")), **labels}
    merged_annotations = {**_str_map(metadata.get("annotations")), **annotations}
    # Rebuilt in place so labels come before annotations, as Kubernetes writes them.
    others = {k: v for k, v in metadata.items() if k not in ("labels", "annotations")}
    metadata.clear()
    metadata.update(others)
    if merged_labels:
        metadata["labels"] = sorted_map(merged_labels)
    if merged_annotations:
        metadata["annotations"] = sorted_map(merged_annotations)


def _system_labels(graph: Graph, component: Component, worker_hash: str) -> dict[str, str]:
    labels = {
        COMPONENT_LABEL: component.name,
        DYNAMO_NAMESPACE_LABEL: graph.dynamo_namespace(component),
        DGD_NAME_LABEL: graph.name,
    }
    if component.is_worker and worker_hash:
        labels[WORKER_HASH_LABEL] = worker_hash
    return labels


def render_dcd(
    graph: Graph, component: Component, match: Match | None, backend: str, worker_hash: str
) -> dict[str, Any]:
    """The DCD the operator creates for one component (`worker_hash` "" when unknown)."""
    from renderer.model.pod import pod_annotations, pod_labels

    name = dcd_name(graph.name, component.name, worker_hash if component.is_worker else "")
    labels = {**pod_labels(graph, component), **_system_labels(graph, component, worker_hash)}

    # Pod template additions: the worker hash label, DGD-level labels/annotations under
    # the component's own, then the binding and restore-candidate annotations on top.
    pod_label_adds: dict[str, str] = {}
    if component.is_worker and worker_hash:
        pod_label_adds[WORKER_HASH_LABEL] = worker_hash
    pod_annotation_adds: dict[str, str] = {}
    if match is not None:
        pod_annotation_adds = {**restore_annotations(match), BINDING_KEY: match.binding}

    # DGD-level values only where the component sets none of its own (v1alpha1: in its
    # `labels`/`annotations` or in extraPodMetadata), so the component wins.
    own_labels = pod_labels(graph, component)
    own_annotations = pod_annotations(graph, component)
    label_adds = {
        **{k: v for k, v in graph.labels.items() if k not in own_labels},
        **pod_label_adds,
    }
    annotation_adds = {
        **{k: v for k, v in graph.annotations.items() if k not in own_annotations},
        **pod_annotation_adds,
    }

    spec: dict[str, Any] = {"backendFramework": backend} if backend else {}
    spec.update(copy.deepcopy(component.spec))
    pod_adds = bool(label_adds or annotation_adds)
    holder: dict[str, Any] | None
    if graph.is_v1alpha1:
        _v1alpha1_extras(graph, component, spec)
        holder, key = spec, "extraPodMetadata"
    else:
        if pod_adds or graph.env:
            _dict_at(spec, "podTemplate")
        template = spec.get("podTemplate")
        holder, key = (template if isinstance(template, dict) else None), "metadata"
        if graph.env and holder is not None:
            merge_dgd_env_v1beta1(_dict_at(holder, "spec"), graph)
    if holder is not None:
        _stamp_pod_metadata(holder, key, label_adds, annotation_adds)
    if match is not None and match.gated:
        spec["replicas"] = 0

    metadata: dict[str, Any] = {
        "name": name,
        "namespace": graph.namespace,
        "labels": sorted_map(labels),
    }
    if match is not None:
        metadata["annotations"] = {BINDING_KEY: match.binding}
    return {"apiVersion": graph.api_version, "kind": DCD_KIND, "metadata": metadata, "spec": spec}


def _v1alpha1_extras(graph: Graph, component: Component, spec: dict[str, Any]) -> None:
    """v1alpha1 DCDs also carry serviceName, dynamoNamespace and spec.labels, and envs."""
    spec["serviceName"] = component.name
    spec["dynamoNamespace"] = graph.dynamo_namespace(component)
    spec["labels"] = sorted_map(
        {
            **_str_map(spec.get("labels")),
            COMPONENT_LABEL: component.name,
            DYNAMO_NAMESPACE_LABEL: graph.dynamo_namespace(component),
            DGD_NAME_LABEL: graph.name,
        }
    )
    if graph.env:
        envs = spec.get("envs")
        spec["envs"] = merge_env(graph.env, envs if isinstance(envs, list) else [])


def render_dcds(
    graph: Graph, matches: dict[str, Match], backend: str, worker_hashes: dict[str, str]
) -> list[dict[str, Any]]:
    """Every component's DCD, in component order."""
    return [
        render_dcd(graph, c, matches.get(c.name), backend, worker_hashes.get(c.name, ""))
        for c in graph.components
    ]
