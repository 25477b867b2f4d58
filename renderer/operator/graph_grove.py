"""The Grove PodCliqueSet of a DGD (graph.go GenerateGrovePodCliqueSet and its helpers, pinned).

Entry point: :func:`generate_grove_pod_clique_set` renders what the operator's Grove
workload renderer creates for a new DGD (no existing PodCliqueSet, no restart in
progress): the worker-hash label is put on the worker components' pod templates
(``applyGroveWorkerHashSuffix``), then ``GenerateGrovePodCliqueSet`` runs. The result is
the PodCliqueSet as the operator marshals it (``apiVersion``/``kind``, the zero
``status``), keyed by Go json tags.

Pod specs come from the pod-spec module (``generate_pod_spec_for_component``) and the GMS
helpers (failover.py); this module owns the clique layout, labels, annotations, replica
and startup rules, scaling groups, naming, checkpoint restore shaping (checkpoint_restore)
and the scheduler gates. Inputs the operator would need the cluster for (KAI/Volcano
queues, ClusterTopologyBinding reads, discovering checkpoint storage) are refused with a
message naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from renderer.goruntime.encoding_json import encode
from renderer.goruntime.strings import to_lower
from renderer.goruntime.typetable import core_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.backend import BackendError, get_backend_framework_from_component
from renderer.operator.checkpoint_restore import (
    CheckpointRestoreError,
    apply_restore_pod_metadata_with_storage_config,
    inject_resolved_checkpoint_into_pod_spec,
    resolve_pod_spec_restore,
)
from renderer.operator.config import OperatorConfig
from renderer.operator.dra import resolve_gpu_count
from renderer.operator.errors import NotReproducedError, OperatorError
from renderer.operator.failover import (
    RankedRole,
    augment_engine_for_gms,
    get_gpu_count,
    gms_resource_claim_template_configs,
    gms_resource_sharing_entries,
    gms_weight_server_pod_spec,
)
from renderer.operator.graph_dcd import get_dynamo_namespace
from renderer.operator.graph_env import (
    apply_kv_transfer_policy_topology_annotations,
    is_worker_component,
    propagate_dgd_annotations,
    should_apply_kv_transfer_policy_to_worker_component,
)
from renderer.operator.graph_grove_meta import (
    STARTUP_POLICY_IMMEDIATE,
    STARTUP_POLICY_WAIT,
    apply_restart_annotation,
    apply_restore_candidate_metadata,
    generate_annotations,
    generate_labels,
    metadata,
)
from renderer.operator.graph_grove_roles import (
    ROLE_GMS,
    ROLE_MAIN,
    ServiceRole,
    apply_clique_startup_dependencies,
    expand_roles_for_component,
    get_number_of_nodes,
    is_inter_pod_failover_enabled,
    is_inter_pod_gms_enabled,
    pcs_name_for_dgd,
    uses_pcsg,
)
from renderer.operator.graph_grove_spec import (
    GroveError,
    check_scheduler_gates,
    discovery_backend,
    go_duration_string,
    grove_update_strategy_from_annotations,
    kv_transfer_policy,
    resolve_grove_cluster_topology_domains,
    spec_to_grove_topology_constraint,
    to_grove_topology_constraint,
)
from renderer.operator.graph_podspec import generate_pod_spec_for_component
from renderer.operator.multinode import GroveMultinodeDeployer
from renderer.operator.secrets import secrets_retriever_for
from renderer.operator.v1beta1_helpers import (
    ensure_pod_template,
    get_gpu_memory_service,
    get_main_container_resources,
)

JSON = dict[str, Any]

__all__ = [
    "GroveError",
    "apply_grove_worker_hash_suffix",
    "build_clique_for_role",
    "build_grove_scaling_group_config",
    "generate_grove_pod_clique_set",
    "generate_grove_pod_clique_set_for",
    "generate_pod_spec_for_role",
    "go_duration_string",
    "marshal_pod_specs",
    "should_gate_grove_scaling_group_replicas",
]

GROVE_API_VERSION = consts.GROVE_API_VERSION
CLIQUE_STARTUP_ANY_ORDER = "CliqueStartupTypeAnyOrder"


def generate_grove_pod_clique_set(
    admitted_dgd: JSON,
    config: OperatorConfig,
    worker_hash: str | None,
    *,
    checkpoint_info: Mapping[str, JSON] | None = None,
) -> JSON:
    """The PodCliqueSet the operator creates for a new DGD, as the oracle prints it.

    ``worker_hash`` is ComputeDGDWorkersSpecHash of the admitted DGD (None: no suffix, as
    for an existing PCS without the label). ``checkpoint_info`` maps a component name to
    its checkpoint.CheckpointInfo (Go field names: ``Enabled``, ``Exists``, ``Ready``,
    ``CheckpointName``, ``StartupPolicy``, ``RestoreTargetContainers``, ...).
    """
    render_dgd = deep_copy(admitted_dgd)
    if worker_hash:
        apply_grove_worker_hash_suffix(render_dgd, worker_hash)
    pcs = generate_grove_pod_clique_set_for(render_dgd, config, None, {}, checkpoint_info)
    marshal_pod_specs(pcs)
    return {
        "apiVersion": GROVE_API_VERSION,
        "kind": consts.PCS_KIND,
        "metadata": pcs["metadata"],
        "spec": pcs["spec"],
        # PodCliqueSetStatus: the two int32 fields without omitempty.
        "status": {"availableReplicas": 0, "updatedReplicas": 0},
    }


def marshal_pod_specs(pcs: JSON) -> None:
    """Write every clique's pod spec as encoding/json writes a corev1.PodSpec.

    The builders work on plain dicts; Go's output keeps empty structs (``resources: {}``)
    and drops empty omitempty fields, so the PCS equals the operator's only after this.
    """

    for clique in pcs["spec"]["template"]["cliques"]:
        spec = clique["spec"]
        try:
            spec["podSpec"] = encode(
                spec["podSpec"], core_type("PodSpec"), (f"cliques[{clique['name']}]", "podSpec")
            )
        except NotReproducedError as exc:
            raise NotReproducedError(f"the PodCliqueSet's {exc.message}", "") from exc


def apply_grove_worker_hash_suffix(render_dgd: JSON, worker_hash: str) -> None:
    """applyGroveWorkerHashSuffix: label every worker component's pod template."""
    for component in (render_dgd.get("spec") or {}).get("components") or []:
        if not is_worker_component(str(component.get("type") or "")):
            continue
        template = component.get("podTemplate")
        if not isinstance(template, dict):
            template = component["podTemplate"] = {}
        meta = template.setdefault("metadata", {})
        if not isinstance(meta.get("labels"), dict):
            meta["labels"] = {}
        meta["labels"][consts.KUBE_LABEL_DYNAMO_WORKER_HASH] = worker_hash


