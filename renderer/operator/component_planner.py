"""internal/dynamo/component_planner.go: the planner's base container and pod spec."""

from __future__ import annotations

from renderer.operator import consts
from renderer.operator.component_common import (
    JSON,
    BaseComponentDefaults,
    ComponentContext,
    system_probe,
)


class PlannerDefaults(BaseComponentDefaults):
    """PlannerDefaults: metrics + system ports, system probes, planner service account."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer."""
        container = self.get_common_container(context)
        container["ports"] = [
            {
                "protocol": "TCP",
                "name": consts.DYNAMO_METRICS_PORT_NAME,
                "containerPort": consts.DYNAMO_PLANNER_METRICS_PORT,
            },
            {
                "protocol": "TCP",
                "name": consts.DYNAMO_SYSTEM_PORT_NAME,
                "containerPort": consts.DYNAMO_SYSTEM_PORT,
            },
        ]
        container["livenessProbe"] = system_probe(
            "/live", periodSeconds=5, timeoutSeconds=4, failureThreshold=1
        )
        container["readinessProbe"] = system_probe(
            "/health", periodSeconds=10, timeoutSeconds=4, failureThreshold=3
        )
        # The planner waits for workers before it initialises: a two-hour startup budget.
        container["startupProbe"] = system_probe(
            "/live", periodSeconds=10, timeoutSeconds=5, failureThreshold=720
        )
        container["env"] = [
            *container["env"],
            {"name": "PLANNER_PROMETHEUS_PORT", "value": str(consts.DYNAMO_PLANNER_METRICS_PORT)},
            {"name": "DYN_SYSTEM_PORT", "value": str(consts.DYNAMO_SYSTEM_PORT)},
        ]
        return container

    def get_base_pod_spec(self, context: ComponentContext) -> JSON:
        """GetBasePodSpec: the common pod spec with the planner service account."""
        pod_spec = self.get_common_pod_spec()
        pod_spec["serviceAccountName"] = consts.PLANNER_SERVICE_ACCOUNT_NAME
        return pod_spec
