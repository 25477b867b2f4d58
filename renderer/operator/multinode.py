"""Multinode deployers: grove.go's GroveMultinodeDeployer and lws.go's LWSMultinodeDeployer.

A deployer tells a backend how the pods of one multinode component address each other:
the leader's hostname, every node's hostname (TRT-LLM's mpirun host list), this pod's node
rank and whether a shell must evaluate it, and whether the leader waits for DNS first.
Values use Kubernetes ``$(VAR)`` expansion, which the kubelet substitutes before start-up.

Grove names pods ``<pcsg>-<index>-<clique>-<pod index>`` under the PCS headless service; the
inter-pod GMS layout has one clique per rank, so its ranks are static and the pod index
selects the engine (primary or shadow) within the rank.
"""

from __future__ import annotations

from renderer.goruntime.strings import to_lower
from renderer.operator import consts
from renderer.record import FrozenRecord


class GroveMultinodeDeployer(FrozenRecord):
    """GroveMultinodeDeployer; ``is_inter_pod_gms`` with ``rank`` for one GMS rank clique."""

    is_inter_pod_gms: bool = False
    rank: int = 0

    def get_leader_hostname(self, service_name: str) -> str:
        """GetLeaderHostname: the leader clique's pod (index 0, or this engine's index)."""
        pod_index = "$(GROVE_PCLQ_POD_INDEX)" if self.is_inter_pod_gms else "0"
        return (
            f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{to_lower(service_name)}-"
            f"{consts.GROVE_ROLE_SUFFIX_LEADER}-{pod_index}.$(GROVE_HEADLESS_SERVICE)"
        )

    def get_node_rank(self) -> tuple[str, bool]:
        """GetNodeRank: the static rank, or the worker pod index + 1 (shell arithmetic)."""
        if self.is_inter_pod_gms:
            return str(self.rank), False
        return "$((GROVE_PCLQ_POD_INDEX + 1))", True

    def needs_dns_wait(self) -> bool:
        """NeedsDNSWait: Grove publishes not-ready addresses, so no DNS wait."""
        return False

    def get_host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        """GetHostNames: the leader, then every worker node."""
        name = to_lower(service_name)
        hostnames = [self.get_leader_hostname(service_name)]
        worker = consts.GROVE_ROLE_SUFFIX_WORKER
        if self.is_inter_pod_gms:
            hostnames.extend(
                f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{name}-{worker}-{rank}-"
                "$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)"
                for rank in range(1, number_of_nodes)
            )
        else:
            hostnames.extend(
                f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{name}-{worker}-{i}"
                ".$(GROVE_HEADLESS_SERVICE)"
                for i in range(number_of_nodes - 1)
            )
        return hostnames


class LWSMultinodeDeployer(FrozenRecord):
    """LWSMultinodeDeployer: LeaderWorkerSet pods (the DCD controller's multinode path)."""

    def get_leader_hostname(self, service_name: str) -> str:
        """GetLeaderHostname: LWS injects the leader address."""
        return "$(LWS_LEADER_ADDRESS)"

    def get_node_rank(self) -> tuple[str, bool]:
        """GetNodeRank: LWS injects the worker index; the kubelet expands it."""
        return "$(LWS_WORKER_INDEX)", False

    def needs_dns_wait(self) -> bool:
        """NeedsDNSWait: LWS pods start together and DNS may lag."""
        return True

    def get_host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        """GetHostNames: workers derived from the leader address by a shell substitution."""
        hostnames = [self.get_leader_hostname(service_name)]
        hostnames.extend(
            f"$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-{i}\\./')"
            for i in range(1, number_of_nodes)
        )
        return hostnames


def multinode_deployer_factory(
    multinode_deployment_type: str,
) -> GroveMultinodeDeployer | LWSMultinodeDeployer | None:
    """MultinodeDeployerFactory: the deployer for ``grove`` or ``lws``, None otherwise."""
    if multinode_deployment_type == consts.MULTINODE_DEPLOYMENT_TYPE_GROVE:
        return GroveMultinodeDeployer()
    if multinode_deployment_type == consts.MULTINODE_DEPLOYMENT_TYPE_LWS:
        return LWSMultinodeDeployer()
    return None
