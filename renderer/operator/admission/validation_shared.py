"""shared_v1beta1.go for CREATE: the component rules every DGD component is checked against.

``SharedValidation`` carries what the Go ``sharedValidation`` carries for one request: the
warnings, the runtime-version source (which API version's field paths the image rule uses),
the feature gates the rules read and the oracle-side facts of the cluster (whether the
InferencePool API can be detected). Rules append ``FieldError`` values in the operator's
order so the aggregated message is the operator's text.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator.admission import provideroverride as po
from renderer.operator.admission import validation_helpers as h
from renderer.operator.admission.fielderrors import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from renderer.operator.admission.runtimeversion import VersionError, parse_image_version
from renderer.operator.backend import BackendError
from renderer.operator.dra import extract_gpu_count_from_resource_requirements
from renderer.operator.v1beta1_helpers import get_main_container_resources, is_multinode
from renderer.record import Record, field

SOURCE_V1BETA1 = "v1beta1"
SOURCE_V1ALPHA1 = "v1alpha1"

RUNTIME_VERSION_OVERRIDE_REQUIRED = (
    "is required when the specified main container image has no parseable semantic-version tag"
)
CHECKPOINT_INTER_POD_MESSAGE = "Snapshot with gpuMemoryService.mode=InterPod is unsupported"
CHECKPOINT_FAILOVER_MESSAGE = "Snapshot with active/passive failover is temporarily unsupported"

#: What the InferencePool availability check answers. The reference oracle has no discovery
#: client, so its detection always fails with this text; a cluster answers present/absent.
INFERENCE_POOL_UNDETECTABLE = (
    "detect InferencePool API availability: API detection failed, no discovery client available"
)
INFERENCE_POOL_ABSENT = (
    "InferencePool API group (inference.networking.k8s.io) is not available in the cluster; "
    "install the Gateway API Inference Extension before deploying EPP components"
)


class SharedValidation(Record):
    """sharedValidation: request-wide state and the gates the rules consult."""

    runtime_version_source: str = SOURCE_V1BETA1
    checkpoint_gate: bool = False
    #: None = available; else the error text the availability check produces.
    inference_pool_error: str | None = INFERENCE_POOL_UNDETECTABLE
    allow_checkpoint_with_interpod_gms: bool = True
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        """sharedValidation.warn."""
        self.warnings.append(message)


def check_checkpoint_compatibility(
    exp: dict[str, Any] | None, allow_interpod_gms: bool = False
) -> list[str]:
    """checkpoint.ValidateCheckpointCompatibility: the unsupported combinations, in order.

    ``allow_interpod_gms`` drops the inter-pod GMS refusal (see validation.validate).
    """
    if exp is None:
        return []
    ckpt = exp.get("checkpoint")
    if ckpt is None or not ckpt.get("enabled"):
        return []
    out: list[str] = []
    gms = exp.get("gpuMemoryService")
    # The literal mode, as the Go code compares it (an empty mode is not InterPod here).
    if gms is not None and gms.get("mode") == h.GMS_INTER_POD and not allow_interpod_gms:
        out.append(CHECKPOINT_INTER_POD_MESSAGE)
    if exp.get("failover") is not None:
        out.append(CHECKPOINT_FAILOVER_MESSAGE)
    return out


def validate_component_shared_spec(
    v: SharedValidation,
    spec: dict[str, Any],
    path: Path,
    *,
    grove_pathway: bool,
    provider_overrides_supported: bool,
    workload_provider: str,
) -> list[FieldError]:
    """validateDynamoComponentDeploymentSharedSpec (DGD options: pool check on)."""
    errs: list[FieldError] = []
    if spec.get("providerOverride") is not None:
        errs += validate_provider_override(
            spec["providerOverride"],
            path.child("providerOverride"),
            supported=provider_overrides_supported,
            workload_provider=workload_provider,
            scope=po.SCOPE_COMPONENT,
            component=spec,
        )
    if spec.get("minAvailable") is not None and not grove_pathway:
        errs.append(
            forbidden(
                path.child("minAvailable"),
                "is currently supported only for Grove-backed DynamoGraphDeployment components",
            )
        )
    multinode = spec.get("multinode")
    if multinode is not None:
        for role, scope in (
            ("leader", po.SCOPE_MULTINODE_LEADER),
            ("worker", po.SCOPE_MULTINODE_WORKER),
        ):
            role_spec = multinode.get(role)
            if role_spec is not None and role_spec.get("providerOverride") is not None:
                errs += validate_provider_override(
                    role_spec["providerOverride"],
                    path.child("multinode", role, "providerOverride"),
                    supported=provider_overrides_supported,
                    workload_provider=workload_provider,
                    scope=scope,
                    component=spec,
                )
    shm = spec.get("sharedMemorySize")
    if shm is not None and h.quantity_value(shm) < 0:
        errs.append(
            invalid(path.child("sharedMemorySize"), h.quantity_string(shm), "must be non-negative")
        )
    if spec.get("type") == "epp":
        if v.inference_pool_error is not None:
            errs.append(
                forbidden(
                    path.child("type"), f"cannot deploy EPP component: {v.inference_pool_error}"
                )
            )
        if is_multinode(spec):
            errs.append(forbidden(path.child("multinode"), "EPP component cannot be multinode"))
        replicas = spec.get("replicas")
        if replicas is not None and replicas != 1:
            errs.append(
                invalid(
                    path.child("replicas"), replicas, "EPP component must have exactly 1 replica"
                )
            )
        if spec.get("eppConfig") is None:
            errs.append(required(path.child("eppConfig"), "is required for EPP components"))
    epp = spec.get("eppConfig")
    if epp is not None:
        ref = epp.get("configMapRef")
        if ref is not None and not ref.get("name"):
            errs.append(required(path.child("eppConfig", "configMapRef", "name"), "is required"))
    sidecar = spec.get("frontendSidecar")
    if sidecar is not None:
        sidecar_path = path.child("frontendSidecar")
        if spec.get("podTemplate") is None:
            errs.append(
                required(
                    path.child("podTemplate", "spec", "containers"),
                    "is required when frontendSidecar is set",
                )
            )
        elif sidecar == "":
            errs.append(invalid(sidecar_path, sidecar, "must not be empty"))
        elif not h.has_container_named(h.containers(spec), sidecar):
            errs.append(
                invalid(sidecar_path, sidecar, "must match a podTemplate.spec.containers name")
            )
    exp = spec.get("experimental")
    if exp is not None:
        errs += validate_experimental_spec(v, exp, path.child("experimental"), spec, grove_pathway)
    if v.runtime_version_source == SOURCE_V1BETA1:
        errs += runtime_version_errors(v, spec, path)
    return errs


def runtime_version_errors(
    v: SharedValidation, spec: dict[str, Any], path: Path
) -> list[FieldError]:
    """The image semantic-version rule at v1beta1 paths (runtimeVersionImageAndPath)."""
    image_path = path.child("podTemplate", "spec", "containers")
    image = ""
    items = h.containers(spec)
    i = h.container_index(items, h.MAIN_CONTAINER_NAME)
    if spec.get("podTemplate") is not None and i >= 0:
        image_path = image_path.index(i).child("image")
        image = str(items[i].get("image") or "")
    return image_rule(image, image_path, spec.get("runtimeVersionOverride") or "", path)


def image_rule(image: str, image_path: Path, override: str, path: Path) -> list[FieldError]:
    """Required image, then runtimeVersionOverride required for a tag with no semver."""
    if image == "":
        return [required(image_path, "is required")]
    if override:
        return []
    try:
        parse_image_version(image)
    except VersionError:
        return [required(path.child("runtimeVersionOverride"), RUNTIME_VERSION_OVERRIDE_REQUIRED)]
    return []


def validate_provider_override(
    override: dict[str, Any],
    path: Path,
    *,
    supported: bool,
    workload_provider: str,
    scope: str,
    component: dict[str, Any] | None,
) -> list[FieldError]:
    """validateProviderOverride."""
    if not supported:
        return [
            forbidden(
                path,
                "provider overrides are supported only for components embedded in a "
                "DynamoGraphDeployment",
            )
        ]
    if workload_provider == "":
        return [
            forbidden(
                path,
                'requires controller-owned annotation "nvidia.com/workload-provider" to be '
                "materialized; wait for controller adoption and retry",
            )
        ]
    if workload_provider != po.WORKLOAD_PROVIDER_GROVE:
        return [
            forbidden(
                path,
                'requires workload provider "grove", but '
                f"{go_quote(workload_provider)} is selected",
            )
        ]
    api_version = override.get("apiVersion") or ""
    if api_version == "":
        return [required(path.child("apiVersion"), "is required")]
    if api_version != po.GROVE_API_VERSION:
        return [not_supported(path.child("apiVersion"), api_version, [po.GROVE_API_VERSION])]
    try:
        expected = po.expected_target(workload_provider, api_version, scope, component)
    except po.TargetError as err:
        return [forbidden(path, str(err))]
    target = override.get("target") or ""
    if target == "":
        return [required(path.child("target"), "must be defaulted from the provider context")]
    if target != expected:
        return [
            invalid(
                path.child("target"),
                target,
                f"must match the provider-context target {go_quote(expected)}",
            )
        ]
    value_path = path.child("value")
    errs: list[FieldError] = []
    for value_err in po.validate_value(target, override.get("value")):
        err_path = value_path
        if value_err.path:
            err_path = value_path.child(*value_err.path.split("."))
        if value_err.ownership_violation:
            errs.append(forbidden(err_path, value_err.detail))
        else:
            errs.append(invalid(err_path, None, value_err.detail))
    return errs


def validate_experimental_spec(
    v: SharedValidation,
    exp: dict[str, Any],
    path: Path,
    spec: dict[str, Any],
    grove_pathway: bool,
) -> list[FieldError]:
    """validateExperimentalSpec: GMS, failover, Grove, checkpoint, then compatibility."""
    errs: list[FieldError] = []
    component_type = spec.get("type") or ""
    resources = get_main_container_resources(spec)
    gms = exp.get("gpuMemoryService")
    if gms is not None:
        errs += _gms_errors(gms, path.child("gpuMemoryService"), component_type, resources, spec)
    failover = exp.get("failover")
    if failover is not None:
        errs += _failover_errors(failover, path.child("failover"), gms, component_type, resources)
    grove = exp.get("grove")
    if grove is not None and grove.get("forceScalingGroup") and not grove_pathway:
        errs.append(
            forbidden(
                path.child("grove", "forceScalingGroup"),
                "is currently supported only for Grove-backed DynamoGraphDeployment components",
            )
        )
    ckpt = exp.get("checkpoint")
    if ckpt is not None:
        ckpt_path = path.child("checkpoint")
        if ckpt.get("enabled") and not v.checkpoint_gate:
            errs.append(
                forbidden(
                    ckpt_path, "checkpoint functionality is disabled in the operator configuration"
                )
            )
        job = ckpt.get("job")
        if job is not None:
            errs += checkpoint_job_errors(job, ckpt_path.child("job"), gms)
    for message in check_checkpoint_compatibility(exp, v.allow_checkpoint_with_interpod_gms):
        errs.append(forbidden(path.child("checkpoint"), message))
    return errs


def checkpoint_job_errors(
    job: dict[str, Any], path: Path, gms: dict[str, Any] | None
) -> list[FieldError]:
    """validateComponentCheckpointJobConfig: GMS client containers need intra-pod GMS."""
    if not job.get("gmsClientContainers"):
        return []
    clients_path = path.child("gmsClientContainers")
    if gms is None:
        return [forbidden(clients_path, "requires gpuMemoryService to be set")]
    if h.effective_gms_mode(gms.get("mode")) == h.GMS_INTER_POD:
        return [forbidden(clients_path, "is only supported with gpuMemoryService.mode=IntraPod")]
    return []


def _gms_errors(
    gms: dict[str, Any],
    path: Path,
    component_type: str,
    resources: dict[str, Any],
    spec: dict[str, Any],
) -> list[FieldError]:
    """validateGPUMemoryServiceSpec."""
    errs: list[FieldError] = []
    if component_type not in ("worker", "prefill", "decode"):
        errs.append(
            forbidden(
                path,
                "GPU memory service is only supported for worker, prefill, or decode components",
            )
        )
    try:
        count = extract_gpu_count_from_resource_requirements(resources)
    except BackendError:
        count = -1
    if count < 1:
        errs.append(
            forbidden(
                path,
                "GPU memory service requires "
                "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1",
            )
        )
    if h.effective_gms_mode(gms.get("mode")) != h.GMS_INTRA_POD:
        return errs
    seen: set[str] = set()
    clients_path = path.child("extraClientContainers")
    names = h.containers(spec)
    for i, name in enumerate(gms.get("extraClientContainers") or []):
        client_path = clients_path.index(i)
        if name in seen:
            errs.append(duplicate(client_path, name))
            continue
        seen.add(name)
        if not h.has_container_named(names, name):
            errs.append(
                invalid(
                    client_path, name, "does not name a container in podTemplate.spec.containers"
                )
            )
    return errs


def _failover_errors(
    failover: dict[str, Any],
    path: Path,
    gms: dict[str, Any] | None,
    component_type: str,
    resources: dict[str, Any],
) -> list[FieldError]:
    """validateFailoverSpec."""
    errs: list[FieldError] = []
    mode = h.effective_gms_mode(failover.get("mode"))
    if gms is None:
        errs.append(
            forbidden(path, f"gpuMemoryService is required when failover mode is {go_quote(mode)}")
        )
    elif h.effective_gms_mode(gms.get("mode")) != mode:
        errs.append(
            invalid(
                path.child("mode"),
                failover.get("mode") or "",
                f"must match gpuMemoryService.mode {go_quote(gms.get('mode') or '')}",
            )
        )
    if mode == h.GMS_INTER_POD:
        try:
            count = extract_gpu_count_from_resource_requirements(resources)
        except BackendError as err:
            errs.append(forbidden(path, f"failed to read main-container GPU limit: {err}"))
        else:
            if count < 1:
                errs.append(
                    forbidden(
                        path,
                        "GMS failover requires at least 1 GPU in "
                        "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu",
                    )
                )
        if component_type in ("epp", "frontend", "planner"):
            errs.append(
                forbidden(
                    path,
                    f"GMS failover is not supported for component type {go_quote(component_type)}",
                )
            )
    return errs
