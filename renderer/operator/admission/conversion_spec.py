"""api/v1alpha1/shared_spec_conversion.go: one v1alpha1 service -> one v1beta1 component.

Only the direction the API server takes on create is here (``ConvertFrom...``: spoke to
hub), for a v1alpha1 object that carries no preserved hub payload (``restored`` nil,
``PodTemplateOrigin`` false). Values are sparse (see goruntime.encoding_json): an absent key
is Go's zero.

The v1alpha1 flat pod fields (resources, envs, envFromSecret, probes, volumeMounts,
extraPodSpec, extraPodMetadata, frontendSidecar) become ``podTemplate`` with its ``main``
container; what has no v1beta1 shape is recorded in ``save`` (the sparse v1alpha1 spec the
DGD conversion writes to the ``nvidia.com/dgd-spec`` annotation).
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import quantity_is_zero
from renderer.goruntime.equality import is_semantic_zero
from renderer.goruntime.mergo import merge
from renderer.goruntime.typetable import CORE, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission.conversion_resources import (
    resources_need_preservation,
    resources_to_native,
)
from renderer.operator.admission.conversion_restore import (
    container_is_empty,
    restore_shared_hub_only_fields,
)
from renderer.operator.admission.errors import NotReproducedError, PathTuple

MAIN_CONTAINER_NAME = consts.MAIN_CONTAINER_NAME
DEFAULT_FRONTEND_SIDECAR_CONTAINER_NAME = consts.FRONTEND_SIDECAR_CONTAINER_NAME

_CONTAINER = struct_type(CORE + "Container")
_POD_SPEC = struct_type(CORE + "PodSpec")
_REQUIREMENTS = struct_type(CORE + "ResourceRequirements")

_GMS_MODE = {
    consts.GMS_MODE_INTRA_POD_V1ALPHA1: "IntraPod",
    consts.GMS_MODE_INTER_POD_V1ALPHA1: "InterPod",
}


def gms_mode_from_v1beta1(mode: str) -> str:
    """gmsModeFromV1beta1: the v1alpha1 spelling of a v1beta1 GMS mode (others kept)."""
    return {hub: alpha for alpha, hub in _GMS_MODE.items()}.get(mode, mode)


def convert_to_gpu_memory_service_spec(src: dict[str, Any]) -> dict[str, Any]:
    """ConvertToGPUMemoryServiceSpec: a v1beta1 GMS spec as the (enabled) v1alpha1 one."""
    dst: dict[str, Any] = {"enabled": True}
    _set(dst, "mode", gms_mode_from_v1beta1(src.get("mode") or "") or None)
    _set(dst, "deviceClassName", src.get("deviceClassName") or None)
    _set(dst, "extraClientContainers", list(src.get("extraClientContainers") or []) or None)
    pods = [
        {"name": p.get("name", ""), "podTemplate": deep_copy(p.get("podTemplate") or {})}
        for p in src.get("extraClientPods") or []
    ]
    _set(dst, "extraClientPods", pods or None)
    return dst


def _set(d: dict[str, Any], key: str, value: Any) -> None:
    """Assign a sparse field: a Go zero (None) leaves the key out."""
    if value is None:
        d.pop(key, None)
    else:
        d[key] = value


def _clone(v: Any) -> Any:
    return deep_copy(v)


def convert_from_dynamo_component_deployment_shared_spec(
    src: dict[str, Any],
    save: dict[str, Any] | None,
    include_origin_splits: bool,
    path: PathTuple = (),
    *,
    restored: dict[str, Any] | None = None,
    pod_template_origin: bool = False,
) -> dict[str, Any]:
    """ConvertFromDynamoComponentDeploymentSharedSpec: the hub spec of one service.

    ``save`` (the sparse v1alpha1 record) is filled in place when given; ``restored`` is
    the component of a preserved hub spec (conversion_restore), if any.
    """
    dst: dict[str, Any] = {}
    if "providerOverride" in src:
        dst["providerOverride"] = convert_from_provider_override(src["providerOverride"])
    _set(dst, "type", shared_component_type_to_hub(src) or None)
    _set(dst, "name", src.get("serviceName"))
    _set(dst, "runtimeVersionOverride", src.get("runtimeVersionOverride"))
    _set(dst, "globalDynamoNamespace", src.get("globalDynamoNamespace"))
    _set(dst, "replicas", src.get("replicas"))
    _set(dst, "minAvailable", src.get("minAvailable"))
    if "multinode" in src:
        dst["multinode"] = convert_from_multinode_spec(src["multinode"])
    if "modelRef" in src:
        ref = src["modelRef"]
        dst["modelRef"] = {k: ref[k] for k in ("name", "revision") if k in ref}
    if "topologyConstraint" in src:
        tc = src["topologyConstraint"]
        dst["topologyConstraint"] = {k: tc[k] for k in ("packDomain",) if k in tc}
    if "eppConfig" in src:
        epp = src["eppConfig"]
        dst["eppConfig"] = {k: _clone(epp[k]) for k in ("configMapRef", "config") if k in epp}
    shm = src.get("sharedMemory")
    if shm is not None and (shm.get("disabled") or not quantity_is_zero(shm.get("size"))):
        dst["sharedMemorySize"] = "0" if shm.get("disabled") else shm["size"]
    for vm in src.get("volumeMounts") or []:
        if vm.get("useAsCompilationCache"):
            cache: dict[str, Any] = {}
            _set(cache, "pvcName", vm.get("name"))
            _set(cache, "mountPath", vm.get("mountPoint"))
            dst["compilationCache"] = cache
            break
    adapter = src.get("scalingAdapter")
    if adapter is not None and adapter.get("enabled"):
        dst["scalingAdapter"] = {}
    _convert_experimental_to_hub(src, dst)
    try:
        _build_pod_template_to_hub(src, dst, path, pod_template_origin)
        if restored is not None:
            restore_shared_hub_only_fields(dst, restored, src)
        if save is not None:
            save_shared_alpha_only_spec(src, save, include_origin_splits)
    except NotReproducedError as err:
        if err.path:
            raise
        # A flat resources quantity (the only pathless refusal) names its service field.
        raise NotReproducedError(err.message, (*path, "resources")) from err
    return dst


def convert_from_provider_override(src: dict[str, Any]) -> dict[str, Any]:
    """ConvertFromProviderOverride: the three fields, the value uninterpreted."""
    return {k: _clone(src[k]) for k in ("apiVersion", "target", "value") if k in src}


def convert_from_multinode_spec(src: dict[str, Any]) -> dict[str, Any]:
    """ConvertFromMultinodeSpec: node count and each role's provider override."""
    dst: dict[str, Any] = {}
    _set(dst, "nodeCount", src.get("nodeCount"))
    for role in ("leader", "worker"):
        if role in src:
            out: dict[str, Any] = {}
            if "providerOverride" in src[role]:
                out["providerOverride"] = convert_from_provider_override(
                    src[role]["providerOverride"]
                )
            dst[role] = out
    return dst


