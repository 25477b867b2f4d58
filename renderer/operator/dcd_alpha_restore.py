"""fillSharedAlphaOnlyFromPreserved for a v1alpha1-origin DGD (api/v1alpha1 conversion).

When the admitted DGD came from v1alpha1, its ``nvidia.com/dgd-spec`` annotation keeps the
alpha-only fields of each service; ConvertFrom restores them onto the alpha spec it derives
from the v1beta1 component (restoreSharedAlphaOnlySimpleFields, restoreSharedAlphaOnlyPodFields,
restoreMainContainerFieldOrigins, restoreSharedAlphaOnlyDisabledFeatures). Records this
module does not reproduce are refused by ``check_restorable`` with the annotation path.
"""

from __future__ import annotations

from renderer.goruntime.encoding_json import quantity_is_zero
from renderer.goruntime.equality import is_semantic_zero, semantic_equal
from renderer.goruntime.mergo import merge
from renderer.goruntime.typetable import CORE, core_type, struct_fields
from renderer.jsoncopy import deep_copy
from renderer.operator.admission.conversion_resources import (
    resources_need_preservation,
    resources_to_native,
)
from renderer.operator.admission.conversion_spec import (
    extra_pod_spec_needs_preservation,
    has_pod_template_content,
    shared_memory_needs_preservation,
)
from renderer.operator.dcd_alpha import (
    ANN_DGD_SPEC,
    FRONTEND_SIDECAR,
    MAIN,
    Obj,
    set_or_drop,
)
from renderer.operator.errors import NotReproducedError

_RESTORABLE = {
    "frontendSidecar",
    "volumeMounts",
    "subComponentType",
    "dynamoNamespace",
    "autoscaling",
    "ingress",
    "annotations",
    "labels",
    "envs",
    "envFromSecret",
    "resources",
    "sharedMemory",
    "extraPodMetadata",
    "extraPodSpec",
    "livenessProbe",
    "readinessProbe",
    "scalingAdapter",
    "gpuMemoryService",
    "failover",
    "checkpoint",
    "serviceName",
}

_ENV_FROM = {"kind": "slice", "elem": core_type("EnvFromSource")}


def check_restorable(preserved: Obj) -> None:
    for key in preserved:
        if key not in _RESTORABLE:
            raise NotReproducedError(
                "restoring this preserved v1alpha1 field is not reproduced",
                f"metadata.annotations.{ANN_DGD_SPEC}.{key}",
            )
    eps = preserved.get("extraPodSpec") or {}
    if any(ctr.get("name") == FRONTEND_SIDECAR for ctr in eps.get("containers") or []):
        raise NotReproducedError(
            "a preserved frontend sidecar container is not reproduced",
            f"metadata.annotations.{ANN_DGD_SPEC}.extraPodSpec",
        )


def fill_from_preserved(dst: Obj, preserved: Obj, main_present: bool) -> None:
    # restoreSharedAlphaOnlySimpleFields
    if not dst.get("subComponentType") and preserved.get("subComponentType"):
        dst["subComponentType"] = preserved["subComponentType"]
    for key in ("dynamoNamespace", "autoscaling", "ingress"):
        if dst.get(key) is None and preserved.get(key) is not None:
            dst[key] = deep_copy(preserved[key])
    for key in ("annotations", "labels"):
        if not dst.get(key) and preserved.get(key):
            dst[key] = dict(preserved[key])
    # restoreSharedAlphaOnlyPodFields
    pshm = preserved.get("sharedMemory")
    if pshm is not None and shared_memory_needs_preservation(pshm):
        dshm = dst.get("sharedMemory")
        if dshm is None or (
            pshm.get("disabled") and dshm.get("disabled") and quantity_is_zero(dshm.get("size"))
        ):
            dst["sharedMemory"] = deep_copy(pshm)
    presources = preserved.get("resources")
    if (
        main_present
        and presources is not None
        and resources_need_preservation(presources)
        and _requirements_equal(
            resources_to_native(dst.get("resources") or {}), resources_to_native(presources)
        )
    ):
        dst["resources"] = deep_copy(presources)
    _restore_env_from_secret(dst, preserved, main_present)
    pepm = preserved.get("extraPodMetadata")
    if (
        dst.get("extraPodMetadata") is None
        and pepm is not None
        and not pepm.get("annotations")
        and not pepm.get("labels")
    ):
        dst["extraPodMetadata"] = deep_copy(pepm)
    peps = preserved.get("extraPodSpec")
    if extra_pod_spec_needs_preservation(peps) and dst.get("extraPodSpec") is None:
        dst["extraPodSpec"] = deep_copy(peps)
    _restore_main_container_field_origins(dst, preserved, main_present)
    dmain = (dst.get("extraPodSpec") or {}).get("mainContainer")
    pmain = (peps or {}).get("mainContainer")
    if dmain is not None and not dmain.get("name") and pmain is not None and pmain.get("name"):
        dmain["name"] = pmain["name"]
    # restoreSharedAlphaOnlyDisabledFeatures
    for key in ("scalingAdapter", "gpuMemoryService", "failover", "checkpoint"):
        value = preserved.get(key)
        if dst.get(key) is None and value is not None and not value.get("enabled"):
            dst[key] = deep_copy(value)


