"""The pod-spec half of internal/dynamo/graph.go (pinned operator commit).

``generate_base_pod_spec`` builds one component's pod spec the way the operator's
GenerateBasePodSpec does; ``generate_pod_spec_for_component`` first applies the DGD-level
template defaults (env, kv-transfer policy, propagated annotations/labels).

Values are plain JSON dicts keyed by Go json tags (absent key = Go zero/nil):

- ``component``: a v1beta1 DynamoComponentDeploymentSharedSpec (one ``spec.components[]``
  entry of the admitted DGD); ``dynamo_deployment``: the admitted v1beta1 DGD.
- ``backend_framework``: the BackendFramework string ("noop", "vllm", "sglang", "trtllm").
- ``secrets_retriever``: None or a SecretsRetriever (``get_secrets(namespace, image)`` ->
  secret names; an exception counts as none, as Go drops the error). The oracle's cluster
  has no docker-registry secrets, so None renders as it does.
- ``role``: the Role string ("main", "leader", "worker", "checkpoint", "gms").
- ``checkpoint_info``: None or a dict with checkpoint.CheckpointInfo's Go field names
  (``Enabled``, ``Ready``, ...: the struct has no json tags).
- ``deployer_override``: None or a MultinodeDeployer (backend.py).
- ``container_gpus``: None or ContainerGPUCount, a zero-argument callable returning the main
  container's GPU count, evaluated lazily by the backends needing it. None resolves it from
  the component (ResolveContainerGPUs) when asked, where Go would dereference nil.

The result is the typed Go value as a dict (not yet marshalled): pass it through
``goruntime.encoding_json.encode(pod_spec, core_type("PodSpec"))`` for what the operator
writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from renderer.goruntime.mergo import MergeError, merge
from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.typetable import core_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts, dra, gms
from renderer.operator.backend import BackendError
from renderer.operator.backend_factory import backend_factory
from renderer.operator.component_common import (
    ComponentContext,
    DiscoveryContext,
    is_k8s_discovery_enabled,
    new_discovery_context,
)
from renderer.operator.component_defaults import component_defaults_factory
from renderer.operator.component_frontend import FrontendDefaults
from renderer.operator.config import OperatorConfig
from renderer.operator.dra import resolve_gpu_count
from renderer.operator.errors import OperatorError
from renderer.operator.failover import build_failover_pod, is_intra_pod_failover_enabled
from renderer.operator.graph_dcd import gms_extra_client_containers_error
from renderer.operator.graph_env import (
    add_standard_env_vars,
    apply_dgd_template_defaults,
    is_worker_component,
    merge_envs,
)
from renderer.operator.multinode import multinode_deployer_factory
from renderer.operator.podspec_volumes import (
    append_missing_pvc_volumes_for_mounts,
    append_missing_volume_mounts,
    apply_compilation_cache,
    apply_compilation_cache_volume,
    validate_container_volume_mounts,
)
from renderer.operator.shared_memory import apply_shared_memory_volume_and_mount
from renderer.operator.v1beta1_helpers import (
    compute_dynamo_namespace,
    get_gpu_memory_service,
    get_main_container,
    get_main_container_resources,
    get_pod_template_annotations,
    get_pod_template_labels,
    is_inter_pod_gms_enabled,
)

_CONTAINER = core_type("Container")

JSON = dict[str, Any]
#: ContainerGPUCount: evaluated only by backends that need the count.
ContainerGPUCount = Callable[[], int]


class PodSpecError(OperatorError):
    """The operator would fail (an ``error`` returned) or this emulation refuses the input.

    ``message`` is the operator's wording where the operator fails.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def generate_component_context(
    component: JSON,
    parent_graph_deployment_name: str,
    namespace: str,
    number_of_nodes: int,
    discovery: DiscoveryContext,
) -> ComponentContext:
    """generateComponentContext."""
    component_type = component.get("type", "")
    worker_hash = (get_pod_template_labels(component) or {}).get(
        consts.KUBE_LABEL_DYNAMO_WORKER_HASH, ""
    )
    return ComponentContext(
        number_of_nodes=number_of_nodes,
        dynamo_namespace=compute_dynamo_namespace(
            bool(component.get("globalDynamoNamespace", False)),
            namespace,
            parent_graph_deployment_name,
        ),
        component_type=component_type,
        parent_graph_deployment_name=parent_graph_deployment_name,
        parent_graph_deployment_namespace=namespace,
        discovery=discovery,
        epp_config=component.get("eppConfig"),
        worker_hash_suffix=worker_hash if is_worker_component(component_type) else "",
    )