def shared_component_type_to_hub(src: dict[str, Any]) -> str:
    """sharedComponentTypeToHub: worker + prefill/decode becomes the prefill/decode type."""
    if _sub_component_type_promotes(src):
        return str(src["subComponentType"])
    return str(src.get("componentType", ""))


def _sub_component_type_promotes(src: dict[str, Any]) -> bool:
    return src.get("componentType") == "worker" and src.get("subComponentType") in (
        "prefill",
        "decode",
    )


def _sub_component_type_needs_save(src: dict[str, Any]) -> bool:
    return bool(src.get("subComponentType")) and not _sub_component_type_promotes(src)


def _convert_experimental_to_hub(src: dict[str, Any], dst: dict[str, Any]) -> None:
    exp: dict[str, Any] = {}
    touched = False
    gms = src.get("gpuMemoryService")
    if gms is not None and gms.get("enabled"):
        touched = True
        out: dict[str, Any] = {}
        _set(out, "mode", _GMS_MODE.get(gms.get("mode", ""), gms.get("mode")))
        _set(out, "deviceClassName", gms.get("deviceClassName"))
        _set(out, "extraClientContainers", _clone(gms.get("extraClientContainers")))
        pods = gms.get("extraClientPods")
        if pods:
            out["extraClientPods"] = [
                {k: _clone(p[k]) for k in ("name", "podTemplate") if k in p} for p in pods
            ]
        exp["gpuMemoryService"] = out
    failover = src.get("failover")
    if failover is not None and failover.get("enabled"):
        touched = True
        out = {}
        _set(out, "mode", _GMS_MODE.get(failover.get("mode", ""), failover.get("mode")))
        _set(out, "numShadows", failover.get("numShadows"))
        exp["failover"] = out
    ckpt = src.get("checkpoint")
    if ckpt is not None:
        touched = True
        exp["checkpoint"] = _convert_from_service_checkpoint_config(ckpt)
    if touched:
        dst["experimental"] = exp


