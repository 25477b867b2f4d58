"""The v1alpha1 round trip behind a generated DCD's ``nvidia.com/dcd-spec`` annotation.

``generateSingleDCD`` (internal/dynamo/graph.go) calls
``applyDGDComponentAlphaCompatibilityToDCD``: it converts the parent DGD to v1alpha1
(``ConvertFrom``, api/v1alpha1/dynamographdeployment_conversion.go), wraps that
component's alpha spec in a v1alpha1 DCD, converts the DCD back to v1beta1
(``ConvertTo``, dynamocomponentdeployment_conversion.go) and copies the carrier's
annotations onto the DCD. The only annotation that conversion writes here is the sparse
record of the alpha-only fields (the "spoke save"), which the worker hash later reads back
through ``GetDCDKubeLabels``/``GetDCDKubeAnnotations``.

This module follows api/v1alpha1/shared_spec_conversion.go for the fields that reach that
record: the hub -> alpha decomposition of the pod template (``decomposePodTemplateFromHub``)
and the restore of a v1alpha1-origin DGD's preserved fields
(``fillSharedAlphaOnlyFromPreserved``); the file's other functions (``saveSharedAlphaOnlySpec``,
the resources and extraPodSpec predicates) are admission's ports, which both directions
share. Preserved records are decoded into their Go type (goruntime.encoding_json), so
values are Go values as admission's are. Branches it does not reproduce raise
:class:`NotReproducedError` naming the field.
"""

from __future__ import annotations

import functools
from typing import Any

from renderer.goruntime.encoding_json import (
    DecodeError,
    decode,
    marshal,
    quantity_is_zero,
    quantity_text,
    unmarshal,
)
from renderer.goruntime.typetable import ALPHA, core_type, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission.conversion_resources import resources_from_native
from renderer.operator.admission.conversion_restore import container_is_empty
from renderer.operator.admission.conversion_spec import (
    extra_pod_spec_is_zero,
    extra_pod_spec_needs_preservation,
    extra_pod_spec_only_preserves_main_container_name,
    pod_spec_is_zero,
    save_shared_alpha_only_spec,
)
from renderer.operator.errors import NotReproducedError

ANN_DGD_SPEC = consts.DGD_SPEC_ANNOTATION
ANN_DCD_SPEC = consts.DCD_SPEC_ANNOTATION
MAIN = consts.MAIN_CONTAINER_NAME
SPOKE_DCD_SPEC = (
    "github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1.DynamoComponentDeploymentSpec"
)
RAW_JSON = "github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1.preservedRawJSON"
_SPEC_TYPES = {ANN_DCD_SPEC: SPOKE_DCD_SPEC, ANN_DGD_SPEC: ALPHA + "DynamoGraphDeploymentSpec"}

Obj = dict[str, Any]
REQUIREMENTS = core_type("ResourceRequirements")
_GO_INT = {"kind": "int"}


# --- preserved spoke record of a v1alpha1-origin DGD -------------------------------------


@functools.lru_cache(maxsize=256)
def restore_preserved_spec(raw: str, annotation: str = ANN_DCD_SPEC) -> Obj | None:
    """restorePreservedSpec: the envelope's ``spec`` (or a legacy bare spec); None if unreadable.

    The result is shared between calls (the worker hash reads each DCD's record several
    times): callers copy before changing it.

    The spec is json.Unmarshal'ed into its v1alpha1 type (a sparse value: unknown fields
    dropped, quantities canonical); a value Go cannot decode, there or in the envelope's
    integer ``version``, makes the record unreadable.
    The only raw-JSON record understood is the DCD's empty-serviceName marker; the EPP plugin
    parameter records are refused.
    """
    try:
        obj = unmarshal(raw, annotation)
    except NotReproducedError:
        raise
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if "spec" not in obj:
        return _decode_spec(obj, annotation)
    try:  # the envelope's Version is a Go int: any other kind fails the whole Unmarshal
        decode(obj.get("version"), _GO_INT, (annotation, "version"))
    except DecodeError:
        return None
    spec = obj.get("spec")
    for record in obj.get("rawJSON") or []:
        if not (annotation == ANN_DCD_SPEC and record == {"path": "serviceName", "nil": True}):
            raise NotReproducedError(
                "preserved raw JSON records are not reproduced",
                f"metadata.annotations.{annotation}",
            )
    return _decode_spec(spec, annotation)


def _decode_spec(spec: Any, annotation: str) -> Obj | None:
    t = struct_type(_SPEC_TYPES[annotation])
    try:
        decoded: Obj | None = decode(spec, t, ("metadata", "annotations", annotation))
    except DecodeError:
        return None
    return decoded or {}