def generate_grove_pod_clique_set_for(
    dynamo_deployment: JSON,
    operator_config: OperatorConfig,
    restart_state: JSON | None,
    existing_restart_annotations: dict[str, str] | None,
    checkpoint_info_by_component: Mapping[str, JSON] | None,
) -> JSON:
    """GenerateGrovePodCliqueSet: ``{"metadata", "spec"}`` of the PodCliqueSet.

    ``dynamo_deployment`` is the render DGD (worker-hash labels already applied); it is not
    modified. ``restart_state`` is RestartState as {"Timestamp", "ComponentsToAnnotate"}
    (None for a new DGD).
    """
    meta = metadata(dynamo_deployment)
    spec = dynamo_deployment.get("spec") or {}
    dgd_annotations: dict[str, str] = dict(meta.get("annotations") or {})
    components: list[JSON] = list(spec.get("components") or [])
    check_scheduler_gates(operator_config)

    pcs_meta: JSON = {
        "labels": {
            **(spec.get("labels") or {}),
            consts.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: str(meta.get("name") or ""),
        },
        "name": pcs_name_for_dgd(str(meta.get("name") or ""), components),
        "namespace": str(meta.get("namespace") or ""),
    }
    if spec.get("annotations"):
        pcs_meta["annotations"] = dict(spec["annotations"])
    pcs_spec: JSON = {"replicas": 1}
    strategy = grove_update_strategy_from_annotations(dgd_annotations)
    template: JSON = {
        "cliques": [],
        "cliqueStartupType": CLIQUE_STARTUP_ANY_ORDER,
        "headlessServiceConfig": {"publishNotReadyAddresses": True},
    }
    if spec.get("priorityClassName"):
        template["priorityClassName"] = spec["priorityClassName"]
    delay = operator_config.grove.termination_delay_seconds
    if delay > 0:
        template["terminationDelay"] = go_duration_string(delay)
    deployment_tc = spec.get("topologyConstraint")
    topology = spec_to_grove_topology_constraint(deployment_tc)
    if topology is not None:
        template["topologyConstraint"] = topology
    pcs_spec["template"] = template
    if strategy is not None:
        pcs_spec["updateStrategy"] = {"type": strategy}
    gang_set: JSON = {"metadata": pcs_meta, "spec": pcs_spec}

    discovery = discovery_backend(operator_config, dgd_annotations)
    topology_domains = resolve_grove_cluster_topology_domains(dynamo_deployment)
    scaling_groups: list[JSON] = []
    claim_templates: list[JSON] = []
    for original in components:
        component = deep_copy(original)
        name = str(component.get("name") or "")
        propagate_dgd_annotations(dgd_annotations, component)
        pod_template = ensure_pod_template(component)
        pod_template["metadata"]["labels"][consts.KUBE_LABEL_DYNAMO_NAMESPACE] = (
            get_dynamo_namespace(dynamo_deployment, component)
        )
        backend_framework = _backend_framework(component, dynamo_deployment, name)
        if discovery != "":
            pod_template["metadata"]["annotations"][
                consts.KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND
            ] = discovery
        info = (checkpoint_info_by_component or {}).get(name)
        restore = _resolve_pod_spec_restore(operator_config, info, name)
        number_of_nodes = get_number_of_nodes(component)
        replicas = component.get("replicas")
        roles = expand_roles_for_component(
            name, None if replicas is None else int(replicas), number_of_nodes, component
        )
        clique_names: list[str] = []
        for role in roles:
            clique = build_clique_for_role(
                role,
                component,
                backend_framework,
                dynamo_deployment,
                number_of_nodes,
                operator_config,
                name,
                info,
                discovery,
                restart_state,
                existing_restart_annotations,
                restore,
                topology_domains,
            )
            template["cliques"].append(clique)
            clique_names.append(to_lower(role.name))
        inter_pod_gms = is_inter_pod_gms_enabled(component)
        apply_clique_startup_dependencies(
            gang_set, roles, backend_framework, number_of_nodes, inter_pod_gms
        )
        if inter_pod_gms:
            claim_templates += _gms_resource_claim_templates(name, component, roles)
        if uses_pcsg(component):
            scaling_groups.append(
                build_grove_scaling_group_config(
                    name, component, deployment_tc, roles, clique_names, info, inter_pod_gms
                )
            )
    if scaling_groups:
        template["podCliqueScalingGroups"] = scaling_groups
    if claim_templates:
        template["resourceClaimTemplates"] = claim_templates
    return gang_set


