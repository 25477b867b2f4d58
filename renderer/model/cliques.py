"""How a component expands into Grove cliques, and which of them are engine cliques.

Shared by the Grove renderer and by anything that checks committed PodCliqueSets: the
clique names, roles and replica counts follow the operator's role expansion.

- single node: one clique `<c>` (replicas = component replicas, default 1);
- multinode (nodeCount N > 1): `<c>-ldr` (1) and `<c>-wkr` (N-1) in a scaling group `<c>`;
- inter-pod GMS, single node: `<c>-gms-0` then `<c>`, in a scaling group `<c>`;
- inter-pod GMS, multinode: per rank r, `<c>-gms-<r>` then the engine clique of that
  rank (`<c>-ldr` for rank 0, `<c>-wkr-<r>` after), each 1 replica, in a scaling group.

Engine cliques are the non-GMS cliques (`<c>` is the lower-cased component name).
"""

from __future__ import annotations

from dataclasses import dataclass

from renderer.model.dgd import Component

MAIN, LEADER, WORKER, GMS = "main", "leader", "worker", "gms"


@dataclass(frozen=True)
class Role:
    """One clique a component expands into."""

    name: str  # the clique name (lower-cased)
    kind: str  # main | leader | worker | gms
    replicas: int
    rank: int = 0

    @property
    def engine(self) -> bool:
        return self.kind != GMS


def uses_scaling_group(component: Component) -> bool:
    return component.multinode or component.inter_pod_gms


def expand_roles(component: Component) -> list[Role]:
    """The cliques of one component, in the operator's order."""
    c = component.lower_name
    nodes = component.node_count
    if component.multinode and component.inter_pod_gms:
        roles: list[Role] = []
        for rank in range(nodes):
            roles.append(Role(f"{c}-gms-{rank}", GMS, 1, rank))
            engine = (
                Role(f"{c}-ldr", LEADER, 1, 0)
                if rank == 0
                else Role(f"{c}-wkr-{rank}", WORKER, 1, rank)
            )
            roles.append(engine)
        return roles
    if component.multinode:
        return [Role(f"{c}-ldr", LEADER, 1), Role(f"{c}-wkr", WORKER, nodes - 1)]
    if component.inter_pod_gms:
        return [Role(f"{c}-gms-0", GMS, 1), Role(c, MAIN, 1)]
    replicas = component.replicas if component.replicas is not None else 1
    return [Role(c, MAIN, replicas)]


def engine_cliques(component: Component) -> list[str]:
    """The clique names that run the engine (and carry a checkpointed component's binding)."""
    return [role.name for role in expand_roles(component) if role.engine]
