"""Grove role expansion, PodCliqueSet naming and clique startup order (graph.go, pinned).

A component becomes one or more Grove cliques ("roles"): one standalone clique for a single
node component, a leader and a worker clique for a multinode one, and a weight-server
clique per rank beside the engine cliques for inter-pod GPU Memory Service. The
PodCliqueSet name is the DGD name unless that would push a pod name over Grove's 45
character budget. Startup dependencies (``startsAfter``) exist only for TRT-LLM multinode
(the leader waits for its workers) and inter-pod GMS (each engine waits for its rank's
weight server).

Component helpers here are the v1beta1 API methods the Grove path calls
(``UsesPCSG``, ``IsInterPodGMSEnabled``, ``GetTotalEnginePods``, ...), on plain dicts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from renderer.goruntime.strings import to_lower
from renderer.operator import consts
from renderer.operator.errors import NotReproducedError
from renderer.operator.v1beta1_helpers import (
    get_number_of_nodes,
    is_grove_scaling_group_forced,
    is_inter_pod_gms_enabled,
    uses_pcsg,
)

JSON = dict[str, Any]

__all__ = [
    "ROLE_GMS",
    "ROLE_LEADER",
    "ROLE_MAIN",
    "ROLE_WORKER",
    "ServiceRole",
    "apply_clique_startup_dependencies",
    "expand_roles_for_component",
    "get_clique_startup_dependencies",
    "get_num_shadows",
    "get_number_of_nodes",
    "get_total_engine_pods",
    "is_grove_scaling_group_forced",
    "is_inter_pod_failover_enabled",
    "is_inter_pod_gms_enabled",
    "longest_pod_clique_name_for_dgd_component",
    "pcs_name_for_dgd",
    "uses_pcsg",
]

ROLE_LEADER = "leader"
ROLE_WORKER = "worker"
ROLE_MAIN = "main"
ROLE_GMS = "gms"
#: GMSModeInterPod (api/v1beta1): the GPU Memory Service / failover mode value.
GMS_MODE_INTER_POD = "InterPod"
BACKEND_TRTLLM = "trtllm"
BACKEND_VLLM = "vllm"
BACKEND_SGLANG = "sglang"
CLIQUE_STARTUP_EXPLICIT = "CliqueStartupTypeExplicit"


class ServiceRole(NamedTuple):
    """ServiceRole: one clique a component renders (name before lowercasing)."""

    name: str
    role: str
    replicas: int
    #: Node rank: 0 = leader/main, 1..N-1 = workers.
    rank: int = 0


def _experimental_or_empty(component: JSON) -> JSON:
    value = component.get("experimental")
    return value if isinstance(value, dict) else {}


def _sub(spec: JSON, key: str) -> JSON | None:
    value = spec.get(key)
    return value if isinstance(value, dict) else None


def is_inter_pod_failover_enabled(component: JSON) -> bool:
    """IsInterPodFailoverEnabled: ``experimental.failover.mode == InterPod``."""
    failover = _sub(_experimental_or_empty(component), "failover")
    return failover is not None and failover.get("mode") == GMS_MODE_INTER_POD


def get_num_shadows(component: JSON) -> int:
    """GetNumShadows: failover shadows, at least 1 when inter-pod failover is on."""
    if not is_inter_pod_failover_enabled(component):
        return 0
    failover = _sub(_experimental_or_empty(component), "failover") or {}
    shadows = int(failover.get("numShadows") or 0)
    return 1 if shadows < 1 else shadows


def get_total_engine_pods(component: JSON) -> int:
    """GetTotalEnginePods: the primary engine plus any shadows."""
    return get_num_shadows(component) + 1


def expand_roles_for_component(
    component_name: str,
    component_replicas: int | None,
    number_of_nodes: int,
    component: JSON,
) -> list[ServiceRole]:
    """expandRolesForComponent: the cliques a component renders, in clique order."""
    inter_pod_gms = is_inter_pod_gms_enabled(component)
    multinode = number_of_nodes > 1
    if multinode and inter_pod_gms:
        return expand_multinode_gms_roles(
            component_name, number_of_nodes, get_total_engine_pods(component)
        )
    if multinode:
        return expand_multinode_roles(component_name, number_of_nodes)
    if inter_pod_gms:
        return expand_single_node_gms_roles(component_name, get_total_engine_pods(component))
    if is_grove_scaling_group_forced(component):
        return expand_single_node_scaling_group_roles(component_name)
    return expand_single_node_roles(component_name, component_replicas)


def expand_single_node_roles(
    component_name: str, component_replicas: int | None
) -> list[ServiceRole]:
    """expandSingleNodeRoles: one main clique with the component's replicas (default 1)."""
    replicas = 1 if component_replicas is None else component_replicas
    return [ServiceRole(component_name, ROLE_MAIN, replicas)]


def expand_single_node_scaling_group_roles(component_name: str) -> list[ServiceRole]:
    """expandSingleNodeScalingGroupRoles: one main clique of 1; the PCSG scales."""
    return [ServiceRole(component_name, ROLE_MAIN, 1)]


def expand_multinode_roles(component_name: str, number_of_nodes: int) -> list[ServiceRole]:
    """expandMultinodeRoles: ``<C>-ldr`` (1) and ``<C>-wkr`` (N-1)."""
    return [
        ServiceRole(f"{component_name}-{consts.GROVE_ROLE_SUFFIX_LEADER}", ROLE_LEADER, 1),
        ServiceRole(
            f"{component_name}-{consts.GROVE_ROLE_SUFFIX_WORKER}", ROLE_WORKER, number_of_nodes - 1
        ),
    ]