def _backend_framework(component: JSON, dgd: JSON, name: str) -> str:
    """getBackendFrameworkFromComponent, wrapped in the operator's message."""
    try:
        return get_backend_framework_from_component(component, dgd)
    except BackendError as exc:
        raise GroveError(
            f"failed to determine backend framework for component {name}: {exc}"
        ) from exc


def _gms_resource_claim_templates(
    name: str, component: JSON, roles: list[ServiceRole]
) -> list[JSON]:
    """gmsResourceClaimTemplateConfigs with Go's ``metadata: {}`` (a struct is never omitted)."""
    ranked: list[RankedRole] = list(roles)
    try:
        configs = gms_resource_claim_template_configs(
            name, get_gpu_memory_service(component), get_main_container_resources(component), ranked
        )
    except OperatorError as exc:
        raise GroveError(
            f"failed to build GMS ResourceClaimTemplate configs for component {name}: {exc}"
        ) from exc
    for config in configs:
        config.setdefault("templateSpec", {}).setdefault("metadata", {})
    return configs


def _resolve_pod_spec_restore(config: OperatorConfig, info: JSON | None, name: str) -> Any:
    """checkpoint.ResolvePodSpecRestore for a non-Immediate checkpoint (else None)."""
    if not config.gates.checkpoint or info is None:
        return None
    if (info.get("StartupPolicy") or "") in ("", STARTUP_POLICY_IMMEDIATE):
        return None
    try:
        return resolve_pod_spec_restore(info, config.checkpoint.storage)
    except CheckpointRestoreError as exc:
        raise GroveError(
            f"failed to resolve checkpoint restore for component {name}: {exc}"
        ) from exc