def _convert_from_service_checkpoint_config(src: dict[str, Any]) -> dict[str, Any]:
    # The v1alpha1 and v1beta1 mode/policy strings are equal at the pin.
    dst: dict[str, Any] = {}
    for key in (
        "enabled",
        "mode",
        "startupPolicy",
        "deletionPolicy",
        "targetContainerName",
        "checkpointRef",
    ):
        _set(dst, key, src.get(key))
    if "identity" in src:
        dst["identity"] = _clone(src["identity"])  # the same eight fields in both versions
    if "job" in src:
        job: dict[str, Any] = {}
        _set(job, "gmsClientContainers", _clone(src["job"].get("gmsClientContainers")))
        _set(job, "podTemplate", _clone(src["job"].get("podTemplate")))
        dst["job"] = job
    return dst


# ---------------------------------------------------------------------------
# podTemplate
# ---------------------------------------------------------------------------


def _build_pod_template_to_hub(
    src: dict[str, Any], dst: dict[str, Any], path: PathTuple, pod_template_origin: bool
) -> None:
    pod = build_shared_pod_template_from_alpha(src, path, pod_template_origin)
    if pod is None:
        return
    if "frontendSidecar" in src:
        dst["frontendSidecar"] = DEFAULT_FRONTEND_SIDECAR_CONTAINER_NAME
    dst["podTemplate"] = pod


def has_pod_template_content(src: dict[str, Any], pod_template_origin: bool) -> bool:
    return (
        pod_template_origin
        or "resources" in src
        or bool(src.get("envs"))
        or "envFromSecret" in src
        or any(not vm.get("useAsCompilationCache") for vm in src.get("volumeMounts") or [])
        or "livenessProbe" in src
        or "readinessProbe" in src
        or not extra_pod_spec_is_zero(src.get("extraPodSpec"))
        or "extraPodMetadata" in src
        or "frontendSidecar" in src
    )


def _pod_spec_part(eps: dict[str, Any] | None) -> dict[str, Any] | None:
    """ExtraPodSpec's embedded *PodSpec (None when nil): every key but mainContainer."""
    if eps is None:
        return None
    spec = {k: v for k, v in eps.items() if k != "mainContainer"}
    return spec or None


def build_shared_pod_template_from_alpha(
    src: dict[str, Any], path: PathTuple = (), pod_template_origin: bool = False
) -> dict[str, Any] | None:
    """buildSharedPodTemplateFromAlpha(src, podTemplateOrigin, false): the podTemplate."""
    if not has_pod_template_content(src, pod_template_origin):
        return None
    pod: dict[str, Any] = {}
    meta = src.get("extraPodMetadata")
    if meta is not None:
        md: dict[str, Any] = {}
        if meta.get("annotations"):
            md["annotations"] = dict(meta["annotations"])
        if meta.get("labels"):
            md["labels"] = dict(meta["labels"])
        if md:
            pod["metadata"] = md
    spec = _clone(_pod_spec_part(src.get("extraPodSpec"))) or {}
    main = build_main_container_from_dedicated(src)
    main = _merge_extra_pod_spec_main_container(src, main, path)
    main["name"] = MAIN_CONTAINER_NAME
    containers = [main]
    containers += [c for c in spec.get("containers") or [] if c.get("name") != "main"]
    spec["containers"] = containers
    pod["spec"] = spec
    sidecar = src.get("frontendSidecar")
    if sidecar is not None:
        _append_frontend_sidecar(spec, sidecar)
    return pod


def build_main_container_from_dedicated(src: dict[str, Any]) -> dict[str, Any]:
    """buildMainContainerFromDedicated: the flat v1alpha1 fields as container ``main``."""
    ctr: dict[str, Any] = {"name": MAIN_CONTAINER_NAME}
    if "resources" in src:
        _set(ctr, "resources", resources_to_native(src["resources"]) or None)
    if src.get("envs"):
        ctr["env"] = _clone(src["envs"])
    if src.get("envFromSecret"):
        ctr["envFrom"] = [{"secretRef": {"name": src["envFromSecret"]}}]
    for probe in ("livenessProbe", "readinessProbe"):
        if probe in src:
            ctr[probe] = _clone(src[probe])
    mounts = []
    for vm in src.get("volumeMounts") or []:
        mount: dict[str, Any] = {}
        _set(mount, "name", vm.get("name"))
        _set(mount, "mountPath", vm.get("mountPoint"))
        mounts.append(mount)
    if mounts:
        ctr["volumeMounts"] = mounts
    return ctr


