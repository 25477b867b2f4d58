"""The v1alpha1 compatibility checks (dynamographdeployment_v1alpha1.go, shared_v1alpha1.go).

The operator validates a v1beta1 DGD twice: as v1beta1, then as the v1alpha1 view
``ConvertFrom`` rebuilds from it. The second pass runs when the view carries a field only
v1alpha1 has (``hasV1Alpha1CompatibilityFields``) or when the request came as v1alpha1 (then
the image rule is checked at v1alpha1 paths, ``spec.services[Name]...``).

The view: for a v1alpha1 request it is the request itself (as the API server defaulted it:
conversion round-trips every field these rules read); for a v1beta1 request it is built from
the fields ConvertFrom maps back (``alpha_view_from_hub``), plus the v1alpha1-only fields a
``nvidia.com/dgd-spec`` preservation annotation carries.
"""

from __future__ import annotations

from typing import Any

from renderer.gojson import TooDeepError, loads
from renderer.goruntime.encoding_json import DecodeError, decode
from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.strings import to_lower
from renderer.goruntime.typetable import ALPHA, struct_type
from renderer.operator import consts
from renderer.operator.admission import validation_helpers as h
from renderer.operator.admission.conversion import load_preserved_spec
from renderer.operator.admission.conversion_spec import gms_mode_from_v1beta1
from renderer.operator.admission.errors import NotReproducedError
from renderer.operator.admission.fielderrors import (
    FieldError,
    Path,
    forbidden,
    invalid,
    new_path,
    required,
)
from renderer.operator.admission.validation_shared import (
    SOURCE_V1ALPHA1,
    SharedValidation,
    image_rule,
)
from renderer.operator.dcd_alpha import restore_preserved_spec
from renderer.operator.v1beta1_helpers import compute_dynamo_namespace

ANNOTATION_VLLM_BACKEND = consts.KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND
ANNOTATION_DGD_SPEC = consts.DGD_SPEC_ANNOTATION
ANNOTATION_DGD_STATUS = consts.DGD_STATUS_ANNOTATION
FRONTEND_SIDECAR_CONTAINER_NAME = consts.FRONTEND_SIDECAR_CONTAINER_NAME
GLOBAL_DYNAMO_NAMESPACE = consts.GLOBAL_DYNAMO_NAMESPACE

# Fields v1alpha1 keeps only through the preservation annotation.
_ALPHA_ONLY_SERVICE_FIELDS = (
    "annotations",
    "dynamoNamespace",
    "autoscaling",
    "ingress",
    "volumeMounts",
    "frontendSidecar",
)


def invalid_vllm_backend(annotations: dict[str, Any] | None) -> str | None:
    """invalidVLLMDistributedExecutorBackendAnnotation: the bad value, or None."""
    if not annotations or ANNOTATION_VLLM_BACKEND not in annotations:
        return None
    value = str(annotations[ANNOTATION_VLLM_BACKEND])
    return None if to_lower(value) in ("mp", "ray") else value


def alpha_view_from_hub(dgd: dict[str, Any]) -> dict[str, Any]:
    """The parts of ``ConvertFrom(dgd)`` the v1alpha1 rules read, for a v1beta1 request."""
    services: dict[str, Any] = {}
    for component in (dgd.get("spec") or {}).get("components") or []:
        service: dict[str, Any] = {}
        if component.get("sharedMemorySize") is not None:
            service["sharedMemory"] = {"size": component["sharedMemorySize"]}
        cache = component.get("compilationCache")
        if cache is not None:
            service["volumeMounts"] = [
                {
                    "name": cache.get("pvcName") or "",
                    "mountPoint": cache.get("mountPath") or "",
                    "useAsCompilationCache": True,
                }
            ]
        if component.get("eppConfig") is not None:
            service["eppConfig"] = component["eppConfig"]
        exp = component.get("experimental") or {}
        if exp.get("gpuMemoryService") is not None:
            gms = exp["gpuMemoryService"]
            service["gpuMemoryService"] = {
                "enabled": True,
                "mode": gms_mode_from_v1beta1(gms.get("mode") or ""),
            }
        if exp.get("failover") is not None:
            failover = exp["failover"]
            service["failover"] = {
                "enabled": True,
                "mode": gms_mode_from_v1beta1(failover.get("mode") or ""),
                "numShadows": failover.get("numShadows") or 0,
            }
        others = [c for c in h.containers(component) if c.get("name") != h.MAIN_CONTAINER_NAME]
        if others:
            service["extraPodSpec"] = {"containers": others}
        if component.get("globalDynamoNamespace"):
            service["globalDynamoNamespace"] = True
        services[str(component.get("name") or "")] = service
    view: dict[str, Any] = {"spec": {"services": services}}
    _restore_preserved(dgd, view)
    return view