def build_grove_scaling_group_config(  # noqa: PLR0917 - Go parameter order
    component_name: str,
    component: JSON,
    deployment_topology_constraint: JSON | None,
    roles: list[ServiceRole],
    clique_names: list[str],
    checkpoint_info: JSON | None,
    is_inter_pod_gms: bool,
) -> JSON:
    """buildGroveScalingGroupConfig: one PodCliqueScalingGroupConfig for the component."""
    pcsg: JSON = {"cliqueNames": list(clique_names), "name": to_lower(component_name)}
    replicas = component.get("replicas")
    if should_gate_grove_scaling_group_replicas(checkpoint_info):
        replicas = 0
    if replicas is not None:
        pcsg["replicas"] = int(replicas)
    min_available = component.get("minAvailable")
    pcsg["minAvailable"] = 1 if min_available is None else int(min_available)
    topology = to_grove_topology_constraint(
        component.get("topologyConstraint"), deployment_topology_constraint
    )
    if topology is not None:
        pcsg["topologyConstraint"] = topology
    if is_inter_pod_gms:
        ranked: list[RankedRole] = list(roles)
        pcsg["resourceSharing"] = gms_resource_sharing_entries(component_name, ranked)
    return pcsg


def should_gate_grove_scaling_group_replicas(checkpoint_info: JSON | None) -> bool:
    """shouldGateGroveScalingGroupReplicas: enabled, WaitForCheckpoint and not Ready."""
    return (
        checkpoint_info is not None
        and bool(checkpoint_info.get("Enabled"))
        and checkpoint_info.get("StartupPolicy") == STARTUP_POLICY_WAIT
        and not checkpoint_info.get("Ready")
    )


def generate_pod_spec_for_role(  # noqa: PLR0917 - Go parameter order
    role: ServiceRole,
    component: JSON,
    backend_framework: str,
    dynamo_deployment: JSON,
    number_of_nodes: int,
    operator_config: OperatorConfig,
    service_name: str,
    checkpoint_info: JSON | None,
    grove_cluster_topology_domains: list[str] | None,
) -> JSON:
    """generatePodSpecForRole: the GMS weight server, or the engine / plain pod spec."""
    namespace = str(metadata(dynamo_deployment).get("namespace") or "")
    template = component.get("podTemplate") or {}

    def container_gpus() -> int:
        # ResolveContainerGPUs: scalar GPUs of the main container, or its DRA claims.
        return resolve_gpu_count(
            namespace, template.get("spec") or {}, get_main_container_resources(component)
        )

    grove = consts.MULTINODE_DEPLOYMENT_TYPE_GROVE
    retriever = secrets_retriever_for(operator_config, namespace)
    if role.role == ROLE_GMS:
        # The weight server starts from the component's single-node engine pod spec.
        try:
            base = generate_pod_spec_for_component(
                component, backend_framework, retriever, dynamo_deployment, ROLE_MAIN, 1,
                operator_config, grove, service_name, checkpoint_info, None,
                grove_cluster_topology_domains, container_gpus,
            )  # fmt: skip
        except OperatorError as exc:
            raise GroveError(f"failed to generate base podSpec for GMS: {exc}") from exc
        try:
            gpu_count = get_gpu_count(get_main_container_resources(component))
        except OperatorError as exc:
            raise GroveError(f"failed to get GPU count for GMS weight server: {exc}") from exc
        return gms_weight_server_pod_spec(base, role.rank, gpu_count)
    inter_pod_gms = is_inter_pod_gms_enabled(component)
    deployer = None
    if inter_pod_gms and number_of_nodes > 1:
        deployer = GroveMultinodeDeployer(is_inter_pod_gms=True, rank=role.rank)
    pod_spec = generate_pod_spec_for_component(
        component, backend_framework, retriever, dynamo_deployment, role.role, number_of_nodes,
        operator_config, grove, service_name, checkpoint_info, deployer,
        grove_cluster_topology_domains, container_gpus,
    )  # fmt: skip
    if inter_pod_gms:
        augment_engine_for_gms(pod_spec, role.rank, is_inter_pod_failover_enabled(component))
    return pod_spec


