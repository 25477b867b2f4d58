"""The DCD half of internal/dynamo/graph.go: GenerateDynamoComponentsDeployments.

For each ``spec.components[]`` entry of the admitted v1beta1 DGD the operator builds one
v1beta1 DynamoComponentDeployment (``generateSingleDCD``): a deep copy of the component
spec with the DGD's backend framework, the name ``<dgd>-<lower(component)>[-<hash>]``, the
identity labels, the worker-hash label on workers, the DGD template defaults (env, propagated
annotations, spec labels/annotations), the ``nvidia.com/dcd-spec`` v1alpha1 compatibility
record, the planner's service account and the legacy ``DYN_DEPLOYMENT_CONFIG`` rewrite.

The result dicts are the Go objects (absent key = Go zero); ``printed_dcd`` turns one into
what the operator's MarshalJSON (and so the oracle) prints. Branches this emulation does not
reproduce raise :class:`NotReproducedError`; the operator's own failures raise
:class:`DCDGenerationError` with its message.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.strings import to_lower as _go_lower
from renderer.jsoncopy import deep_copy
from renderer.operator import consts as c
from renderer.operator import dcd_alpha, graph_env
from renderer.operator.backend import BackendError, backend_framework_for_generated_dcds
from renderer.operator.dyn_deployment_config import apply_dyn_deployment_config
from renderer.operator.graph_env import apply_dgd_template_defaults as apply
from renderer.operator.graph_env import is_worker_component, merge_envs
from renderer.operator.graph_errors import DCDGenerationError
from renderer.operator.v1beta1_helpers import (
    compute_dynamo_namespace,
    ensure_main_container,
    ensure_pod_template,
    get_component_by_name,
    get_main_container,
    get_pod_template_annotations,
    get_pod_template_labels,
    has_epp_component,
    merge_low_priority_metadata,
)
from renderer.operator.v1beta1_marshal import marshal_root
from renderer.record import Record, field

JSON = dict[str, Any]
DCD_TYPE = "github.com/ai-dynamo/dynamo/deploy/operator/api/v1beta1.DynamoComponentDeployment"
API_VERSION = c.API_VERSION_V1BETA1
KIND = c.DCD_KIND

__all__ = [
    "DCDGenerationError",
    "RestartState",
    "RollingUpdateContext",
    "compute_dynamo_namespace",
    "ensure_main_container",
    "ensure_pod_template",
    "generate_dynamo_components_deployments",
    "generate_single_dcd",
    "get_dcd_resource_name",
    "get_dynamo_namespace",
    "get_main_container",
    "get_pod_template_annotations",
    "get_pod_template_labels",
    "is_worker_component",
    "merge_envs",
    "merge_low_priority_metadata",
    "normalize_kube_resource_name",
    "printed_dcd",
    "printed_dcds",
]


class RestartState(Record):
    """RestartState: the restart timestamp and the components that carry it."""

    timestamp: str = ""
    components_to_annotate: dict[str, bool] | None = None

    def should_annotate_component(self, component_name: str) -> bool:
        return bool((self.components_to_annotate or {}).get(component_name))


class RollingUpdateContext(Record):
    """RollingUpdateContext; the oracle's steady state is ``RollingUpdateContext(hash)``."""

    new_worker_hash: str = ""
    old_worker_replica_targets_by_component: dict[str, int] = field(default_factory=dict)
    old_worker_replica_targets_by_dcd: dict[str, int] = field(default_factory=dict)
    new_worker_replica_targets_by_component: dict[str, int] = field(default_factory=dict)

    def in_progress(self) -> bool:
        return len(self.old_worker_replica_targets_by_component) > 0