def _restore_preserved(dgd: dict[str, Any], view: dict[str, Any]) -> None:
    """Fill the v1alpha1-only fields a ``nvidia.com/dgd-spec`` annotation preserves.

    Like restorePreservedSpec, a payload that does not decode into the typed envelope is
    ignored (nothing restored); one without a ``spec`` key is the legacy form, the spec
    itself.
    """
    annotations = (dgd.get("metadata") or {}).get("annotations") or {}
    raw = annotations.get(ANNOTATION_DGD_SPEC)
    if not raw:
        return

    try:
        saved = load_preserved_spec(raw)
    except NotReproducedError:  # nested too deep for this emulation: not reproduced
        raise
    except (TypeError, ValueError):
        return
    # Go's json.Unmarshal into the typed envelope fails on any value of the wrong kind
    # (or a non-integer version), and then nothing is restored.
    if restore_preserved_spec(raw, ANNOTATION_DGD_SPEC) is None:
        return
    if not isinstance(saved, dict):
        return
    spec = saved.get("spec") if "spec" in saved else saved
    if not isinstance(spec, dict):
        return
    if spec.get("pvcs"):
        view["spec"]["pvcs"] = spec["pvcs"]
    hub = {str(c.get("name") or ""): c for c in (dgd.get("spec") or {}).get("components") or []}
    for name, preserved in (spec.get("services") or {}).items():
        service = view["spec"]["services"].get(name)
        if service is None or not isinstance(preserved, dict):
            continue
        for key in _ALPHA_ONLY_SERVICE_FIELDS:
            if key == "frontendSidecar":
                continue
            if preserved.get(key) is not None and key not in service:
                service[key] = preserved[key]
        _restore_frontend_sidecar(service, preserved, hub.get(name) or {})


def _restore_frontend_sidecar(
    service: dict[str, Any], preserved: dict[str, Any], component: dict[str, Any]
) -> None:
    """restoreFrontendSidecarFromPodTemplate: the saved sidecar comes back only when the hub
    still references the default container name, and that container then leaves
    extraPodSpec.containers (it is the sidecar, not a second one)."""
    saved = preserved.get("frontendSidecar")
    if saved is None or component.get("frontendSidecar") != FRONTEND_SIDECAR_CONTAINER_NAME:
        return
    service["frontendSidecar"] = saved
    extra = service.get("extraPodSpec")
    if extra is None:
        return
    kept = [
        c for c in extra.get("containers") or [] if c.get("name") != FRONTEND_SIDECAR_CONTAINER_NAME
    ]
    if kept:
        extra["containers"] = kept
    else:
        del service["extraPodSpec"]


def check_status_annotation(dgd: dict[str, Any]) -> str | None:
    """ConvertFrom (run on every request) decodes a ``nvidia.com/dgd-status`` payload into the
    v1alpha1 status type before anything else: Go's decode error when it does not decode
    (a value of the wrong kind), None when it does. Unreadable JSON is not reproduced (Go's
    syntax error texts are not)."""
    annotations = (dgd.get("metadata") or {}).get("annotations") or {}
    raw = annotations.get(ANNOTATION_DGD_STATUS)
    if not raw:
        return None

    try:
        decoded = loads(raw)
    except TooDeepError:
        raise NotReproducedError(
            "a status preservation annotation nested deeper than this emulation reads",
            ("metadata", "annotations", ANNOTATION_DGD_STATUS),
        ) from None
    except (TypeError, ValueError):
        raise NotReproducedError(
            "a status preservation annotation that is not JSON (the operator fails with "
            "Go's syntax error)",
            ("metadata", "annotations", ANNOTATION_DGD_STATUS),
        ) from None
    try:
        decode(decoded, struct_type(ALPHA + "DynamoGraphDeploymentStatus"))
    except DecodeError as err:
        return f"unmarshal {ANNOTATION_DGD_STATUS} annotation: {err.message}"
    return None


def has_compatibility_fields(alpha: dict[str, Any]) -> bool:
    """hasV1Alpha1CompatibilityFields."""
    spec = alpha.get("spec") or {}
    if spec.get("pvcs"):
        return True
    for service in (spec.get("services") or {}).values():
        if service is None:
            return True
        gms = service.get("gpuMemoryService")
        if (
            service.get("ingress") is not None
            or service.get("annotations")
            or service.get("dynamoNamespace") is not None
            or service.get("autoscaling") is not None
            or service.get("volumeMounts")
            or service.get("sharedMemory") is not None
            or service.get("eppConfig") is not None
            or service.get("frontendSidecar") is not None
            or service.get("failover") is not None
            or (gms is not None and not gms.get("enabled"))
        ):
            return True
    return False