def preserved_dgd_component(dgd: Obj, component_name: str) -> Obj | None:
    """The alpha-only fields a v1alpha1-origin DGD saved for one service (its dgd-spec record)."""
    annotations = (dgd.get("metadata") or {}).get("annotations") or {}
    raw = annotations.get(ANN_DGD_SPEC)
    if not raw:
        return None
    spec = restore_preserved_spec(raw, ANN_DGD_SPEC)
    if spec is None:
        return None
    services = spec.get("services") or {}
    found = services.get(component_name)
    return deep_copy(found) if isinstance(found, dict) else None


# --- hub -> alpha (ConvertToDynamoComponentDeploymentSharedSpec) ------------------------


def _append_missing_mounts(dst: list[Obj], mounts: list[Obj]) -> list[Obj]:
    for mount in mounts:
        if not any(
            e.get("name", "") == mount.get("name", "")
            and e.get("mountPoint", "") == mount.get("mountPoint", "")
            for e in dst
        ):
            dst.append(mount)
    return dst


def _flat_mounts(native: list[Obj]) -> list[Obj]:
    out = []
    for m in native:
        flat: Obj = {}
        if m.get("name"):
            flat["name"] = m["name"]
        if m.get("mountPath"):
            flat["mountPoint"] = m["mountPath"]
        out.append(flat)
    return out


def alpha_from_hub(src: Obj, restored: Obj | None) -> Obj:
    """The alpha shared spec ConvertFrom gives for one v1beta1 component (fields of the save)."""
    dst: Obj = {}
    ctype = src.get("type", "")
    if ctype in ("prefill", "decode"):
        dst["componentType"], dst["subComponentType"] = "worker", ctype
    elif ctype:
        dst["componentType"] = ctype
    if src.get("sharedMemorySize") is not None:
        dst["sharedMemory"] = _shared_memory_from_hub(src["sharedMemorySize"])
    cache = src.get("compilationCache")
    if cache is not None:
        dst["volumeMounts"] = [
            {
                k: v
                for k, v in (
                    ("name", cache.get("pvcName", "")),
                    ("mountPoint", cache.get("mountPath", "")),
                    ("useAsCompilationCache", True),
                )
                if v
            }
        ]
    experimental = src.get("experimental") or {}
    if experimental.get("gpuMemoryService") is not None:
        dst["gpuMemoryService"] = {"enabled": True}
    if experimental.get("failover") is not None:
        dst["failover"] = {"enabled": True}
    if src.get("scalingAdapter") is not None:
        dst["scalingAdapter"] = {"enabled": True}
    _decompose_pod_template(src, dst, restored)
    if restored is not None:
        # One Go file split in two: the restore half imports this one at its top.
        from renderer.operator.dcd_alpha_restore import (  # noqa: PLC0415 - see above
            check_restorable,
            fill_from_preserved,
            restore_shared_preserved_flat_volume_mounts,
        )

        check_restorable(restored)
        # before the field origins, so every cache mount is left out of their matching
        restore_shared_preserved_flat_volume_mounts(dst, restored, src)
        fill_from_preserved(dst, restored, _has_main(src))
    _prune_empty_extra_pod_spec(dst, restored)
    return dst


def _shared_memory_from_hub(size: Any) -> Obj:
    text = quantity_text(size, "sharedMemorySize")
    if quantity_is_zero(text):
        return {"disabled": True, "size": text}
    return {"size": text}


def _has_main(src: Obj) -> bool:
    containers = ((src.get("podTemplate") or {}).get("spec") or {}).get("containers") or []
    return any(c.get("name") == MAIN for c in containers)


FRONTEND_SIDECAR = consts.FRONTEND_SIDECAR_CONTAINER_NAME


def _restored_default_frontend_sidecar(src: Obj, restored: Obj | None) -> Obj | None:
    """restoredDefaultFrontendSidecar: a preserved alpha sidecar behind the default name."""
    if src.get("frontendSidecar") != FRONTEND_SIDECAR or restored is None:
        return None
    found: Obj | None = restored.get("frontendSidecar")
    return found


def _frontend_sidecar_from_container(ctr: Obj, origin: Obj) -> Obj:
    """frontendSidecarSpecFromContainer."""
    out = deep_copy(origin)
    out["image"] = ctr.get("image", "")
    for key, src_key in (("args", "args"), ("envs", "env")):
        if ctr.get(src_key):
            out[key] = deep_copy(ctr[src_key])
        else:
            out.pop(key, None)
    env_from = ctr.get("envFrom") or []
    one = env_from[0] if len(env_from) == 1 else None
    if (
        one is not None
        and not one.get("prefix")
        and one.get("configMapRef") is None
        and one.get("secretRef") is not None
    ):
        out["envFromSecret"] = one["secretRef"].get("name", "")
    elif origin.get("envFromSecret") == "":
        out["envFromSecret"] = ""
    else:
        out.pop("envFromSecret", None)
    return out


