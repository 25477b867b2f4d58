"""internal/dynamo/component_epp.go (+ the epp package helpers it calls): the EPP
(Endpoint Picker Plugin) base container and pod spec."""

from __future__ import annotations

from renderer.operator import consts
from renderer.operator.component_common import JSON, BaseComponentDefaults, ComponentContext

#: epp.ConfigMapSuffix / epp.ConfigKey / epp.InferencePoolGroup (gaie v1 GroupName).
CONFIG_MAP_SUFFIX = "epp-config"
CONFIG_KEY = "epp-config-dynamo.yaml"
INFERENCE_POOL_GROUP = "inference.networking.k8s.io"
_GRPC_HEALTH_PORT = 9003


def get_pool_name(dgd_name: str, epp_config: JSON | None) -> str:
    """epp.GetPoolName."""
    return f"{dgd_name}-pool"


def get_pool_namespace(dgd_namespace: str, epp_config: JSON | None) -> str:
    """epp.GetPoolNamespace."""
    return dgd_namespace


def get_config_file_path() -> str:
    """epp.GetConfigFilePath."""
    return f"/etc/epp/{CONFIG_KEY}"


def get_config_map_volume_mount(dgd_name: str, epp_config: JSON | None) -> tuple[JSON, JSON]:
    """epp.GetConfigMapVolumeMount: the config volume (user ConfigMap when referenced)."""
    config_map_name = f"{dgd_name}-{CONFIG_MAP_SUFFIX}"
    config_key = CONFIG_KEY
    ref = (epp_config or {}).get("configMapRef")
    if ref is not None:
        config_map_name = ref.get("name", "")
        if ref.get("key", ""):
            config_key = ref["key"]
    volume: JSON = {
        "name": "epp-config",
        "configMap": {
            "name": config_map_name,
            # The file is always mounted under CONFIG_KEY, whatever the source key.
            "items": [{"key": config_key, "path": CONFIG_KEY}],
        },
    }
    mount: JSON = {"name": "epp-config", "mountPath": "/etc/epp", "readOnly": True}
    return volume, mount


def _grpc_probe(**timing: int) -> JSON:
    probe: JSON = {"grpc": {"port": _GRPC_HEALTH_PORT, "service": "inference-extension"}}
    probe.update(timing)
    return probe


class EPPDefaults(BaseComponentDefaults):
    """EPPDefaults: gRPC ports and probes, pool args, config and HF cache mounts."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer."""
        container = self.get_common_container(context)
        container["ports"] = [
            {
                "protocol": "TCP",
                "name": consts.EPP_GRPC_PORT_NAME,
                "containerPort": consts.EPP_GRPC_PORT,
            },
            {"protocol": "TCP", "name": "grpc-health", "containerPort": _GRPC_HEALTH_PORT},
            {"protocol": "TCP", "name": consts.DYNAMO_METRICS_PORT_NAME, "containerPort": 9090},
        ]
        container["livenessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
        container["readinessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
        container["startupProbe"] = _grpc_probe(periodSeconds=10, failureThreshold=180)
        container["env"] = [
            *container["env"],
            {"name": "USE_STREAMING", "value": "true"},
            {"name": "RUST_LOG", "value": "info"},
            {"name": "DYN_ENFORCE_DISAGG", "value": "false"},
            {"name": consts.DYNAMO_NAMESPACE_PREFIX_ENV_VAR, "value": context.dynamo_namespace},
        ]
        pool_name = get_pool_name(context.parent_graph_deployment_name, context.epp_config)
        pool_namespace = get_pool_namespace(
            context.parent_graph_deployment_namespace, context.epp_config
        )
        container["command"] = []  # empty, not nil: omitempty drops it all the same
        container["args"] = [
            "--pool-name", pool_name,
            "--pool-namespace", pool_namespace,
            "--pool-group", INFERENCE_POOL_GROUP,
            "-v", "4",
            "--zap-encoder", "json",
            "--grpc-port", str(consts.EPP_GRPC_PORT),
            "--grpc-health-port", str(_GRPC_HEALTH_PORT),
            "--config-file", get_config_file_path(),
        ]  # fmt: skip
        _, mount = get_config_map_volume_mount(
            context.parent_graph_deployment_name, context.epp_config
        )
        container["volumeMounts"] = [
            mount,
            {"name": "hf-cache", "mountPath": "/home/nonroot/.cache"},
        ]
        return container

    def get_base_pod_spec(self, context: ComponentContext) -> JSON:
        """GetBasePodSpec: EPP service account, 130s grace period, config + cache volumes."""
        pod_spec = self.get_common_pod_spec()
        pod_spec["serviceAccountName"] = consts.EPP_SERVICE_ACCOUNT_NAME
        pod_spec["terminationGracePeriodSeconds"] = 130
        volume, _ = get_config_map_volume_mount(
            context.parent_graph_deployment_name, context.epp_config
        )
        pod_spec["volumes"] = [volume, {"name": "hf-cache", "emptyDir": {}}]
        return pod_spec
