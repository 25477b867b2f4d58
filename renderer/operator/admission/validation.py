"""DynamoGraphDeploymentValidator.Validate for CREATE (internal/webhook/validation).

``validate(admitted_dgd, config, ...)`` runs the validating webhook on the v1beta1 DGD the
defaulting webhook produced, for a regular (non-admin) user, in the operator's order:
metadata annotations, the spec (root provider override, priority class, per component: Grove
resource-name length, inter-pod GMS, power-limit annotation, elastic EP, the shared component
rules of validation_shared), restart order, topology constraints, the KV transfer policy, then
the v1alpha1 compatibility pass (validation_v1alpha1). It returns the admission warnings or
raises ``AdmissionError`` with the operator's text
(``admission webhook denied the request: DynamoGraphDeployment.nvidia.com "x" is invalid: ...``).

``check_controller_preflight`` is the controller's checkpoint compatibility preflight
(``controller rejected the DGD: ...``).

Deliberate difference, on by default: ``allow_checkpoint_with_interpod_gms=True`` skips the
operator's refusal of checkpointing together with ``gpuMemoryService.mode: InterPod`` (in the
webhook and in the preflight), because the project's checkpoint binding covers that layout
(engine cliques bound, GMS cliques never). Pass False to get the pinned operator's answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from renderer.goruntime.strconv import parse_int
from renderer.goruntime.strconv import quote as go_quote
from renderer.operator import consts
from renderer.operator.admission import provideroverride as po
from renderer.operator.admission import validation_helpers as h
from renderer.operator.admission.errors import AdmissionError, PathTuple
from renderer.operator.admission.fielderrors import (
    FieldError,
    Path,
    aggregate_text,
    forbidden,
    invalid,
    invalid_status_message,
    new_path,
    not_supported,
    required,
)
from renderer.operator.admission.runtimeversion import loose_semver_ok
from renderer.operator.admission.validation_shared import (
    INFERENCE_POOL_UNDETECTABLE,
    SOURCE_V1ALPHA1,
    SOURCE_V1BETA1,
    SharedValidation,
    check_checkpoint_compatibility,
    validate_component_shared_spec,
    validate_provider_override,
)
from renderer.operator.admission.validation_topology import (
    component_constraint_errors,
    override_composition_errors,
)
from renderer.operator.admission.validation_v1alpha1 import (
    ANNOTATION_VLLM_BACKEND,
    alpha_view_from_hub,
    check_status_annotation,
    invalid_vllm_backend,
    validate_dgd_v1alpha1,
)
from renderer.operator.backend_vllm import is_elastic_ep_ray_launch
from renderer.operator.config import OperatorConfig
from renderer.operator.graph_grove_roles import pcs_name_for_dgd

GROUP_KIND = "DynamoGraphDeployment.nvidia.com"
WEBHOOK_PREFIX = "admission webhook denied the request: "
#: alphaDynamoGraphDeploymentForValidation's wrapping of a ConvertFrom error.
_COMPATIBILITY_VIEW = (
    "cannot validate preserved v1alpha1 DynamoGraphDeployment fields:"
    " failed to reconstruct compatibility view: "
)
PREFLIGHT_PREFIX = "controller rejected the DGD: "

ANNOTATION_ORIGIN_VERSION = consts.KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION
ANNOTATION_GROVE_UPDATE_STRATEGY = consts.KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY
ANNOTATION_DISCOVERY_MODE = consts.KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE
GROVE_UPDATE_STRATEGIES = ["RollingRecreate", "OnDelete"]

_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    r"for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_NOT_FOUND = "references a ClusterTopologyBinding resource that was not found"


def validate(
    admitted_dgd: dict[str, Any],
    config: OperatorConfig | None = None,
    *,
    request_version: str = SOURCE_V1BETA1,
    alpha_source: dict[str, Any] | None = None,
    input_doc: dict[str, Any] | None = None,
    allow_checkpoint_with_interpod_gms: bool = True,
    inference_pool_error: str | None = INFERENCE_POOL_UNDETECTABLE,
    cluster_topologies: Mapping[str, list[str]] | None = None,
) -> list[str]:
    """Validate a CREATE of ``admitted_dgd``; the warnings, or AdmissionError.

    ``request_version`` is the API version the DGD was written in (``v1alpha1`` or
    ``v1beta1``); for v1alpha1, ``alpha_source`` is that document after the v1alpha1 CRD
    defaults. ``input_doc`` (the document as written) lets the error's path point into it.
    ``cluster_topologies`` maps ClusterTopologyBinding names to their level domains in order
    (the reference oracle's cluster has none). ``inference_pool_error`` is what detecting the
    InferencePool API answers (None = available).
    """
    cfg = config if config is not None else OperatorConfig()
    v = SharedValidation(
        runtime_version_source=request_version,
        checkpoint_gate=cfg.gates.checkpoint,
        inference_pool_error=inference_pool_error,
        allow_checkpoint_with_interpod_gms=allow_checkpoint_with_interpod_gms,
    )
    topologies = dict(cluster_topologies or {})
    errs = _validate_dgd(v, admitted_dgd, cfg.gates.grove, topologies)
    status_error = check_status_annotation(admitted_dgd)
    metadata = admitted_dgd.get("metadata") or {}
    if request_version == SOURCE_V1ALPHA1:
        if alpha_source is None:
            raise ValueError("a v1alpha1 request needs its v1alpha1 document (alpha_source)")
        alpha = alpha_source
    else:
        if status_error is not None:  # ConvertFrom decodes the status before the spec
            raise AdmissionError(
                WEBHOOK_PREFIX + _COMPATIBILITY_VIEW + status_error,
                ("metadata", "annotations", consts.DGD_STATUS_ANNOTATION),
            )
        _check_compatibility_view(admitted_dgd)
        alpha = alpha_view_from_hub(admitted_dgd)
    errs += validate_dgd_v1alpha1(
        v, alpha, str(metadata.get("name") or ""), str(metadata.get("namespace") or "")
    )
    if errs:
        raise _admission_error(
            WEBHOOK_PREFIX
            + invalid_status_message(GROUP_KIND, str(metadata.get("name") or ""), errs),
            errs,
            admitted_dgd,
            request_version=request_version,
            input_doc=input_doc,
            warnings=tuple(v.warnings),
        )
    return v.warnings


def _check_compatibility_view(admitted_dgd: dict[str, Any]) -> None:
    """alphaDynamoGraphDeploymentForValidation's ConvertFrom error for two components of
    one name (a v1alpha1 services map holds one): it stops the webhook before its field
    errors are reported."""
    seen: set[str] = set()
    for i, component in enumerate((admitted_dgd.get("spec") or {}).get("components") or []):
        name = str(component.get("name") or "")
        if name in seen:
            raise AdmissionError(
                WEBHOOK_PREFIX + _COMPATIBILITY_VIEW + "duplicate component name"
                f" {go_quote(name)} in spec.components",
                ("spec", "components", i, "name"),
            )
        seen.add(name)


def check_controller_preflight(
    admitted_dgd: dict[str, Any], *, allow_checkpoint_with_interpod_gms: bool = True
) -> None:
    """The controller's ValidateCheckpointCompatibility preflight; AdmissionError on failure."""
    messages: list[str] = []
    first: PathTuple = ()
    for i, component in enumerate((admitted_dgd.get("spec") or {}).get("components") or []):
        found = check_checkpoint_compatibility(
            component.get("experimental"), allow_checkpoint_with_interpod_gms
        )
        for message in found:
            if not first:
                first = ("spec", "components", i, "experimental", "checkpoint")
            messages.append(f"component {go_quote(str(component.get('name') or ''))}: {message}")
    if messages:
        raise AdmissionError(PREFLIGHT_PREFIX + "\n".join(messages), first)


# --- metadata -----------------------------------------------------------------------------


def _validate_dgd(
    v: SharedValidation, dgd: dict[str, Any], grove_enabled: bool, topologies: dict[str, list[str]]
) -> list[FieldError]:
    """validateDynamoGraphDeployment."""
    metadata = dgd.get("metadata") or {}
    spec = dgd.get("spec") or {}
    errs = _validate_object_meta(metadata, new_path("metadata"), h.has_intra_pod_failover(spec))
    pathway, requirement = h.grove_pathway(grove_enabled, dgd)
    provider = str((metadata.get("annotations") or {}).get(h.ANNOTATION_WORKLOAD_PROVIDER, ""))
    errs += _validate_spec(
        v,
        spec,
        new_path("spec"),
        dgd_name=str(metadata.get("name") or ""),
        generation=int(metadata.get("generation") or 0),
        workload_provider=provider,
        grove_pathway=pathway,
        requirement=requirement,
        topologies=topologies,
    )
    return errs


def _validate_object_meta(
    metadata: dict[str, Any], path: Path, intra_pod_failover: bool
) -> list[FieldError]:
    """validateObjectMeta."""
    annotations = metadata.get("annotations") or {}
    ann_path = path.child("annotations")
    errs: list[FieldError] = []
    if ANNOTATION_ORIGIN_VERSION in annotations:
        value = str(annotations[ANNOTATION_ORIGIN_VERSION])
        if not loose_semver_ok(value):
            errs.append(
                invalid(ann_path.key(ANNOTATION_ORIGIN_VERSION), value, "must be valid semver")
            )
    bad = invalid_vllm_backend(annotations)
    if bad is not None:
        errs.append(invalid(ann_path.key(ANNOTATION_VLLM_BACKEND), bad, 'must be "mp" or "ray"'))
    strategy = annotations.get(ANNOTATION_GROVE_UPDATE_STRATEGY)
    if strategy is not None and strategy not in GROVE_UPDATE_STRATEGIES:
        errs.append(
            not_supported(
                ann_path.key(ANNOTATION_GROVE_UPDATE_STRATEGY), strategy, GROVE_UPDATE_STRATEGIES
            )
        )
    mode = annotations.get(ANNOTATION_DISCOVERY_MODE)
    if mode is not None and mode not in ("pod", "container"):
        errs.append(
            not_supported(ann_path.key(ANNOTATION_DISCOVERY_MODE), mode, ["pod", "container"])
        )
    provider = annotations.get(h.ANNOTATION_WORKLOAD_PROVIDER)
    if provider is not None and provider not in ("component", "grove"):
        errs.append(
            not_supported(
                ann_path.key(h.ANNOTATION_WORKLOAD_PROVIDER), provider, ["component", "grove"]
            )
        )
    if intra_pod_failover and annotations.get(ANNOTATION_DISCOVERY_MODE) != "container":
        errs.append(
            invalid(
                ann_path.key(ANNOTATION_DISCOVERY_MODE),
                str(annotations.get(ANNOTATION_DISCOVERY_MODE) or ""),
                'must be "container" when intra-pod failover is configured',
            )
        )
    return errs


# --- spec ---------------------------------------------------------------------------------


def _validate_spec(
    v: SharedValidation,
    spec: dict[str, Any],
    path: Path,
    *,
    dgd_name: str,
    generation: int,
    workload_provider: str,
    grove_pathway: bool,
    requirement: str,
    topologies: dict[str, list[str]],
) -> list[FieldError]:
    """validateDynamoGraphDeploymentSpec."""
    errs: list[FieldError] = []
    if spec.get("providerOverride") is not None:
        errs += validate_provider_override(
            spec["providerOverride"],
            path.child("providerOverride"),
            supported=True,
            workload_provider=workload_provider,
            scope=po.SCOPE_ROOT,
            component=None,
        )
    if spec.get("priorityClassName") and not grove_pathway:
        errs.append(forbidden(path.child("priorityClassName"), requirement))
    components: list[dict[str, Any]] = list(spec.get("components") or [])
    components_path = path.child("components")
    if not components:
        errs.append(required(components_path, "must have at least one component"))
    backend = str(spec.get("backendFramework") or "")
    pcs = pcs_name_for_dgd(dgd_name, components) if grove_pathway else ""
    for i, component in enumerate(components):
        cpath = components_path.index(i)
        name = str(component.get("name") or "")
        if grove_pathway:
            length, detail = h.component_resource_name_length(dgd_name, components, component, pcs)
            if length > h.MAX_COMBINED_RESOURCE_NAME_LENGTH:
                errs.append(
                    invalid(
                        cpath.child("name"),
                        name,
                        f"combined resource name length {length} exceeds the "
                        f"{h.MAX_COMBINED_RESOURCE_NAME_LENGTH}-character pod-name limit "
                        f"({detail}); shorten DynamoGraphDeployment name {go_quote(dgd_name)} "
                        f"or component name {go_quote(name)}",
                    )
                )
        gms = h.gms_for(component)
        if gms is not None and h.effective_gms_mode(gms.get("mode")) == h.GMS_INTER_POD:
            mode_path = cpath.child("experimental", "gpuMemoryService", "mode")
            if not grove_pathway:
                errs.append(forbidden(mode_path, requirement))
            if backend != "vllm":
                errs.append(
                    invalid(
                        mode_path,
                        gms.get("mode") or "",
                        "the inter-pod GMS layout is currently supported only for vLLM "
                        f"(detected backend: {backend or h.UNSET_VALUE})",
                    )
                )
        errs += _power_annotation_errors(component, cpath)
        errs += _elastic_ep_errors(backend, component, cpath)
        errs += validate_component_shared_spec(
            v,
            component,
            cpath,
            grove_pathway=grove_pathway,
            provider_overrides_supported=True,
            workload_provider=workload_provider,
        )
    restart = spec.get("restart")
    if restart is not None and restart.get("strategy") is not None:
        errs += _restart_errors(restart["strategy"], path.child("restart", "strategy"), components)
    errs += _topology_errors(
        spec,
        path,
        workload_provider,
        generation=generation,
        grove_pathway=grove_pathway,
        topologies=topologies,
    )
    policy = (spec.get("experimental") or {}).get("kvTransferPolicy")
    if policy is not None:
        errs += _kv_transfer_policy_errors(
            policy,
            path.child("experimental", "kvTransferPolicy"),
            generation=generation,
            grove_pathway=grove_pathway,
            requirement=requirement,
            topologies=topologies,
        )
    return errs


def _power_annotation_errors(component: dict[str, Any], cpath: Path) -> list[FieldError]:
    """validateDGDComponentPowerAnnotation."""
    value, present = h.power_limit(component)
    if not present:
        return []
    errs: list[FieldError] = []
    limit_path = cpath.child("podTemplate", "metadata", "annotations").key(
        h.ANNOTATION_GPU_POWER_LIMIT
    )
    watts = parse_int(value)
    if watts is None:
        errs.append(invalid(limit_path, value, "must be a decimal integer"))
    elif watts <= 0:
        errs.append(invalid(limit_path, value, "must be greater than zero"))
    dra_path = _dra_path(component, cpath)
    if dra_path is not None:
        errs.append(
            forbidden(
                dra_path,
                f'cannot be combined with annotation "{h.ANNOTATION_GPU_POWER_LIMIT}": '
                "power-aware planning does not support DRA-backed device allocation",
            )
        )
    return errs


def _dra_path(component: dict[str, Any], cpath: Path) -> Path | None:
    """dgdDRAPath: GMS, or the first container consuming a resource claim."""
    if h.gms_for(component) is not None:
        return cpath.child("experimental", "gpuMemoryService")
    template = component.get("podTemplate")
    if template is None:
        return None
    pod = template.get("spec") or {}
    for kind in ("containers", "initContainers"):
        for i, container in enumerate(pod.get(kind) or []):
            if (container.get("resources") or {}).get("claims"):
                return (
                    cpath.child("podTemplate", "spec", kind).index(i).child("resources", "claims")
                )
    return None


def _elastic_ep_errors(backend: str, component: dict[str, Any], cpath: Path) -> list[FieldError]:
    """validateElasticEPRequiresCommand."""
    if backend != "vllm" or component.get("podTemplate") is None:
        return []
    items = h.containers(component)
    i = h.container_index(items, h.MAIN_CONTAINER_NAME)
    if i < 0:
        return []
    main = items[i]
    if main.get("command") or not is_elastic_ep_ray_launch(main):
        return []
    return [
        required(
            cpath.child("podTemplate", "spec", "containers").index(i).child("command"),
            "elastic expert parallelism (--enable-elastic-ep with --data-parallel-backend ray) "
            "requires an explicit container command; the operator starts the single-pod Ray head "
            "by wrapping that command and cannot start it from the image ENTRYPOINT",
        )
    ]


def _restart_errors(
    strategy: dict[str, Any], path: Path, components: list[dict[str, Any]]
) -> list[FieldError]:
    """validateRestartStrategy."""
    order = [str(x) for x in strategy.get("order") or []]
    if not order:
        return []
    order_path = path.child("order")
    if strategy.get("type") == "Parallel":
        return [forbidden(order_path, "cannot be specified when strategy is parallel")]
    names = {str(c.get("name") or "") for c in components}
    errs: list[FieldError] = []
    unique = list(dict.fromkeys(order))
    if len(unique) != len(order):
        errs.append(invalid(order_path, order, "must be unique"))
    if len(unique) != len(names):
        errs.append(
            invalid(
                order_path,
                order,
                "must have the same number of unique components as the deployment",
            )
        )
    for i, name in enumerate(order):
        if name not in names:
            errs.append(not_supported(order_path.index(i), name, sorted(names)))
    return errs


def _go_list(items: list[str]) -> str:
    """fmt %v of a []string."""
    return "[" + " ".join(items) + "]"


def _topology_errors(
    spec: dict[str, Any],
    path: Path,
    provider: str,
    *,
    generation: int,
    grove_pathway: bool,
    topologies: dict[str, list[str]],
) -> list[FieldError]:
    """The topology-constraint block of validateDynamoGraphDeploymentSpec."""
    components = list(spec.get("components") or [])
    has_component = any(c.get("topologyConstraint") is not None for c in components)
    constraint = spec.get("topologyConstraint")
    if constraint is None and not has_component:
        return []
    errs = override_composition_errors(spec, provider, path)
    constraint_path = path.child("topologyConstraint")
    if constraint is None:
        errs.append(
            required(constraint_path, "is required when any component topology constraint is set")
        )
        return errs
    pack = str(constraint.get("packDomain") or "")
    if pack == "" and not has_component:
        errs.append(
            required(
                constraint_path.child("packDomain"),
                "is required when no component topologyConstraint is set",
            )
        )
    name = str(constraint.get("clusterTopologyName") or "")
    info: tuple[str, list[str]] | None = None
    if name and generation <= 1 and grove_pathway:
        if name in topologies:
            info = (name, topologies[name])
        else:
            errs.append(invalid(constraint_path.child("clusterTopologyName"), name, _NOT_FOUND))
    if info is not None and pack and pack not in info[1]:
        errs.append(
            invalid(
                constraint_path.child("packDomain"),
                pack,
                f"does not exist in ClusterTopologyBinding {go_quote(info[0])}; "
                f"available domains: {_go_list(sorted(info[1]))}",
            )
        )
    for i, component in enumerate(components):
        cc = component.get("topologyConstraint")
        if cc is not None:
            errs += component_constraint_errors(
                cc, path.child("components").index(i).child("topologyConstraint"), pack, info
            )
    return errs


def _kv_transfer_policy_errors(
    policy: dict[str, Any],
    path: Path,
    *,
    generation: int,
    grove_pathway: bool,
    requirement: str,
    topologies: dict[str, list[str]],
) -> list[FieldError]:
    """validateKvTransferPolicy."""
    name = str(policy.get("clusterTopologyName") or "")
    if not name:
        return []
    name_path = path.child("clusterTopologyName")
    errs: list[FieldError] = []
    problems: list[str] = []
    if len(name) > 253:
        problems.append("must be no more than 253 characters")
    if (
        re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", name)
        is None
    ):
        problems.append(_DNS1123_SUBDOMAIN_MSG)
    if problems:
        errs.append(invalid(name_path, name, "; ".join(problems)))
    if not grove_pathway:
        errs.append(forbidden(name_path, requirement))
    if errs or generation > 1:
        return errs
    if name not in topologies:
        return [invalid(name_path, name, _NOT_FOUND)]
    domain = str(policy.get("domain") or "")
    if domain not in topologies[name]:
        errs.append(
            invalid(
                path.child("domain"),
                domain,
                f"does not exist in ClusterTopologyBinding {go_quote(name)}; "
                f"available domains: {_go_list(sorted(topologies[name]))}",
            )
        )
    return errs


# --- the error ----------------------------------------------------------------------------


def _admission_error(
    message: str,
    errs: list[FieldError],
    dgd: dict[str, Any],
    *,
    request_version: str,
    input_doc: dict[str, Any] | None,
    warnings: tuple[str, ...],
) -> AdmissionError:
    from renderer.operator.admission.validation_paths import to_input_path  # noqa: PLC0415 - error paths only for a DGD admission refuses

    _, kept = aggregate_text(errs)
    causes = tuple(
        (str(e), to_input_path(e.field.as_tuple(), dgd, request_version, input_doc)) for e in kept
    )
    return AdmissionError(message, causes[0][1], causes, warnings)