def _decompose_pod_template(src: Obj, dst: Obj, restored: Obj | None) -> None:
    pod_tpl = src.get("podTemplate")
    restored_sidecar = _restored_default_frontend_sidecar(src, restored)
    if pod_tpl is None:  # decomposeMissingPodTemplate
        if restored_sidecar is not None:
            dst["frontendSidecar"] = deep_copy(restored_sidecar)
        return
    pod_tpl = deep_copy(pod_tpl)
    meta = pod_tpl.get("metadata") or {}
    if meta.get("annotations") or meta.get("labels"):
        dst["extraPodMetadata"] = {
            k: meta[k] for k in ("annotations", "labels") if meta.get(k) is not None
        }
    spec = pod_tpl.get("spec") or {}
    main: Obj | None = None
    other: list[Obj] = []
    for c in spec.get("containers") or []:
        if c.get("name") == MAIN and main is None:
            main = deep_copy(c)
            continue
        other.append(c)
    if restored_sidecar is not None:  # restoreFrontendSidecarFromPodTemplate
        name = src["frontendSidecar"]
        found = next((c for c in other if c.get("name") == name), None)
        if found is not None:
            dst["frontendSidecar"] = _frontend_sidecar_from_container(found, restored_sidecar)
            other = [c for c in other if c.get("name") != name]
        else:
            dst["frontendSidecar"] = deep_copy(restored_sidecar)
    if main is not None:
        resources = resources_from_native(main.get("resources"))
        if resources is not None:
            dst["resources"] = resources
            main.pop("resources", None)
        if main.get("volumeMounts"):
            dst["volumeMounts"] = _append_missing_mounts(
                dst.get("volumeMounts", []), _flat_mounts(main["volumeMounts"])
            )
            main.pop("volumeMounts")
        if main.get("env"):
            dst["envs"] = main.pop("env")
        for probe in ("livenessProbe", "readinessProbe"):
            if main.get(probe) is not None:
                dst[probe] = main.pop(probe)
    pod_copy = {k: v for k, v in spec.items() if k != "containers"}
    if other:
        pod_copy["containers"] = other
    main_copy = None
    if main is not None:
        main_copy = {k: v for k, v in main.items() if k != "name"}
        if container_is_empty(main_copy):
            main_copy = None
    pod_nonzero = not pod_spec_is_zero(pod_copy)
    if pod_nonzero or main_copy is not None:
        eps: Obj = {}
        if pod_nonzero:
            eps.update(pod_copy)
        if main_copy is not None:
            eps["mainContainer"] = main_copy
        dst["extraPodSpec"] = eps


# --- predicates shared with the restore (dcd_alpha_restore.py) --------------------------


def set_or_drop(obj: Obj, key: str, value: Any) -> None:
    if value is None:
        obj.pop(key, None)
    else:
        obj[key] = value


def _prune_empty_extra_pod_spec(dst: Obj, restored: Obj | None) -> None:
    eps = dst.get("extraPodSpec")
    if eps is None:
        return
    restored_eps = (restored or {}).get("extraPodSpec")
    if container_is_empty(eps.get("mainContainer")) and not (
        extra_pod_spec_only_preserves_main_container_name(restored_eps)
    ):
        eps.pop("mainContainer", None)
    if extra_pod_spec_is_zero(eps):
        if restored is not None and extra_pod_spec_needs_preservation(restored_eps):
            return
        dst.pop("extraPodSpec")


# --- saveSharedAlphaOnlySpec (alpha -> hub, origin splits on) ---------------------------


def spoke_save(src: Obj) -> Obj:
    """The sparse record of alpha-only fields ConvertTo writes for a v1alpha1 DCD carrier
    (saveSharedAlphaOnlySpec with the origin splits, which the carrier always asks for)."""
    save: Obj = {}
    save_shared_alpha_only_spec(src, save, include_origin_splits=True)
    return save


def dcd_spec_annotation(save: Obj, empty_service_name: bool) -> str:
    """marshalDCDSpokeSpec: the ``{"version":1,"spec":...,"rawJSON":[...]}`` envelope."""
    spec_text = marshal(save, struct_type(SPOKE_DCD_SPEC))
    text = '{"version":1,"spec":' + spec_text
    if empty_service_name:
        text += ',"rawJSON":[{"path":"serviceName","nil":true}]'
    return text + "}"
