"""DGD -> one Grove PodCliqueSet (domain.md section 6), bindings per section 4.

Cliques come in component order, each component expanded into roles as the operator
expands them (see `renderer.model.cliques`).

Engine cliques are the non-GMS cliques. Of a checkpointed component, each carries the
binding and the restore-candidate annotations, and the PCS carries the map
`nvidia.com/dynamo-checkpoint-bindings` (engine clique name -> binding). GMS cliques and
other components' cliques carry none of these.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    COMPONENT_LABEL,
    COMPONENT_TYPE_LABEL,
    DGD_NAME_LABEL,
    DYNAMO_NAMESPACE_LABEL,
    SELECTOR_LABEL,
    WORKER_HASH_LABEL,
)
from renderer.model import Component, Graph
from renderer.model.cliques import GMS, LEADER, WORKER, Role, expand_roles, uses_scaling_group
from renderer.model.pod import (
    component_backend,
    grove_pod_spec,
    pod_annotations,
    pod_labels,
)
from renderer.render.dcd import sorted_map
from renderer.render.match import Match, restore_annotations
from renderer.render.names import CliqueBudget, UnsafeNameError, pcs_name

PCS_API_VERSION = "grove.io/v1alpha1"
PCS_KIND = "PodCliqueSet"
# The operator's default Grove termination delay (its configuration can change it).
DEFAULT_TERMINATION_DELAY = "15m0s"
ANY_ORDER = "CliqueStartupTypeAnyOrder"
EXPLICIT = "CliqueStartupTypeExplicit"


def clique_budgets(graph: Graph) -> list[CliqueBudget]:
    return [
        CliqueBudget(
            component.name,
            component.lower_name if uses_scaling_group(component) else "",
            tuple(role.name for role in expand_roles(component)),
        )
        for component in graph.components
    ]


def _starts_after(component: Component, role: Role, roles: list[Role], backend: str) -> list[str]:
    """Explicit startup order: engines after their rank's GMS; TRT-LLM leaders after workers.

    `backend` is the component's own backend (`component_backend`): the operator resolves
    it per component, so a non-worker multinode component never gets the TRT-LLM order.
    """
    after: list[str] = []
    if component.inter_pod_gms and role.engine:
        after += [r.name for r in roles if r.kind == GMS and r.rank == role.rank]
    if backend == "trtllm" and component.multinode and role.kind == LEADER:
        after += [r.name for r in roles if r.kind == WORKER]
    return after


def _labels(graph: Graph, component: Component, worker_hash: str) -> dict[str, str]:
    system = {
        DGD_NAME_LABEL: graph.name,
        DYNAMO_NAMESPACE_LABEL: graph.dynamo_namespace(component),
    }
    if component.type:
        system[COMPONENT_TYPE_LABEL] = component.type
    if component.is_worker and worker_hash:
        system[WORKER_HASH_LABEL] = worker_hash
    system = {
        SELECTOR_LABEL: f"{graph.name}-{component.lower_name}",
        COMPONENT_LABEL: component.name,
        **system,
    }
    # DGD labels under the component's own; the operator then re-applies every system
    # label (selector and component included), so a pod label cannot override one.
    return sorted_map({**system, **graph.labels, **pod_labels(graph, component), **system})


def _min_available(component: Component, role: Role) -> int:
    if component.multinode:
        return role.replicas
    if uses_scaling_group(component):
        return 1
    return component.min_available if component.min_available is not None else 1


def _cliques(
    graph: Graph, component: Component, match: Match | None, backend: str, worker_hash: str
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The component's cliques and its entries of the PCS binding map."""
    roles = expand_roles(component)
    labels = _labels(graph, component, worker_hash)
    annotations = {**graph.annotations, **pod_annotations(graph, component)}
    pod_spec = grove_pod_spec(graph, component)
    gated = match is not None and match.gated
    cliques: list[dict[str, Any]] = []
    bindings: dict[str, str] = {}
    for role in roles:
        clique_annotations = dict(annotations)
        if match is not None and role.engine:
            clique_annotations.update(restore_annotations(match))
            clique_annotations[BINDING_KEY] = match.binding
            bindings[role.name] = match.binding
        spec: dict[str, Any] = {
            "roleName": role.name,
            "replicas": 0 if gated and role.engine else role.replicas,
            "minAvailable": _min_available(component, role),
        }
        after = _starts_after(component, role, roles, backend)
        if after:
            spec["startsAfter"] = after
        spec["podSpec"] = copy.deepcopy(pod_spec)
        clique: dict[str, Any] = {"name": role.name, "labels": dict(labels)}
        if clique_annotations:
            clique["annotations"] = sorted_map(clique_annotations)
        clique["spec"] = spec
        cliques.append(clique)
    return cliques, bindings