def expand_single_node_gms_roles(component_name: str, total_engine_pods: int) -> list[ServiceRole]:
    """expandSingleNodeGMSRoles: ``<C>-gms-0`` weight server, then the engine clique."""
    return [
        ServiceRole(f"{component_name}-{consts.GROVE_ROLE_SUFFIX_GMS}-0", ROLE_GMS, 1, 0),
        ServiceRole(component_name, ROLE_MAIN, total_engine_pods, 0),
    ]


def expand_multinode_gms_roles(
    component_name: str, number_of_nodes: int, total_engine_pods: int
) -> list[ServiceRole]:
    """expandMultinodeGMSRoles: per rank a weight server, then the leader/worker engine."""
    roles: list[ServiceRole] = []
    for rank in range(number_of_nodes):
        roles.append(
            ServiceRole(
                f"{component_name}-{consts.GROVE_ROLE_SUFFIX_GMS}-{rank}", ROLE_GMS, 1, rank
            )
        )
        if rank == 0:
            name, role = f"{component_name}-{consts.GROVE_ROLE_SUFFIX_LEADER}", ROLE_LEADER
        else:
            name = f"{component_name}-{consts.GROVE_ROLE_SUFFIX_WORKER}-{rank}"
            role = ROLE_WORKER
        roles.append(ServiceRole(name, role, total_engine_pods, rank))
    return roles


def _replicas(component: JSON) -> int | None:
    value = component.get("replicas")
    return None if value is None else int(value)


def longest_pod_clique_name_for_dgd_component(component_name: str, component: JSON | None) -> str:
    """LongestPodCliqueNameForDGDComponent: the longest lowercased clique name."""
    lower = to_lower(component_name)
    if component is None or not uses_pcsg(component):
        return lower
    longest = lower
    roles = expand_roles_for_component(
        component_name, _replicas(component), get_number_of_nodes(component), component
    )
    for role in roles:
        role_name = to_lower(role.name)
        if len(role_name) > len(longest):
            longest = role_name
    return longest


def _fnv1a_32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def pcs_name_for_dgd(dgd_name: str, components: list[JSON]) -> str:
    """PCSNameForDGD: the DGD name, or a truncation plus a 4-hex FNV-1a suffix.

    Lengths are Go byte lengths (``len(string)``) and the truncation cuts bytes, as Go's
    slice does; a cut inside a multi-byte character is refused (names are DNS labels, so
    the API server would not have admitted one).
    """
    max_budget = 0
    for component in components:
        name = str(component.get("name") or "")
        lower = to_lower(name)
        if uses_pcsg(component):
            budget = _blen(lower) + _blen(
                longest_pod_clique_name_for_dgd_component(name, component)
            )
        else:
            budget = _blen(lower)
        max_budget = max(max_budget, budget)
    pcs_budget = max(consts.MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH - max_budget, 8)
    raw = dgd_name.encode("utf-8")
    if len(raw) <= pcs_budget:
        return dgd_name
    suffix = f"{_fnv1a_32(raw) & 0xFFFF:04x}"
    try:
        head = raw[: pcs_budget - 5].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotReproducedError(
            f"truncating {dgd_name!r} inside a character (the operator cuts its bytes)",
            "metadata.name",
        ) from exc
    return f"{head}-{suffix}"


def _blen(text: str) -> int:
    return len(text.encode("utf-8"))


def apply_clique_startup_dependencies(
    gang_set: JSON,
    roles: list[ServiceRole],
    backend_framework: str,
    number_of_nodes: int,
    is_inter_pod_gms: bool,
) -> None:
    """applyCliqueStartupDependencies: set ``startsAfter`` and, if any, Explicit startup.

    Component names are ASCII (the CRD's name pattern), so ``str.lower`` is Go's ToLower.

    Looks cliques up by name among ``gang_set.spec.template.cliques`` (all cliques so far,
    as the operator does) and edits them in place.
    """
    enabled_multinode = backend_framework == BACKEND_TRTLLM and number_of_nodes > 1
    if not enabled_multinode and not is_inter_pod_gms:
        return
    leader = ""
    workers: list[str] = []
    gms_by_rank: dict[int, str] = {}
    for role in roles:
        clique_name = to_lower(role.name)
        if role.role == ROLE_LEADER:
            leader = clique_name
        elif role.role == ROLE_WORKER:
            workers.append(clique_name)
        elif role.role == ROLE_GMS:
            gms_by_rank[role.rank] = clique_name
    has_dependencies = False
    template = gang_set["spec"]["template"]
    for clique in template.get("cliques") or []:
        found = next((r for r in roles if to_lower(r.name) == clique.get("name")), None)
        if found is None:
            continue
        starts_after: list[str] = []
        if is_inter_pod_gms and found.role != ROLE_GMS and found.rank in gms_by_rank:
            starts_after.append(gms_by_rank[found.rank])
        if enabled_multinode:
            starts_after += get_clique_startup_dependencies(
                found.role, backend_framework, leader, workers
            )
        if starts_after:
            clique["spec"]["startsAfter"] = starts_after
            has_dependencies = True
    if has_dependencies:
        template["cliqueStartupType"] = CLIQUE_STARTUP_EXPLICIT


def get_clique_startup_dependencies(
    role: str, backend_framework: str, leader_clique_name: str, worker_clique_names: list[str]
) -> list[str]:
    """getCliqueStartupDependencies: vLLM/SGLang workers after the leader; TRT-LLM the reverse."""
    if backend_framework in (BACKEND_VLLM, BACKEND_SGLANG):
        if role == ROLE_WORKER and leader_clique_name:
            return [leader_clique_name]
    elif backend_framework == BACKEND_TRTLLM and role == ROLE_LEADER and worker_clique_names:
        return list(worker_clique_names)
    return []
