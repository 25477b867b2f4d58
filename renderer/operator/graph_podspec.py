"""The pod-spec half of internal/dynamo/graph.go (pinned operator commit).

``generate_base_pod_spec`` builds one component's pod spec the way the operator's
GenerateBasePodSpec does; ``generate_pod_spec_for_component`` first applies the DGD-level
template defaults (env, kv-transfer policy, propagated annotations/labels).

Values are plain JSON dicts keyed by Go json tags (absent key = Go zero/nil):

- ``component``: a v1beta1 DynamoComponentDeploymentSharedSpec (one ``spec.components[]``
  entry of the admitted DGD); ``dynamo_deployment``: the admitted v1beta1 DGD.
- ``backend_framework``: the BackendFramework string ("", "vllm", "sglang", "trtllm", ...).
- ``secrets_retriever``: always None here (the oracle's cluster has no docker-registry
  secrets, so discovery adds nothing); anything else is refused.
- ``role``: the Role string ("main", "leader", "worker", "checkpoint", "gms").
- ``checkpoint_info``: None or a dict with checkpoint.CheckpointInfo's Go field names
  (``Enabled``, ``Ready``, ...: the struct has no json tags).
- ``deployer_override``: None or a MultinodeDeployer (see backend.py).
- ``container_gpus``: None or ContainerGPUCount, a zero-argument callable returning the main
  container's GPU count (raising on error), evaluated lazily by the backends needing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from renderer.operator.config import OperatorConfig

JSON = dict[str, Any]
#: ContainerGPUCount: evaluated only by backends that need the count.
ContainerGPUCount = Callable[[], int]


class PodSpecError(ValueError):
    """The operator would fail (``error`` returned) or this emulation refuses the input."""


def generate_base_pod_spec(  # noqa: PLR0917 - Go parameter order, by convention
    component: JSON,
    backend_framework: str,
    secrets_retriever: object | None,
    parent_graph_deployment_name: str,
    namespace: str,
    role: str,
    number_of_nodes: int,
    operator_config: OperatorConfig,
    multinode_deployment_type: str,
    service_name: str,
    checkpoint_info: JSON | None,
    deployer_override: object | None,
    container_gpus: ContainerGPUCount | None,
) -> JSON:
    """GenerateBasePodSpec: the component's corev1.PodSpec as a JSON dict.

    Raises PodSpecError where the operator returns an error, or where this emulation does
    not reproduce a path (the message names the field).
    """
    raise NotImplementedError


def generate_pod_spec_for_component(  # noqa: PLR0917 - Go parameter order
    component: JSON,
    backend_framework: str,
    secrets_retriever: object | None,
    dynamo_deployment: JSON,
    role: str,
    number_of_nodes: int,
    operator_config: OperatorConfig | None,
    multinode_deployment_type: str,
    service_name: str,
    checkpoint_info: JSON | None,
    deployer_override: object | None,
    grove_cluster_topology_domains: Sequence[str] | None,
    container_gpus: ContainerGPUCount | None,
) -> JSON:
    """generatePodSpecForComponent: deep copy, applyDGDTemplateDefaults, GenerateBasePodSpec.

    ``component`` is not modified. ``grove_cluster_topology_domains`` is the list of
    TopologyDomain strings (None = Go nil).
    """
    raise NotImplementedError


def merge_envs(common: Sequence[JSON] | None, specific: Sequence[JSON] | None) -> list[JSON]:
    """MergeEnvs: ``specific`` wins by name; the result is sorted by name (Go byte order)."""
    raise NotImplementedError


def add_standard_env_vars(container: JSON, operator_config: OperatorConfig) -> None:
    """AddStandardEnvVars: NATS/etcd/model-express/prometheus env, user env wins (in place)."""
    raise NotImplementedError
