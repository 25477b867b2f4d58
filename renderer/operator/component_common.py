"""internal/dynamo/component_common.go: per-type defaults and the component context.

``component_defaults_factory(type)`` (component_defaults.py) returns the ComponentDefaults
for a component type (frontend, worker/prefill/decode, planner, epp, anything else = the
common base); each has ``get_base_container(context)`` and ``get_base_pod_spec(context)``
returning corev1 JSON dicts (fresh values every call)."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from renderer.operator import consts

JSON = dict[str, Any]

#: configv1alpha1.KubeDiscoveryMode values.
KUBE_DISCOVERY_MODE_POD = "pod"
KUBE_DISCOVERY_MODE_CONTAINER = "container"


class DiscoveryContext(NamedTuple):
    """Resolved discovery settings (backend from annotation or config; kube mode)."""

    backend: str
    mode: str


def get_discovery_backend(discovery_backend: str, annotations: dict[str, str] | None) -> str:
    """controller_common.GetDiscoveryBackend: the annotation, when present, wins."""
    annotations = annotations or {}
    if consts.KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND in annotations:
        return annotations[consts.KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND]
    return discovery_backend


def is_k8s_discovery_enabled(discovery_backend: str, annotations: dict[str, str] | None) -> bool:
    """controller_common.IsK8sDiscoveryEnabled."""
    backend = get_discovery_backend(discovery_backend, annotations)
    return backend == consts.DISCOVERY_BACKEND_KUBERNETES


def get_kube_discovery_mode(annotations: dict[str, str] | None) -> str:
    """controller_common.GetKubeDiscoveryMode (default: pod)."""
    annotations = annotations or {}
    if consts.KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE in annotations:
        return annotations[consts.KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE]
    return KUBE_DISCOVERY_MODE_POD


def new_discovery_context(
    default_backend: str, annotations: dict[str, str] | None
) -> DiscoveryContext:
    """NewDiscoveryContext."""
    return DiscoveryContext(
        backend=get_discovery_backend(default_backend, annotations),
        mode=get_kube_discovery_mode(annotations),
    )


class ComponentContext(NamedTuple):
    """ComponentContext (Go field names in snake_case); ``epp_config`` is the JSON dict."""

    number_of_nodes: int
    dynamo_namespace: str
    component_type: str
    parent_graph_deployment_name: str
    parent_graph_deployment_namespace: str
    discovery: DiscoveryContext
    epp_config: JSON | None = None
    worker_hash_suffix: str = ""


class ComponentDefaults(Protocol):
    """ComponentDefaults: the base container and pod spec for one component type."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer."""
        ...

    def get_base_pod_spec(self, context: ComponentContext) -> JSON:
        """GetBasePodSpec."""
        ...


def system_probe(path: str, **timing: int) -> JSON:
    """An HTTP probe on the system port (the worker and planner probes)."""
    probe: JSON = {"httpGet": {"path": path, "port": consts.DYNAMO_SYSTEM_PORT_NAME}}
    probe.update(timing)
    return probe


def _field_ref_env(name: str, field_path: str) -> JSON:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


class BaseComponentDefaults:
    """BaseComponentDefaults: what every component type starts from."""

    def get_base_container(self, context: ComponentContext) -> JSON:
        """GetBaseContainer: the common container."""
        return self.get_common_container(context)

    def get_base_pod_spec(self, context: ComponentContext) -> JSON:
        """GetBasePodSpec: the common pod spec."""
        return self.get_common_pod_spec()

    def get_common_pod_spec(self) -> JSON:
        """getCommonPodSpec: 60s grace period, restartPolicy Always."""
        return {"terminationGracePeriodSeconds": 60, "restartPolicy": "Always"}

    def get_common_container(self, context: ComponentContext) -> JSON:
        """getCommonContainer: main, /bin/sh -c, the identity and discovery env."""
        env: list[JSON] = [
            {"name": consts.DYNAMO_NAMESPACE_ENV_VAR, "value": context.dynamo_namespace},
            {"name": consts.DYNAMO_COMPONENT_ENV_VAR, "value": context.component_type},
            {"name": "DYN_PARENT_DGD_K8S_NAME", "value": context.parent_graph_deployment_name},
            {
                "name": "DYN_PARENT_DGD_K8S_NAMESPACE",
                "value": context.parent_graph_deployment_namespace,
            },
            _field_ref_env("POD_NAME", "metadata.name"),
            _field_ref_env("POD_NAMESPACE", "metadata.namespace"),
            _field_ref_env("POD_UID", "metadata.uid"),
        ]
        # "kubernetes" unless the resolved backend is exactly "etcd" (also when it is empty).
        if context.discovery.backend != "etcd":
            env.append({"name": consts.DYNAMO_DISCOVERY_BACKEND_ENV_VAR, "value": "kubernetes"})
        if context.discovery.mode == KUBE_DISCOVERY_MODE_CONTAINER:
            env.append({"name": "CONTAINER_NAME", "value": consts.MAIN_CONTAINER_NAME})
            env.append({"name": "DYN_KUBE_DISCOVERY_MODE", "value": KUBE_DISCOVERY_MODE_CONTAINER})
        return {"name": consts.MAIN_CONTAINER_NAME, "command": ["/bin/sh", "-c"], "env": env}