def _merge_extra_pod_spec_main_container(
    src: dict[str, Any], base: dict[str, Any], path: PathTuple
) -> dict[str, Any]:
    eps = src.get("extraPodSpec")
    if eps is None or "mainContainer" not in eps:
        return base
    main = _clone(eps["mainContainer"])
    base_envs = base.get("env")
    dedicated_mounts = _clone(base.get("volumeMounts") or [])
    main["name"] = MAIN_CONTAINER_NAME
    merged: dict[str, Any] = merge(base, main, _CONTAINER, (*path, "extraPodSpec", "mainContainer"))
    _set(merged, "env", v1alpha1_merge_envs(base_envs, main.get("env")))
    # The v1alpha1 renderer put extraPodSpec.mainContainer's mounts first, then the
    # service-level ones; mergo would have replaced the list.
    mounts = _clone(main.get("volumeMounts")) if main.get("volumeMounts") is not None else None
    if dedicated_mounts:
        mounts = (mounts or []) + dedicated_mounts
    _set(merged, "volumeMounts", mounts)
    if "startupProbe" in main:
        merged["startupProbe"] = main["startupProbe"]
    return merged


def v1alpha1_merge_envs(common: list[Any] | None, specific: list[Any] | None) -> list[Any] | None:
    """v1alpha1 mergeEnvs (dynamo.MergeEnvs, which sorts, is graph_env.merge_envs):
    ``common`` then ``specific``, one entry per name, ``specific`` winning."""
    out: list[Any] = []
    seen: dict[str, int] = {}
    for env in common or []:
        # common keeps its own duplicates; the last one is the one specific replaces
        seen[env.get("name", "")] = len(out)
        out.append(env)
    for env in specific or []:
        name = env.get("name", "")
        if name in seen:
            out[seen[name]] = env
            continue
        seen[name] = len(out)
        out.append(env)
    return out or None


def _append_frontend_sidecar(spec: dict[str, Any], fs: dict[str, Any]) -> None:
    if any(c.get("name") == DEFAULT_FRONTEND_SIDECAR_CONTAINER_NAME for c in spec["containers"]):
        return
    ctr: dict[str, Any] = {"name": DEFAULT_FRONTEND_SIDECAR_CONTAINER_NAME}
    _set(ctr, "image", fs.get("image"))
    _set(ctr, "args", _clone(fs.get("args")))
    _set(ctr, "env", _clone(fs.get("envs")))
    if fs.get("envFromSecret"):
        ctr["envFrom"] = [{"secretRef": {"name": fs["envFromSecret"]}}]
    spec["containers"].append(ctr)


# ---------------------------------------------------------------------------
# what only v1alpha1 can hold: the sparse save
# ---------------------------------------------------------------------------


def pod_spec_is_zero(pod: dict[str, Any] | None) -> bool:
    """podSpecIsZero: a nil pod spec, or one Semantic.DeepEqual to the zero PodSpec."""
    return pod is None or is_semantic_zero(pod, _POD_SPEC)


def extra_pod_spec_is_zero(eps: dict[str, Any] | None) -> bool:
    """extraPodSpecIsZero: no pod-spec field and an empty main container."""
    if eps is None:
        return True
    return pod_spec_is_zero(_pod_spec_part(eps)) and container_is_empty(eps.get("mainContainer"))


def extra_pod_spec_only_preserves_main_container_name(eps: dict[str, Any] | None) -> bool:
    """extraPodSpecOnlyPreservesMainContainerName: a zero pod spec and a named empty main."""
    if eps is None or not pod_spec_is_zero(_pod_spec_part(eps)):
        return False
    main = eps.get("mainContainer")
    return main is not None and bool(main.get("name")) and container_is_empty(main)


def extra_pod_spec_needs_preservation(eps: dict[str, Any] | None) -> bool:
    """extraPodSpecNeedsPreservation: a zero record, or one holding only the main's name."""
    return eps is not None and (
        extra_pod_spec_is_zero(eps) or extra_pod_spec_only_preserves_main_container_name(eps)
    )


def _frontend_sidecar_conflict(src: dict[str, Any]) -> bool:
    if "frontendSidecar" not in src:
        return False
    part = _pod_spec_part(src.get("extraPodSpec")) or {}
    return any(
        c.get("name") == DEFAULT_FRONTEND_SIDECAR_CONTAINER_NAME
        for c in part.get("containers") or []
    )


