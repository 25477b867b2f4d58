"""PodCliqueSet-level settings of the Grove path (graph.go / grove.go helpers, pinned).

The update strategy annotation, topology constraints, the termination delay's Go duration
text, the scheduler gates, the discovery backend and the kv-transfer policy's topology
annotations: small rules ``GenerateGrovePodCliqueSet`` and ``buildCliqueForRole`` apply
around the cliques. Inputs that need the cluster (ClusterTopologyBinding reads, KAI queue
validation, Volcano) are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator import consts
from renderer.operator.config import OperatorConfig
from renderer.operator.errors import NotReproducedError
from renderer.operator.graph_grove_meta import GroveError

JSON = dict[str, Any]

__all__ = [
    "GroveError",
    "check_scheduler_gates",
    "discovery_backend",
    "go_duration_string",
    "grove_topology_constraint",
    "grove_update_strategy_from_annotations",
    "kv_transfer_policy",
    "resolve_grove_cluster_topology_domains",
    "spec_to_grove_topology_constraint",
    "to_grove_topology_constraint",
]

UPDATE_STRATEGY_ROLLING_RECREATE = "RollingRecreate"
UPDATE_STRATEGY_ON_DELETE = "OnDelete"


def go_duration_string(seconds: int) -> str:
    """time.Duration.String for whole seconds (``15m0s``, ``1h0m0s``, ``0s``)."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{sign}{minutes}m{secs}s"
    return f"{sign}{secs}s"


def grove_update_strategy_from_annotations(annotations: Mapping[str, str]) -> str | None:
    """groveUpdateStrategyFromAnnotations: the annotation's strategy, or the operator's error."""
    key = consts.KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY
    if key not in annotations:
        return None
    value = annotations[key]
    if value in (UPDATE_STRATEGY_ROLLING_RECREATE, UPDATE_STRATEGY_ON_DELETE):
        return value
    raise GroveError(
        f"unsupported Grove update strategy annotation {_go_q(key)}={_go_q(value)}: "
        f"supported values are {_go_q(UPDATE_STRATEGY_ROLLING_RECREATE)} and "
        f"{_go_q(UPDATE_STRATEGY_ON_DELETE)}"
    )


def _go_q(text: str) -> str:
    return go_quote(text)


def spec_to_grove_topology_constraint(tc: JSON | None) -> JSON | None:
    """specToGroveTopologyConstraint (deployment level)."""
    if not tc:
        return None
    return grove_topology_constraint(
        str(tc.get("clusterTopologyName") or ""), str(tc.get("packDomain") or "")
    )


def to_grove_topology_constraint(tc: JSON | None, deployment_tc: JSON | None) -> JSON | None:
    """toGroveTopologyConstraint: a component constraint, inheriting an unpacked topology."""
    if not tc or not tc.get("packDomain"):
        return None
    topology_name = ""
    if deployment_tc is not None and not deployment_tc.get("packDomain"):
        topology_name = str(deployment_tc.get("clusterTopologyName") or "")
    return grove_topology_constraint(topology_name, str(tc["packDomain"]))


def grove_topology_constraint(topology_name: str, pack_domain: str) -> JSON | None:
    """groveTopologyConstraint: ``{topologyName?, pack: {required}}`` or None."""
    if not pack_domain:
        return None
    constraint: JSON = {"pack": {"required": pack_domain}}
    if topology_name:
        constraint["topologyName"] = topology_name
    return constraint


def check_scheduler_gates(config: OperatorConfig) -> None:
    """resolveGroveSchedulerQueue / injectVolcanoQueueAnnotation preconditions.

    With KAI the operator validates the queue against the cluster; with Volcano it maps a
    queue annotation and the scheduler name. Neither is on in the configuration emulated
    here, and neither is reproduced.
    """
    gates = config.gates
    if gates.grove and gates.kai_scheduler and gates.volcano_scheduler:
        raise GroveError(
            "kai-scheduler and volcano scheduler integrations cannot both be enabled for Grove"
        )
    if gates.grove and (gates.kai_scheduler or gates.volcano_scheduler):
        raise NotReproducedError(
            "the KAI/Volcano scheduler integrations of the operator configuration", ""
        )


def discovery_backend(config: OperatorConfig, dgd_annotations: Mapping[str, str]) -> str:
    """controller_common.GetDiscoveryBackend: the DGD annotation, else the configured one."""
    key = consts.KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND
    if key in dgd_annotations:
        return dgd_annotations[key]
    return config.discovery_backend


def kv_transfer_policy(dgd: JSON) -> JSON | None:
    experimental = (dgd.get("spec") or {}).get("experimental")
    if not isinstance(experimental, dict):
        return None
    kvt = experimental.get("kvTransferPolicy")
    return kvt if isinstance(kvt, dict) else None


def resolve_grove_cluster_topology_domains(dgd: JSON) -> list[str] | None:
    """resolveGroveClusterTopologyDomains against the empty cluster: a named topology fails."""
    kvt = kv_transfer_policy(dgd)
    if kvt is None or not kvt.get("clusterTopologyName"):
        return None
    name = str(kvt["clusterTopologyName"])
    raise GroveError(
        f"spec.experimental.kvTransferPolicy.clusterTopologyName {_go_q(name)} references a "
        "ClusterTopologyBinding resource that was not found"
    )
