"""internal/dynamo/component_worker.go: worker (worker/prefill/decode) defaults and the
kv-transfer topology Downward API volume."""

from __future__ import annotations

from collections.abc import Sequence

from renderer.operator import consts
from renderer.operator.component_common import (
    JSON,
    BaseComponentDefaults,
    ComponentContext,
    system_probe,
)

TOPOLOGY_VOLUME_NAME = "topology-labels"
TOPOLOGY_MOUNT_PATH = "/etc/dynamo/topology"


class WorkerDefaults(BaseComponentDefaults):
    """WorkerDefaults: system + nixl ports, system probes, the runtime's system env."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer."""
        container = self.get_common_container(context)
        container["ports"] = [
            {
                "protocol": "TCP",
                "name": consts.DYNAMO_SYSTEM_PORT_NAME,
                "containerPort": consts.DYNAMO_SYSTEM_PORT,
            },
            {
                "protocol": "TCP",
                "name": consts.DYNAMO_NIXL_PORT_NAME,
                "containerPort": consts.DYNAMO_NIXL_PORT,
            },
        ]
        container["livenessProbe"] = system_probe(
            "/live", periodSeconds=5, timeoutSeconds=4, failureThreshold=1
        )
        container["readinessProbe"] = system_probe(
            "/health", periodSeconds=10, timeoutSeconds=4, failureThreshold=3
        )
        container["startupProbe"] = system_probe(
            "/live", periodSeconds=10, timeoutSeconds=5, failureThreshold=720
        )
        env = [
            *container["env"],
            {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
            {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": '["generate"]'},
            {"name": "DYN_SYSTEM_PORT", "value": str(consts.DYNAMO_SYSTEM_PORT)},
            {"name": "DYN_HEALTH_CHECK_ENABLED", "value": "false"},
            {"name": "NIXL_TELEMETRY_ENABLE", "value": "n"},
            {"name": "NIXL_TELEMETRY_EXPORTER", "value": "prometheus"},
            {"name": "NIXL_TELEMETRY_PROMETHEUS_PORT", "value": str(consts.DYNAMO_NIXL_PORT)},
            {"name": "DYN_FORWARDPASS_METRIC_PORT", "value": str(consts.DYNAMO_FPM_BASE_PORT)},
        ]
        if context.worker_hash_suffix:
            env.append(
                {
                    "name": consts.DYNAMO_NAMESPACE_WORKER_SUFFIX_ENV_VAR,
                    "value": context.worker_hash_suffix,
                }
            )
        container["env"] = env
        return container


def topology_label_volume(
    policy: JSON | None, grove_cluster_topology_domains: Sequence[str] | None
) -> JSON:
    """TopologyLabelVolume: a Downward API volume projecting the topology pod labels."""
    volume: JSON = {"name": TOPOLOGY_VOLUME_NAME, "downwardAPI": {}}
    items = _topology_label_volume_items(policy, grove_cluster_topology_domains)
    if items is not None:
        volume["downwardAPI"]["items"] = items
    return volume


def _topology_label_volume_items(
    policy: JSON | None, domains: Sequence[str] | None
) -> list[JSON] | None:
    if policy is None:
        return None
    label_key = policy.get("labelKey", "")
    if label_key:
        return [
            {
                "path": policy.get("domain", ""),
                "fieldRef": {"fieldPath": f"metadata.labels['{label_key}']"},
            }
        ]
    return [
        {
            "path": domain,
            "fieldRef": {
                "fieldPath": f"metadata.labels['{consts.dynamo_topology_label_key(domain)}']"
            },
        }
        for domain in domains or ()
    ]


def topology_label_volume_mount() -> JSON:
    """TopologyLabelVolumeMount."""
    return {"name": TOPOLOGY_VOLUME_NAME, "mountPath": TOPOLOGY_MOUNT_PATH, "readOnly": True}