def shared_memory_needs_preservation(shm: dict[str, Any] | None) -> bool:
    if shm is None:
        return False
    if shm.get("disabled"):
        return not quantity_is_zero(shm.get("size"))
    return quantity_is_zero(shm.get("size"))


def _volume_mounts_round_trip(mounts: list[dict[str, Any]]) -> bool:
    return sum(1 for m in mounts if m.get("useAsCompilationCache")) <= 1


def save_shared_alpha_only_spec(
    src: dict[str, Any], save: dict[str, Any], include_origin_splits: bool
) -> None:
    """saveSharedAlphaOnlySpec: record in ``save`` what the hub spec cannot carry."""
    has_save = False

    def keep(key: str, value: Any) -> None:
        nonlocal has_save
        save[key] = _clone(value)
        has_save = True

    if _sub_component_type_needs_save(src):
        keep("subComponentType", src["subComponentType"])
    for key in ("dynamoNamespace", "autoscaling", "ingress"):
        if key in src:
            keep(key, src[key])
    for key in ("annotations", "labels"):
        if src.get(key):
            keep(key, src[key])
    if "envFromSecret" in src:
        keep("envFromSecret", src["envFromSecret"])
    if resources_need_preservation(src.get("resources")):
        keep("resources", src["resources"])
    mounts = src.get("volumeMounts") or []
    if mounts and not _volume_mounts_round_trip(mounts):
        keep("volumeMounts", src["volumeMounts"])
    if shared_memory_needs_preservation(src.get("sharedMemory")):
        keep("sharedMemory", src["sharedMemory"])
    meta = src.get("extraPodMetadata")
    if meta is not None and not meta.get("annotations") and not meta.get("labels"):
        keep("extraPodMetadata", meta)
    if extra_pod_spec_needs_preservation(src.get("extraPodSpec")) or _frontend_sidecar_conflict(
        src
    ):
        keep("extraPodSpec", src.get("extraPodSpec"))
    adapter = src.get("scalingAdapter")
    if adapter is not None and not adapter.get("enabled"):
        keep("scalingAdapter", adapter)
    if "frontendSidecar" in src:
        keep("frontendSidecar", src["frontendSidecar"])
    for key in ("gpuMemoryService", "failover"):
        feature = src.get(key)
        if feature is not None and not feature.get("enabled"):
            keep(key, feature)
    if include_origin_splits or has_save or _main_container_field_origins_need_save(src):
        _save_shared_main_container_origins(src, save)


def _main_container_field_origins_need_save(src: dict[str, Any]) -> bool:
    main = (src.get("extraPodSpec") or {}).get("mainContainer")
    if main is None:
        return False
    return (
        bool(main.get("name"))
        or bool(main.get("env"))
        or not is_semantic_zero(main.get("resources"), _REQUIREMENTS)
        or bool(main.get("volumeMounts"))
        or "livenessProbe" in main
        or "readinessProbe" in main
    )


def _ensure_main(save: dict[str, Any]) -> dict[str, Any]:
    eps = save.setdefault("extraPodSpec", {})
    main: dict[str, Any] = eps.setdefault("mainContainer", {})
    return main


def _save_shared_main_container_origins(src: dict[str, Any], save: dict[str, Any]) -> None:
    main = (src.get("extraPodSpec") or {}).get("mainContainer")
    if main is None:
        return
    if main.get("name"):
        _ensure_main(save)["name"] = main["name"]
    if src.get("envs") or main.get("env"):
        _set(save, "envs", _clone(src.get("envs")))
        _set(_ensure_main(save), "env", _clone(main.get("env")))
    if "envFromSecret" in src or main.get("envFrom"):
        if "envFromSecret" in src:
            save["envFromSecret"] = src["envFromSecret"]
        _set(_ensure_main(save), "envFrom", _clone(main.get("envFrom")) or None)
    if "resources" in src or not is_semantic_zero(main.get("resources"), _REQUIREMENTS):
        _set(save, "resources", _clone(src.get("resources")))
        _set(_ensure_main(save), "resources", _clone(main.get("resources")))
    if src.get("volumeMounts") or main.get("volumeMounts"):
        _set(save, "volumeMounts", _clone(src.get("volumeMounts")))
        _set(_ensure_main(save), "volumeMounts", _clone(main.get("volumeMounts")) or None)
    for probe in ("livenessProbe", "readinessProbe"):
        if probe in src or probe in main:
            _set(save, probe, _clone(src.get(probe)))
            _set(_ensure_main(save), probe, _clone(main.get(probe)))