def validate_dgd_v1alpha1(
    v: SharedValidation, alpha: dict[str, Any], name: str, namespace: str
) -> list[FieldError]:
    """validateDynamoGraphDeploymentV1alpha1."""
    if not has_compatibility_fields(alpha) and v.runtime_version_source != SOURCE_V1ALPHA1:
        return []
    spec = alpha.get("spec") or {}
    path = new_path("spec")
    errs: list[FieldError] = []
    for i, pvc in enumerate(spec.get("pvcs") or []):
        if not (pvc or {}).get("name"):
            errs.append(required(path.child("pvcs").index(i).child("name"), "is required"))
    services = spec.get("services") or {}
    for service_name in sorted(services):
        service = services[service_name]
        if service is None:
            raise NotReproducedError(
                "a null service (the operator dereferences it)", ("spec", "services", service_name)
            )
        service_path = path.child("services").key(service_name)
        dynamo_ns = compute_dynamo_namespace(
            bool(service.get("globalDynamoNamespace")), namespace, name
        )
        errs += _validate_service(v, service, service_path, dynamo_ns)
    return errs


def _validate_service(
    v: SharedValidation, spec: dict[str, Any], path: Path, dynamo_namespace: str
) -> list[FieldError]:
    """validateDynamoComponentDeploymentSharedSpecV1alpha1."""
    errs: list[FieldError] = []
    bad = invalid_vllm_backend(spec.get("annotations"))
    if bad is not None:
        errs.append(
            invalid(
                path.child("annotations").key(ANNOTATION_VLLM_BACKEND), bad, 'must be "mp" or "ray"'
            )
        )
    if spec.get("dynamoNamespace"):
        v.warn(
            f"{path}.dynamoNamespace is deprecated and ignored. Value "
            f"{go_quote(str(spec['dynamoNamespace']))} will be replaced with "
            f"{go_quote(dynamo_namespace)}. Remove this field from your configuration"
        )
    if spec.get("autoscaling") is not None:
        v.warn(
            f"{path}.autoscaling is deprecated and ignored. Use "
            "DynamoGraphDeploymentScalingAdapter with HPA, KEDA, or Planner for autoscaling "
            "instead. See docs/kubernetes/autoscaling.md"
        )
    for i, mount in enumerate(spec.get("volumeMounts") or []):
        if not mount.get("useAsCompilationCache") and not mount.get("mountPoint"):
            errs.append(
                required(
                    path.child("volumeMounts").index(i).child("mountPoint"),
                    "is required when useAsCompilationCache is false",
                )
            )
    ingress = spec.get("ingress")
    if ingress is not None and ingress.get("enabled") and not ingress.get("host"):
        errs.append(required(path.child("ingress", "host"), "is required when ingress is enabled"))
    epp = spec.get("eppConfig")
    if epp is not None and (epp.get("configMapRef") is None) == (epp.get("config") is None):
        errs.append(
            forbidden(path.child("eppConfig"), "exactly one of configMapRef or config is required")
        )
    extra = spec.get("extraPodSpec") or {}
    if spec.get("frontendSidecar") is not None and h.has_container_named(
        list(extra.get("containers") or []), FRONTEND_SIDECAR_CONTAINER_NAME
    ):
        errs.append(
            forbidden(
                path.child("frontendSidecar"),
                "cannot inject frontend sidecar: a container named "
                f'"{FRONTEND_SIDECAR_CONTAINER_NAME}" already exists in extraPodSpec.containers',
            )
        )
    failover = spec.get("failover")
    if failover is not None:
        shadows = failover.get("numShadows") or 0
        if (
            failover.get("enabled")
            and failover.get("mode") == consts.GMS_MODE_INTRA_POD_V1ALPHA1
            and shadows not in (0, 1)
        ):
            errs.append(
                invalid(
                    path.child("failover", "numShadows"),
                    shadows,
                    'is invalid for mode="intraPod": intraPod uses a fixed 1 primary + 1 shadow '
                    'sidecar; use failover.mode="interPod" to configure numShadows',
                )
            )
    if v.runtime_version_source == SOURCE_V1ALPHA1:
        image_path = path.child("extraPodSpec", "mainContainer", "image")
        main = extra.get("mainContainer")
        image = str((main or {}).get("image") or "")
        errs += image_rule(image, image_path, spec.get("runtimeVersionOverride") or "", path)
    return errs