def merge_container_by_name(base: JSON, override: JSON | None) -> JSON:
    """mergeContainerByName: the user's main container over the defaults (returns it).

    mergo WithOverride, then env merged by name (user wins, sorted), user probes replace
    the defaults wholesale, and the name stays ``main``.
    """
    if override is None:
        return base
    user = deep_copy(override)
    user["name"] = consts.MAIN_CONTAINER_NAME
    base_env = base.get("env")
    try:
        merged: JSON = merge(base, user, _CONTAINER)
    except MergeError as exc:
        raise PodSpecError(f"podTemplate main container: {exc}") from None
    merged["env"] = merge_envs(base_env, user.get("env"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if user.get(probe) is not None:
            merged[probe] = deep_copy(user[probe])
    merged["name"] = consts.MAIN_CONTAINER_NAME
    return merged


def apply_checkpoint_probe_cadence(
    container: JSON, component: JSON, checkpoint_info: JSON | None
) -> None:
    """applyCheckpointProbeCadence: 1s readiness/startup period on ready restore workers."""
    if (
        checkpoint_info is not None
        and checkpoint_info.get("Enabled")
        and checkpoint_info.get("Ready")
        and is_worker_component(component.get("type", ""))
    ):
        for probe in ("readinessProbe", "startupProbe"):
            if container.get(probe) is not None:
                container[probe]["periodSeconds"] = 1


def apply_default_security_context(pod_spec: JSON) -> None:
    """applyDefaultSecurityContext: fsGroup 1000 unless one is set."""
    security_context = pod_spec.get("securityContext")
    if security_context is None:
        security_context = pod_spec["securityContext"] = {}
    if security_context.get("fsGroup") is None:
        security_context["fsGroup"] = consts.DEFAULT_SECURITY_CONTEXT_FS_GROUP


def resolve_container_gpus(namespace: str, component: JSON | None) -> int:
    """ResolveContainerGPUs: the main container's GPU count (scalar or DRA claims)."""
    if component is None:
        raise PodSpecError("component is nil")

    pod_spec = (component.get("podTemplate") or {}).get("spec") or {}
    return int(resolve_gpu_count(namespace, pod_spec, get_main_container_resources(component)))


def _backend_and_deployer(
    backend_framework: str,
    operator_config: OperatorConfig,
    parent_graph_deployment_name: str,
    multinode_deployment_type: str,
    deployer_override: object | None,
) -> tuple[Any, Any]:
    deployer = deployer_override
    if deployer is None:
        deployer = multinode_deployer_factory(multinode_deployment_type)
        if deployer is None:
            raise PodSpecError(
                f"unsupported multinode deployment type: {multinode_deployment_type}"
            )
    backend = backend_factory(backend_framework, operator_config, parent_graph_deployment_name)
    if backend is None:
        raise PodSpecError(f"unsupported backend framework: {backend_framework}")
    return backend, deployer


def generate_base_pod_spec(  # noqa: PLR0917 - Go parameter order, by convention
    component: JSON,
    backend_framework: str,
    secrets_retriever: SecretsRetriever | None,
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
    """GenerateBasePodSpec: the component's corev1.PodSpec (typed value as a dict).

    ``component`` is read, except that a compilation cache's default mount path is
    written back into it, as in Go. Raises PodSpecError where the operator returns an
    error or where this emulation does not reproduce a path (the message names the field).
    """
    if component.get("type", "") == consts.COMPONENT_TYPE_EPP:
        # component_epp.py follows the pinned source, but no reference output exists to
        # check it against: the operator's admission refuses EPP components offline.
        raise PodSpecError(
            "type: epp: the EPP pod spec is not reproduced (the operator's admission refuses"
            " EPP components when the InferencePool API cannot be detected)"
        )
    annotations = get_pod_template_annotations(component)
    context = generate_component_context(
        component,
        parent_graph_deployment_name,
        namespace,
        number_of_nodes,
        new_discovery_context(operator_config.discovery_backend, annotations),
    )
    defaults = component_defaults_factory(component.get("type", ""))
    container = defaults.get_base_container(context)
    main = get_main_container(component)
    if main is not None:
        container = merge_container_by_name(container, main)
    _raise_go_error(apply_compilation_cache, container, component, backend_framework)
    _raise_go_error(validate_container_volume_mounts, container.get("volumeMounts"))
    add_standard_env_vars(container, operator_config)
    frontend_sidecar_mounts = list(container.get("volumeMounts") or [])

    backend, deployer = _backend_and_deployer(
        backend_framework,
        operator_config,
        parent_graph_deployment_name,
        multinode_deployment_type,
        deployer_override,
    )
    gpus = container_gpus
    if gpus is None:

        def gpus() -> int:
            return resolve_container_gpus(namespace, component)

    try:
        backend.update_container(
            container, number_of_nodes, role, component, service_name, deployer, gpus
        )
    except BackendError as exc:
        raise PodSpecError(
            f"failed to update container for backend {backend_framework}: {exc.message}"
        ) from None
    apply_checkpoint_probe_cadence(container, component, checkpoint_info)

    pod_spec = defaults.get_base_pod_spec(context)
    pod_template = component.get("podTemplate")
    template_spec: JSON = (pod_template or {}).get("spec") or {}
    user_security_context = (
        pod_template is not None and template_spec.get("securityContext") is not None
    )
    sidecars: list[JSON] = []
    if pod_template is not None:
        override = deep_copy(template_spec)
        sidecars = [
            c
            for c in override.get("containers") or []
            if c.get("name", "") != consts.MAIN_CONTAINER_NAME
        ]
        override.pop("containers", None)
        try:
            pod_spec = merge(pod_spec, override, core_type("PodSpec"))
        except MergeError as exc:
            raise PodSpecError(f"podTemplate spec: {exc}") from None
    if not user_security_context:
        apply_default_security_context(pod_spec)
    if is_k8s_discovery_enabled(
        operator_config.discovery_backend, annotations
    ) and not pod_spec.get("serviceAccountName"):
        pod_spec["serviceAccountName"] = f"{parent_graph_deployment_name}-k8s-service-discovery"
    _raise_go_error(apply_compilation_cache_volume, pod_spec, component.get("compilationCache"))
    apply_shared_memory_volume_and_mount(pod_spec, container, component.get("sharedMemorySize"))
    pod_spec["containers"] = [container, *sidecars]

    if component.get("frontendSidecar") is not None:
        merge_frontend_sidecar_defaults(
            pod_spec,
            component["frontendSidecar"],
            context,
            operator_config,
            frontend_sidecar_mounts,
        )
    backend.update_pod_spec(pod_spec, number_of_nodes, role, component, service_name, deployer)
    pod_spec["volumes"] = append_missing_pvc_volumes_for_mounts(
        pod_spec.get("volumes"), pod_spec["containers"][0].get("volumeMounts")
    )
    disabled = (annotations or {}).get(consts.KUBE_ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY)
    if disabled != consts.KUBE_LABEL_VALUE_TRUE and secrets_retriever is not None:
        _append_discovered_image_pull_secrets(pod_spec, secrets_retriever, namespace)

    gms_spec = get_gpu_memory_service(component)
    if gms_spec is not None and not is_inter_pod_gms_enabled(component):
        _apply_intra_pod_gms(pod_spec, gms_spec, parent_graph_deployment_name, service_name)
    if is_intra_pod_failover_enabled(component):
        _build_failover_pod(pod_spec, number_of_nodes, backend_framework)
    return pod_spec


class SecretsRetriever(Protocol):
    """SecretsRetriever: the docker-registry secrets of a namespace that match an image."""

    def get_secrets(self, namespace: str, registry: str) -> list[str]:
        """GetSecrets (Go passes the whole image reference as the registry)."""
        ...


def append_unique_image_pull_secrets(existing: list[JSON] | None, additional: list[JSON]) -> Any:
    """controller_common.AppendUniqueImagePullSecrets."""
    if not additional:
        return existing
    out = list(existing or [])
    seen = {ref.get("name", "") for ref in out}
    for ref in additional:
        if ref.get("name", "") not in seen:
            out.append(ref)
            seen.add(ref.get("name", ""))
    return out


def _append_discovered_image_pull_secrets(
    pod_spec: JSON, retriever: SecretsRetriever, namespace: str
) -> None:
    discovered: list[JSON] = []
    for container in pod_spec.get("containers") or []:
        image = container.get("image", "")
        if image:
            try:
                names = retriever.get_secrets(namespace, image)
            except Exception:  # resolveImagePullSecrets drops the error
                names = []
            refs = [{"name": name} for name in names]
            discovered = append_unique_image_pull_secrets(discovered, refs)
    merged = append_unique_image_pull_secrets(pod_spec.get("imagePullSecrets"), discovered)
    if merged is None:
        pod_spec.pop("imagePullSecrets", None)
    else:
        pod_spec["imagePullSecrets"] = merged


def _raise_go_error(func: Callable[..., None], *args: Any) -> None:
    """Call a helper that raises OperatorError with the operator's message, as PodSpecError."""
    try:
        func(*args)
    except PodSpecError:
        raise
    except OperatorError as exc:
        raise PodSpecError(str(exc)) from None


def _apply_intra_pod_gms(
    pod_spec: JSON, gms_spec: JSON, parent_graph_deployment_name: str, service_name: str
) -> None:
    problem = gms_extra_client_containers_error(gms_spec, pod_spec["containers"])
    if problem is not None:
        raise PodSpecError(problem)
    claim = dra.resource_claim_template_name(parent_graph_deployment_name, service_name)
    try:
        dra.apply_claim(pod_spec, claim)
    except OperatorError as exc:
        raise PodSpecError(f"failed to apply DRA claim for GMS: {exc}") from None
    gms.ensure_server_sidecar(pod_spec, pod_spec["containers"][0])
    for name in gms_spec.get("extraClientContainers") or []:
        client = next((c for c in pod_spec["containers"] if c.get("name", "") == name), None)
        if client is None:
            raise PodSpecError(
                f"gpuMemoryService extra client container {go_quote(name)} disappeared while"
                " rendering the pod"
            )
        gms.ensure_client(pod_spec, client)


def _build_failover_pod(pod_spec: JSON, number_of_nodes: int, backend_framework: str) -> None:
    try:
        build_failover_pod(pod_spec, number_of_nodes, backend_framework)
    except OperatorError as exc:
        raise PodSpecError(f"failed to build failover pod: {exc}") from None


def merge_frontend_sidecar_defaults(
    pod_spec: JSON,
    sidecar_name: str,
    parent_context: ComponentContext,
    operator_config: OperatorConfig,
    parent_mounts: list[JSON],
) -> None:
    """mergeFrontendSidecarDefaults: frontend defaults under the named sidecar (in place)."""
    for i, user in enumerate(pod_spec.get("containers") or []):
        if user.get("name", "") != sidecar_name:
            continue
        frontend_context = ComponentContext(
            number_of_nodes=1,
            dynamo_namespace=parent_context.dynamo_namespace,
            component_type=consts.COMPONENT_TYPE_FRONTEND,
            parent_graph_deployment_name=parent_context.parent_graph_deployment_name,
            parent_graph_deployment_namespace=parent_context.parent_graph_deployment_namespace,
            discovery=parent_context.discovery,
        )
        base = FrontendDefaults().get_base_container(frontend_context)
        base["name"] = sidecar_name
        base_env = base.get("env")
        try:
            merged: JSON = merge(base, user, _CONTAINER)
        except MergeError as exc:
            raise PodSpecError(
                f"failed to merge frontend sidecar {go_quote(sidecar_name)}: {exc}"
            ) from None
        merged["env"] = merge_envs(base_env, user.get("env"))
        add_standard_env_vars(merged, operator_config)
        merged["volumeMounts"] = append_missing_volume_mounts(
            merged.get("volumeMounts"), parent_mounts
        )
        pod_spec["containers"][i] = merged
        return
    raise PodSpecError(
        f"frontendSidecar {go_quote(sidecar_name)} does not match any podTemplate container"
    )


def generate_pod_spec_for_component(  # noqa: PLR0917 - Go parameter order
    component: JSON,
    backend_framework: str,
    secrets_retriever: SecretsRetriever | None,
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
    TopologyDomain strings (None = Go nil). ``operator_config`` None is Go's empty
    OperatorConfiguration (no discovery backend).
    """
    if component is None:
        raise PodSpecError("component is nil")
    if dynamo_deployment is None:
        raise PodSpecError("dynamoDeployment is nil")
    component = deep_copy(component)
    apply_dgd_template_defaults(component, dynamo_deployment, grove_cluster_topology_domains)
    if operator_config is None:
        operator_config = OperatorConfig(discovery_backend="")
    metadata = dynamo_deployment.get("metadata") or {}
    return generate_base_pod_spec(
        component,
        backend_framework,
        secrets_retriever,
        metadata.get("name", ""),
        metadata.get("namespace", ""),
        role,
        number_of_nodes,
        operator_config,
        multinode_deployment_type,
        service_name,
        checkpoint_info,
        deployer_override,
        container_gpus,
    )