def _restore_env_from_secret(dst: Obj, preserved: Obj, main_present: bool) -> None:
    secret = preserved.get("envFromSecret")
    if dst.get("envFromSecret") is not None or secret is None:
        return
    if secret == "":
        dst["envFromSecret"] = ""
        return
    main = (dst.get("extraPodSpec") or {}).get("mainContainer")
    if not main_present or main is None:
        return
    if not semantic_equal(main.get("envFrom"), [{"secretRef": {"name": secret}}], _ENV_FROM):
        return
    dst["envFromSecret"] = secret
    main.pop("envFrom", None)


# Marks a merged probe whose IntOrString port carries both an int and a string half (mergo
# merges the three fields one by one); JSON cannot show it, Semantic.DeepEqual sees it.
_HIDDEN = "\x00hidden-int-or-string"


def _hidden_int_or_string(base: Obj | None, src: Obj | None) -> bool:
    """Whether mergo leaves a port IntOrString with both halves set (base str, src int...)."""
    if base is None or src is None:
        return False
    for handler in ("httpGet", "tcpSocket"):
        a = (base.get(handler) or {}).get("port")
        b = (src.get(handler) or {}).get("port")
        if a is None or b is None:
            continue
        if (isinstance(a, str) and isinstance(b, int) and b != 0) or (
            isinstance(a, int) and a != 0 and isinstance(b, str) and b != ""
        ):
            return True
    return False


def _semantic_main(spec: Obj) -> Obj:
    """semanticMainContainer: dedicated fields merged under extraPodSpec.mainContainer."""

    main: Obj = {"name": MAIN}
    if spec.get("resources") is not None:
        main["resources"] = resources_to_native(spec["resources"])
    if spec.get("envs"):
        main["env"] = list(spec["envs"])
    if spec.get("envFromSecret"):
        main["envFrom"] = [{"secretRef": {"name": spec["envFromSecret"]}}]
    for probe in ("livenessProbe", "readinessProbe"):
        if spec.get(probe) is not None:
            main[probe] = spec[probe]
    mounts = [
        {"name": m.get("name", ""), "mountPath": m.get("mountPoint", "")}
        for m in spec.get("volumeMounts") or []
    ]
    if mounts:
        main["volumeMounts"] = mounts
    extra = (spec.get("extraPodSpec") or {}).get("mainContainer")
    if extra is None:
        return main
    base_env = main.get("env") or []
    dedicated_mounts = list(main.get("volumeMounts") or [])
    hidden = sorted(
        probe
        for probe in ("livenessProbe", "readinessProbe")
        if _hidden_int_or_string(main.get(probe), extra.get(probe))
    )
    merged: Obj = merge(main, {**extra, "name": MAIN}, core_type("Container"))
    if hidden:
        merged[_HIDDEN] = hidden
    envs: list[Obj] = []
    seen: dict[str, int] = {}
    for env in [*base_env, *(extra.get("env") or [])]:  # the alpha mergeEnvs: in place by name
        if env.get("name", "") in seen:
            envs[seen[env.get("name", "")]] = env
        else:
            seen[env.get("name", "")] = len(envs)
            envs.append(env)
    merged["env"] = envs or None
    merged["volumeMounts"] = [*(extra.get("volumeMounts") or []), *dedicated_mounts]
    if extra.get("startupProbe") is not None:
        merged["startupProbe"] = extra["startupProbe"]
    return merged


