"""internal/dynamo/backend_sglang.go: the SGLang backend.

Single node: nothing (a compilation cache is only logged as not yet supported). Multinode:
worker pods lose their probes and every pod gets ``--dist-init-addr <leader>:29500
--nnodes N --node-rank R`` in its engine command; the pod spec is not changed.
"""

from __future__ import annotations

from typing import Any, Final

from renderer.operator.backend import ROLE_LEADER, ROLE_WORKER, ContainerGPUCount, MultinodeDeployer
from renderer.operator.utils import inject_flags_into_container_command

JSON = dict[str, Any]

SGLANG_PORT: Final = "29500"


class SGLangBackend:
    """SGLangBackend."""

    def update_container(  # noqa: PLR0917 - Go parameter order
        self,
        container: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
        container_gpus: ContainerGPUCount,
    ) -> None:
        """UpdateContainer: multinode flags; probes off on workers."""
        if number_of_nodes <= 1:
            return
        if role == ROLE_WORKER:
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                container.pop(probe, None)
        flags, needs_shell = self.get_multinode_flags(
            number_of_nodes, role, service_name, multinode_deployer
        )
        if flags:
            inject_flags_into_container_command(container, flags, needs_shell, "sglang")

    def update_pod_spec(  # noqa: PLR0917 - Go parameter order
        self,
        pod_spec: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> None:
        """UpdatePodSpec: nothing."""

    def get_multinode_flags(
        self,
        number_of_nodes: int,
        role: str,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> tuple[str, bool]:
        """getMultinodeFlags: the flags and whether a shell must evaluate them."""
        leader_hostname = multinode_deployer.get_leader_hostname(service_name)
        if role == ROLE_LEADER:
            node_rank, needs_shell = "0", False
        else:
            node_rank, needs_shell = multinode_deployer.get_node_rank()
        flags = (
            f"--dist-init-addr {leader_hostname}:{SGLANG_PORT}"
            f" --nnodes {number_of_nodes} --node-rank {node_rank}"
        )
        return flags, needs_shell