def _scaling_group(component: Component, match: Match | None) -> dict[str, Any]:
    group: dict[str, Any] = {
        "name": component.lower_name,
        "cliqueNames": [role.name for role in expand_roles(component)],
    }
    # The operator passes the component's replicas pointer through: absent stays absent.
    if match is not None and match.gated:
        group["replicas"] = 0
    elif component.replicas is not None:
        group["replicas"] = component.replicas
    # The operator's scaling group takes the component's minAvailable, else 1.
    group["minAvailable"] = component.min_available if component.min_available is not None else 1
    return group


def render_pcs(
    graph: Graph,
    matches: dict[str, Match],
    worker_hashes: dict[str, str],
    *,
    termination_delay: str = DEFAULT_TERMINATION_DELAY,
) -> dict[str, Any]:
    """The PodCliqueSet the operator creates for the DGD (raises UnsafeNameError on budget).

    `worker_hashes`: the known worker hash of each worker-class component, by name.
    """
    name = pcs_name(graph.name, clique_budgets(graph))
    cliques: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    bindings: dict[str, str] = {}
    owners: dict[str, str] = {}  # clique name -> the component that expands into it
    for component in graph.components:
        match = matches.get(component.name)
        component_cliques, component_bindings = _cliques(
            graph,
            component,
            match,
            component_backend(graph, component),
            worker_hashes.get(component.name, ""),
        )
        for clique in component_cliques:
            other = owners.setdefault(clique["name"], component.name)
            if other != component.name:
                # Grove requires unique clique names; a shared one would also make the
                # binding map ambiguous. Fail closed rather than let Grove reject it.
                raise UnsafeNameError(
                    f"components {other!r} and {component.name!r} both expand into the Grove "
                    f"clique {clique['name']!r}; rename one of them",
                    component.name,
                )
        cliques += component_cliques
        bindings.update(component_bindings)
        if uses_scaling_group(component):
            groups.append(_scaling_group(component, match))
    annotations = dict(graph.annotations)
    if bindings:
        annotations[BINDINGS_MAP_KEY] = json.dumps(bindings, sort_keys=True, separators=(",", ":"))
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": graph.namespace,
        "labels": sorted_map({**graph.labels, DGD_NAME_LABEL: graph.name}),
    }
    if annotations:
        metadata["annotations"] = sorted_map(annotations)
    explicit = any("startsAfter" in clique["spec"] for clique in cliques)
    template: dict[str, Any] = {
        "cliqueStartupType": EXPLICIT if explicit else ANY_ORDER,
        "cliques": cliques,
        "headlessServiceConfig": {"publishNotReadyAddresses": True},
    }
    if groups:
        template["podCliqueScalingGroups"] = groups
    if graph.priority_class_name:
        template["priorityClassName"] = graph.priority_class_name
    template["terminationDelay"] = termination_delay
    return {
        "apiVersion": PCS_API_VERSION,
        "kind": PCS_KIND,
        "metadata": metadata,
        "spec": {"replicas": 1, "template": template},
    }