def _restore_main_container_field_origins(dst: Obj, preserved: Obj, main_present: bool) -> None:
    pmain = (preserved.get("extraPodSpec") or {}).get("mainContainer")
    if not main_present or pmain is None:
        return
    current = _semantic_main(dst)
    wanted = _semantic_main(preserved)

    def same(key: str) -> bool:
        hidden_current = key in current.get(_HIDDEN, ())
        hidden_wanted = key in wanted.get(_HIDDEN, ())
        if hidden_current and hidden_wanted:
            raise NotReproducedError(
                "comparing two merged IntOrString ports is not reproduced",
                f"metadata.annotations.{ANN_DGD_SPEC}.extraPodSpec.mainContainer.{key}",
            )
        if hidden_current or hidden_wanted:
            return False  # Go compares the merged port's unset half too: never equal
        field = next(f for f in _container_fields() if f["json"] == key)
        return semantic_equal(current.get(key), wanted.get(key), field["type"])

    def ensure() -> Obj:
        eps = dst.setdefault("extraPodSpec", {})
        main: Obj = eps.setdefault("mainContainer", {})
        return main

    if same("env") and (preserved.get("envs") or pmain.get("env")):
        set_or_drop(dst, "envs", deep_copy(preserved.get("envs")))
        set_or_drop(ensure(), "env", deep_copy(pmain.get("env")))
    if preserved.get("envFromSecret") is not None and same("envFrom"):
        dst["envFromSecret"] = preserved["envFromSecret"]
    if same("resources") and (
        preserved.get("resources") is not None
        or not is_semantic_zero(pmain.get("resources"), core_type("ResourceRequirements"))
    ):
        set_or_drop(dst, "resources", deep_copy(preserved.get("resources")))
        ensure()["resources"] = deep_copy(pmain.get("resources") or {})
    current_mounts = _without_cache_mounts(current.get("volumeMounts"), dst.get("volumeMounts"))
    wanted_mounts = _without_cache_mounts(wanted.get("volumeMounts"), preserved.get("volumeMounts"))
    if _origins_match_native(wanted_mounts, current_mounts) and (
        preserved.get("volumeMounts") or pmain.get("volumeMounts")
    ):
        set_or_drop(
            dst,
            "volumeMounts",
            _restore_mount_origins(
                preserved.get("volumeMounts") or [],
                dst.get("volumeMounts") or [],
                pmain.get("volumeMounts") or [],
            )
            or None,
        )
        set_or_drop(ensure(), "volumeMounts", deep_copy(pmain.get("volumeMounts")) or None)
    for probe in ("livenessProbe", "readinessProbe"):
        if same(probe) and (preserved.get(probe) is not None or pmain.get(probe) is not None):
            set_or_drop(dst, probe, deep_copy(preserved.get(probe)))
            set_or_drop(ensure(), probe, deep_copy(pmain.get(probe)))


# --- restoreSharedPreservedFlatVolumeMounts ---------------------------------------------


def restore_shared_preserved_flat_volume_mounts(dst: Obj, preserved: Obj, src: Obj) -> None:
    """restoreSharedPreservedFlatVolumeMounts: the compilation-cache flags v1beta1 cannot
    hold (a second cache mount), restored while the live component still shows their
    lossy projection; ``src`` is the v1beta1 component."""
    mounts = preserved.get("volumeMounts") or []
    if sum(1 for m in mounts if m.get("useAsCompilationCache")) <= 1:
        return  # volumeMountsRoundTripThroughHub
    cache = src.get("compilationCache")
    first = next((m for m in mounts if m.get("useAsCompilationCache")), None)
    if first is None or not _cache_matches(cache, first):
        return
    if not _flat_mounts_equal(dst.get("volumeMounts") or [], _visible_projection(src, mounts)):
        return
    merged = _merge_cache_mounts(_restorable_cache_mounts(src, preserved), dst.get("volumeMounts"))
    set_or_drop(dst, "volumeMounts", merged or None)


def _cache_matches(cache: Obj | None, mount: Obj) -> bool:
    """compilationCacheMatchesVolumeMount."""
    return cache is not None and _flat_key(mount) == (
        cache.get("pvcName", ""),
        cache.get("mountPath", ""),
    )


def _main_mounts(src: Obj) -> list[Obj] | None:
    """sharedMainContainer(src).VolumeMounts, or None without a main container."""
    containers = ((src.get("podTemplate") or {}).get("spec") or {}).get("containers") or []
    main = next((c for c in containers if c.get("name") == MAIN), None)
    return None if main is None else list(main.get("volumeMounts") or [])