def get_dynamo_namespace(obj: JSON, service: JSON) -> str:
    """GetDynamoNamespace (also GetDynamoNamespaceForComponent on the DGD)."""
    meta = obj.get("metadata") or {}
    return compute_dynamo_namespace(
        bool(service.get("globalDynamoNamespace")),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


def get_dcd_resource_name(dgd: JSON, component_name: str, worker_suffix: str) -> str:
    """GetDCDResourceName: workers get ``-<suffix>`` when one is given."""
    base = f"{(dgd.get('metadata') or {}).get('name') or ''}-{_go_lower(component_name)}"
    spec = get_component_by_name(dgd, component_name)
    if spec is not None and is_worker_component(spec.get("type", "")) and worker_suffix:
        return base + "-" + worker_suffix
    return base


def normalize_kube_resource_name(name: str) -> str:
    """NormalizeKubeResourceName: dots to dashes, lowercase."""
    return _go_lower(name.replace(".", "-"))


def apply_dgd_template_defaults(component: JSON, dgd: JSON) -> None:
    """applyDGDTemplateDefaults for the DCD path (no Grove topology domains)."""
    apply(component, dgd, None)
    # corev1.EnvVar is a value: a DCD must not share env entries with the DGD or another DCD.
    main = get_main_container(component)
    if main is not None and main.get("env"):
        main["env"] = deep_copy(main["env"])


# --- GenerateDynamoComponentsDeployments ----------------------------------------------------


def _go_quote_list(items: list[str]) -> str:
    return "[" + " ".join(go_quote(i) for i in items) + "]"


def gms_extra_client_containers_error(gms: JSON, containers: list[JSON]) -> str | None:
    """gmsExtraClientContainersError: duplicate or missing client container names."""
    names = {ctr.get("name", "") for ctr in containers}
    seen: set[str] = set()
    missing: list[str] = []
    duplicate: list[str] = []
    for name in gms.get("extraClientContainers") or []:
        if name in seen:
            duplicate.append(name)
            continue
        seen.add(name)
        if name not in names:
            missing.append(name)
    if not missing and not duplicate:
        return None
    problems = []
    if duplicate:
        problems.append(f"contains duplicate names {_go_quote_list(sorted(duplicate))}")
    if missing:
        problems.append(f"references missing pod containers {_go_quote_list(sorted(missing))}")
    return "gpuMemoryService.extraClientContainers " + "; ".join(problems)


def generate_dynamo_components_deployments(
    parent_dgd: JSON,
    restart_state: RestartState | None,
    existing_restart_annotations: dict[str, str] | None,
    rolling_update_ctx: RollingUpdateContext,
) -> dict[str, JSON]:
    """GenerateDynamoComponentsDeployments: component name -> DCD (Go object form)."""
    try:
        backend_framework = backend_framework_for_generated_dcds(parent_dgd)
    except BackendError as err:
        raise DCDGenerationError(str(err)) from None
    deployments: dict[str, JSON] = {}
    for component in (parent_dgd.get("spec") or {}).get("components") or []:
        name = component.get("name", "")
        gms = (component.get("experimental") or {}).get("gpuMemoryService")
        if gms is not None and gms.get("mode") != "InterPod":
            containers = ((component.get("podTemplate") or {}).get("spec") or {}).get(
                "containers"
            ) or []
            problem = gms_extra_client_containers_error(gms, containers)
            if problem:
                raise DCDGenerationError(f"component {_go_quote_one(name)}: {problem}")
        dynamo_namespace = get_dynamo_namespace(parent_dgd, component)
        deployments[name] = generate_single_dcd(
            parent_dgd,
            name,
            component,
            dynamo_namespace,
            backend_framework,
            restart_state,
            existing_restart_annotations,
            rolling_update_ctx,
        )
    return deployments


def _go_quote_one(text: str) -> str:
    return go_quote(text)


def generate_single_dcd(  # noqa: PLR0917 - Go parameter order, by convention
    parent_dgd: JSON,
    component_name: str,
    component: JSON,
    dynamo_namespace: str,
    backend_framework: str,
    restart_state: RestartState | None,
    existing_restart_annotations: dict[str, str] | None,
    rolling_update_ctx: RollingUpdateContext,
) -> JSON:
    """generateSingleDCD: one component's DynamoComponentDeployment."""
    meta = parent_dgd.get("metadata") or {}
    spec: JSON = deep_copy(component)
    if backend_framework:
        spec["backendFramework"] = backend_framework
    else:
        spec.pop("backendFramework", None)
    dcd_meta: JSON = {
        "name": get_dcd_resource_name(
            parent_dgd, component_name, rolling_update_ctx.new_worker_hash
        )
    }
    if meta.get("namespace"):
        dcd_meta["namespace"] = meta["namespace"]
    deployment: JSON = {"apiVersion": API_VERSION, "kind": KIND, "metadata": dcd_meta, "spec": spec}

    apply_dgd_component_alpha_compatibility_to_dcd(parent_dgd, component_name, deployment)
    for key in c.kube_topology_source_annotation_keys():
        (dcd_meta.get("annotations") or {}).pop(key, None)

    labels: dict[str, str] = dict(get_pod_template_labels(spec) or {})
    labels[c.KUBE_LABEL_DYNAMO_COMPONENT] = component_name
    labels[c.KUBE_LABEL_DYNAMO_NAMESPACE] = dynamo_namespace
    labels[c.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = meta.get("name", "")
    dcd_meta["labels"] = labels

    ctype = spec.get("type", "")
    if is_worker_component(ctype):
        labels[c.KUBE_LABEL_DYNAMO_WORKER_HASH] = rolling_update_ctx.new_worker_hash
        tpl = ensure_pod_template(spec)
        tpl["metadata"]["labels"][c.KUBE_LABEL_DYNAMO_WORKER_HASH] = (
            rolling_update_ctx.new_worker_hash
        )
        if has_epp_component(parent_dgd):
            labels[c.KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = c.COMPONENT_CLASS_WORKER
            tpl["metadata"]["labels"][c.KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = (
                c.COMPONENT_CLASS_WORKER
            )

    if ctype == c.COMPONENT_TYPE_EPP:
        tpl = ensure_pod_template(spec)
        tpl["metadata"]["annotations"].setdefault(c.KUBE_ANNOTATION_ISTIO_SIDECAR_INJECT, "false")

    apply_dgd_template_defaults(spec, parent_dgd)

    if graph_env.should_apply_kv_transfer_policy_to_worker_component(spec, parent_dgd):
        # The topology label controller reads these from the DCD and copies them to pods.
        kvt = parent_dgd["spec"]["experimental"]["kvTransferPolicy"]
        graph_env.apply_kv_transfer_policy_topology_annotations(
            dcd_meta.setdefault("annotations", {}), kvt
        )

    if restart_state is not None and restart_state.should_annotate_component(component_name):
        ensure_pod_template(spec)["metadata"]["annotations"][c.RESTART_ANNOTATION] = (
            restart_state.timestamp
        )
    elif existing_restart_annotations and existing_restart_annotations.get(component_name):
        ensure_pod_template(spec)["metadata"]["annotations"][c.RESTART_ANNOTATION] = (
            existing_restart_annotations[component_name]
        )

    if ctype == c.COMPONENT_TYPE_PLANNER:
        ensure_pod_template(spec).setdefault("spec", {})["serviceAccountName"] = (
            c.PLANNER_SERVICE_ACCOUNT_NAME
        )

    apply_dyn_deployment_config(deployment, c.DYNAMO_SERVICE_PORT)

    targets = rolling_update_ctx.new_worker_replica_targets_by_component
    if (
        rolling_update_ctx.in_progress()
        and is_worker_component(ctype)
        and component_name in targets
    ):
        spec["replicas"] = targets[component_name]
    elif component.get("replicas") is not None:
        spec["replicas"] = component["replicas"]
    return deployment


def apply_dgd_component_alpha_compatibility_to_dcd(
    parent_dgd: JSON, component_name: str, dcd: JSON
) -> None:
    """applyDGDComponentAlphaCompatibilityToDCD: the carrier's nvidia.com/dcd-spec record."""
    alpha = get_dgd_alpha_component(parent_dgd, component_name)
    if alpha is None:
        return
    # ConvertTo of the carrier: v1beta1 requires spec.name, so an empty alpha serviceName
    # falls back to the DCD name, and the sparse record notes that it was empty.
    empty_service_name = not alpha.get("serviceName") and bool(dcd["metadata"].get("name"))
    save = dcd_alpha.spoke_save(alpha)
    dcd["metadata"].setdefault("annotations", {})[dcd_alpha.ANN_DCD_SPEC] = (
        dcd_alpha.dcd_spec_annotation(save, empty_service_name)
    )


def get_dgd_alpha_component(dgd: JSON, component_name: str) -> JSON | None:
    """getDGDAlphaComponent: the v1alpha1 service ConvertFrom gives for one component."""
    component = get_component_by_name(dgd, component_name)
    if component is None:
        return None
    preserved = dcd_alpha.preserved_dgd_component(dgd, component_name)
    alpha = dcd_alpha.alpha_from_hub(component, preserved)
    saved_name = (preserved or {}).get("serviceName", "")
    if saved_name and saved_name != component_name:
        alpha["serviceName"] = saved_name  # restoreDGDAlphaOnlySpecFromSaved
    return alpha


def get_dgd_component_alpha_labels(dgd: JSON, component_name: str) -> dict[str, str] | None:
    alpha = get_dgd_alpha_component(dgd, component_name)
    return None if alpha is None else alpha.get("labels")


def get_dgd_component_alpha_annotations(dgd: JSON, component_name: str) -> dict[str, str] | None:
    alpha = get_dgd_alpha_component(dgd, component_name)
    return None if alpha is None else alpha.get("annotations")


def get_dgd_component_resource_labels(
    dgd: JSON | None, component_name: str, component: JSON
) -> dict[str, str]:
    """GetDGDComponentResourceLabels: DGD spec labels < preserved alpha labels < pod template."""
    labels: dict[str, str] = {}
    if dgd is not None:
        labels.update((dgd.get("spec") or {}).get("labels") or {})
        labels.update(get_dgd_component_alpha_labels(dgd, component_name) or {})
    labels.update(get_pod_template_labels(component) or {})
    return labels


def get_dgd_component_resource_annotations(
    dgd: JSON | None, component_name: str, component: JSON
) -> dict[str, str]:
    """GetDGDComponentResourceAnnotations: the same precedence for annotations."""
    annotations: dict[str, str] = {}
    if dgd is not None:
        annotations.update((dgd.get("spec") or {}).get("annotations") or {})
        annotations.update(get_dgd_component_alpha_annotations(dgd, component_name) or {})
    annotations.update(get_pod_template_annotations(component) or {})
    return annotations


def printed_dcd(dcd: JSON) -> JSON:
    """The DCD as the oracle prints it (Go marshal, then v1beta1's empty-struct strip)."""

    out: JSON = marshal_root(dcd, DCD_TYPE)
    return out


def printed_dcds(dcds: dict[str, JSON]) -> list[JSON]:
    """All DCDs as printed, sorted by object name as the oracle writes them."""
    return sorted(
        (printed_dcd(d) for d in dcds.values()), key=lambda d: str(d["metadata"].get("name", ""))
    )
