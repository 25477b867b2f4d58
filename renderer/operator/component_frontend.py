"""internal/dynamo/component_frontend.go: the frontend's base container."""

from __future__ import annotations

from renderer.operator import consts
from renderer.operator.component_common import JSON, BaseComponentDefaults, ComponentContext


def _http_probe(path: str, port: str, **timing: int) -> JSON:
    probe: JSON = {"httpGet": {"path": path, "port": port}}
    probe.update(timing)
    return probe


class FrontendDefaults(BaseComponentDefaults):
    """FrontendDefaults: python3 -m dynamo.frontend on port 8000 with HTTP probes."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer."""
        container = self.get_common_container(context)
        container["command"] = ["python3"]
        container["args"] = ["-m", "dynamo.frontend"]
        container["ports"] = [
            {
                "protocol": "TCP",
                "name": consts.DYNAMO_CONTAINER_PORT_NAME,
                "containerPort": consts.DYNAMO_SERVICE_PORT,
            }
        ]
        container["livenessProbe"] = _http_probe(
            "/live",
            consts.DYNAMO_CONTAINER_PORT_NAME,
            initialDelaySeconds=15,
            periodSeconds=10,
            timeoutSeconds=1,
            failureThreshold=3,
        )
        container["readinessProbe"] = _http_probe(
            "/health",
            consts.DYNAMO_CONTAINER_PORT_NAME,
            initialDelaySeconds=10,
            periodSeconds=10,
            timeoutSeconds=3,
            failureThreshold=3,
        )
        container["env"] = [
            *container["env"],
            {"name": consts.ENV_DYNAMO_SERVICE_PORT, "value": str(consts.DYNAMO_SERVICE_PORT)},
            {"name": "DYN_HTTP_PORT", "value": str(consts.DYNAMO_SERVICE_PORT)},
            {"name": consts.DYNAMO_NAMESPACE_PREFIX_ENV_VAR, "value": context.dynamo_namespace},
        ]
        return container