def _restorable_cache_mounts(src: Obj, preserved: Obj) -> list[Obj]:
    """restorablePreservedCompilationCacheMounts: the first cache mount if the live cache
    is still it; a secondary one while a projected main container still mounts it (or
    nothing projects one)."""
    main = _main_mounts(src)
    projected = main is not None or has_pod_template_content(preserved, False)
    main_keys = {_native_key(m) for m in main or []}
    live: list[Obj] = []
    first_seen = False
    for mount in preserved.get("volumeMounts") or []:
        if not mount.get("useAsCompilationCache"):
            continue
        if not first_seen:
            first_seen = True
            if _cache_matches(src.get("compilationCache"), mount):
                live.append(mount)
            continue
        if not projected or _flat_key(mount) in main_keys:
            live.append(mount)
    return live


def _visible_projection(src: Obj, mounts: list[Obj]) -> list[Obj]:
    """visiblePreservedVolumeMountProjection: the first cache mount, then the main
    container's mounts not already listed."""
    projected = [m for m in mounts if m.get("useAsCompilationCache")][:1]
    for mount in _main_mounts(src) or []:
        flat: Obj = {"name": mount.get("name", ""), "mountPoint": mount.get("mountPath", "")}
        if not any(_flat_key(p) == _flat_key(flat) for p in projected):
            projected.append(flat)
    return projected


def _flat_mounts_equal(a: list[Obj], b: list[Obj]) -> bool:
    """volumeMountsEqual: name, mount point and the cache flag, in order."""

    def key(m: Obj) -> tuple[str, str, bool]:
        return (*_flat_key(m), bool(m.get("useAsCompilationCache")))

    return [key(m) for m in a] == [key(m) for m in b]


def _merge_cache_mounts(preserved: list[Obj], current: list[Obj] | None) -> list[Obj]:
    """mergePreservedCompilationCacheVolumeMounts: the preserved cache mounts first."""
    out: list[Obj] = []
    for mount in preserved:
        if mount.get("useAsCompilationCache") and all(
            _flat_key(o) != _flat_key(mount) for o in out
        ):
            out.append(deep_copy(mount))
    for mount in current or []:
        if all(_flat_key(o) != _flat_key(mount) for o in out):
            out.append(mount)
    return out


def _flat_key(mount: Obj) -> tuple[str, str]:
    return mount.get("name", ""), mount.get("mountPoint", "")


def _native_key(mount: Obj) -> tuple[str, str]:
    return mount.get("name", ""), mount.get("mountPath", "")


def _without_cache_mounts(mounts: list[Obj] | None, flat: list[Obj] | None) -> list[Obj]:
    """withoutCompilationCacheMounts: native mounts not flagged as the cache in ``flat``."""
    cache = {_flat_key(m) for m in flat or [] if m.get("useAsCompilationCache")}
    return [m for m in mounts or [] if _native_key(m) not in cache]


def _origins_match_native(wanted: list[Obj], current: list[Obj]) -> bool:
    """volumeMountOriginsMatchNative(volumeMountsFromNative(wanted), current)."""
    return [_native_key(m) for m in wanted] == [_native_key(m) for m in current]


def _restore_mount_origins(
    preserved: list[Obj], current: list[Obj], preserved_main: list[Obj]
) -> list[Obj]:
    """restorePreservedVolumeMountOrigins."""
    out = [deep_copy(m) for m in preserved if not m.get("useAsCompilationCache")]
    main_keys = {_native_key(m) for m in preserved_main}
    for mount in current:
        key = _flat_key(mount)
        if not mount.get("useAsCompilationCache"):
            if key in main_keys or any(_flat_key(o) == key for o in out):
                continue
            out.append(deep_copy(mount))
            continue
        for existing in out:
            if _flat_key(existing) == key:
                existing["useAsCompilationCache"] = True
                break
        else:
            out.append(deep_copy(mount))
    return out


def _container_fields() -> list[Obj]:

    return struct_fields(CORE + "Container")


def _requirements_equal(a: Obj, b: Obj) -> bool:
    """resourceRequirementsEqual (Semantic.DeepEqual: quantities by value)."""
    return semantic_equal(a, b, core_type("ResourceRequirements"))