def build_clique_for_role(  # noqa: PLR0917 - cliqueParams fields in Go order
    role: ServiceRole,
    component: JSON,
    backend_framework: str,
    dynamo_deployment: JSON,
    number_of_nodes: int,
    operator_config: OperatorConfig,
    component_name: str,
    checkpoint_info: JSON | None,
    discovery_backend: str,
    restart_state: JSON | None,
    existing_restart_annotations: dict[str, str] | None,
    checkpoint_restore: Any,
    grove_cluster_topology_domains: list[str] | None,
) -> JSON:
    """buildCliqueForRole: one PodCliqueTemplateSpec (pod spec, replicas, metadata).

    ``checkpoint_restore`` is what ResolvePodSpecRestore returned for the component.
    """
    try:
        pod_spec = generate_pod_spec_for_role(
            role, component, backend_framework, dynamo_deployment, number_of_nodes,
            operator_config, component_name, checkpoint_info, grove_cluster_topology_domains,
        )  # fmt: skip
    except OperatorError as exc:
        raise GroveError(f"failed to generate podSpec for role {role.name}: {exc}") from exc
    gms = role.role == ROLE_GMS
    info = checkpoint_info
    policy = (info or {}).get("StartupPolicy") or ""
    admission_restore = (
        operator_config.gates.checkpoint
        and not gms
        and info is not None
        and policy in ("", STARTUP_POLICY_IMMEDIATE)
    )
    if operator_config.gates.checkpoint and not gms and not admission_restore:
        if (
            info is not None
            and info.get("Enabled")
            and info.get("Ready")
            and not checkpoint_restore
        ):
            raise GroveError(f"resolved checkpoint restore is required for role {role.name}")
        try:
            inject_resolved_checkpoint_into_pod_spec(
                pod_spec, checkpoint_restore, operator_config.checkpoint.effective_seccomp_profile()
            )
        except CheckpointRestoreError as exc:
            raise GroveError(
                f"failed to inject checkpoint config for role {role.name}: {exc}"
            ) from exc
    multinode = number_of_nodes > 1
    failover = is_inter_pod_failover_enabled(component)
    pcsg = uses_pcsg(component)
    min_available = 1
    if not pcsg and component.get("minAvailable") is not None:
        min_available = int(component["minAvailable"])
    if multinode and not failover:
        min_available = role.replicas
    replicas = role.replicas
    if (
        not gms
        and info is not None
        and info.get("Enabled")
        and policy == STARTUP_POLICY_WAIT
        and not info.get("Ready")
    ):
        replicas = 0
    clique_spec: JSON = {
        "minAvailable": min_available,
        "podSpec": pod_spec,
        "replicas": replicas,
        "roleName": to_lower(role.name),
    }
    clique: JSON = {"name": to_lower(role.name), "spec": clique_spec}
    if not pcsg:
        topology = to_grove_topology_constraint(
            component.get("topologyConstraint"),
            (dynamo_deployment.get("spec") or {}).get("topologyConstraint"),
        )
        if topology is not None:
            clique["topologyConstraint"] = topology
    labels = generate_labels(component, dynamo_deployment, component_name, discovery_backend)
    if failover and not gms:
        labels[consts.KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER] = consts.KUBE_LABEL_VALUE_TRUE
    if gms:
        # Weight-server pods never register with discovery.
        labels.pop(consts.KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND, None)
        labels.pop(consts.KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED, None)
    annotations = generate_annotations(component, dynamo_deployment, component_name)
    for key in consts.kube_topology_source_annotation_keys():
        annotations.pop(key, None)
    kvt = kv_transfer_policy(dynamo_deployment)
    if (
        not gms
        and kvt is not None
        and should_apply_kv_transfer_policy_to_worker_component(component, dynamo_deployment)
    ):
        apply_kv_transfer_policy_topology_annotations(annotations, kvt)
    if not gms:
        if admission_restore:
            apply_restore_candidate_metadata(labels, annotations, info)
        else:
            try:
                apply_restore_pod_metadata_with_storage_config(
                    labels, annotations, info, operator_config.checkpoint.storage
                )
            except CheckpointRestoreError as exc:
                raise GroveError(
                    f"failed to apply checkpoint metadata for role {role.name}: {exc}"
                ) from exc
    annotations = apply_restart_annotation(
        annotations, component_name, restart_state, existing_restart_annotations
    )
    # encoding/json omits empty maps (omitempty), so an empty one is not written.
    if labels:
        clique["labels"] = labels
    if annotations:
        clique["annotations"] = annotations
    return clique
