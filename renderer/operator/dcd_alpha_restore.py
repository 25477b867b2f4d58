"""fillSharedAlphaOnlyFromPreserved for a v1alpha1-origin DGD (api/v1alpha1 conversion).

When the admitted DGD came from v1alpha1, its ``nvidia.com/dgd-spec`` annotation keeps the
alpha-only fields of each service; ConvertFrom restores them onto the alpha spec it derives
from the v1beta1 component (restoreSharedAlphaOnlySimpleFields, restoreSharedAlphaOnlyPodFields,
restoreMainContainerFieldOrigins, restoreSharedAlphaOnlyDisabledFeatures). Records this
module does not reproduce are refused by ``check_restorable`` with the annotation path.
"""

from __future__ import annotations

import copy

from renderer.operator.dcd_alpha import (
    ANN_DGD_SPEC,
    MAIN,
    Obj,
    _empty,
    _needs_eps_preservation,
    _quantity_is_zero,
    _resources_need_preservation,
    _sem_equal,
    _semantic,
    _set,
    _shm_needs_preservation,
    resources_to_native,
)
from renderer.operator.typed_json import NotReproducedError

_RESTORABLE = {
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
FRONTEND_SIDECAR = "sidecar-frontend"


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
            dst[key] = copy.deepcopy(preserved[key])
    for key in ("annotations", "labels"):
        if not dst.get(key) and preserved.get(key):
            dst[key] = dict(preserved[key])
    # restoreSharedAlphaOnlyPodFields
    pshm = preserved.get("sharedMemory")
    if pshm is not None and _shm_needs_preservation(pshm):
        dshm = dst.get("sharedMemory")
        if dshm is None or (
            pshm.get("disabled") and dshm.get("disabled") and _quantity_is_zero(dshm.get("size"))
        ):
            dst["sharedMemory"] = copy.deepcopy(pshm)
    presources = preserved.get("resources")
    if (
        main_present
        and presources is not None
        and _resources_need_preservation(presources)
        and _sem_equal(
            resources_to_native(dst.get("resources") or {}), resources_to_native(presources)
        )
    ):
        dst["resources"] = copy.deepcopy(presources)
    _restore_env_from_secret(dst, preserved, main_present)
    pepm = preserved.get("extraPodMetadata")
    if (
        dst.get("extraPodMetadata") is None
        and pepm is not None
        and not pepm.get("annotations")
        and not pepm.get("labels")
    ):
        dst["extraPodMetadata"] = copy.deepcopy(pepm)
    peps = preserved.get("extraPodSpec")
    if peps is not None and _needs_eps_preservation(peps) and dst.get("extraPodSpec") is None:
        dst["extraPodSpec"] = copy.deepcopy(peps)
    _restore_main_container_field_origins(dst, preserved, main_present)
    dmain = (dst.get("extraPodSpec") or {}).get("mainContainer")
    pmain = (peps or {}).get("mainContainer")
    if dmain is not None and not dmain.get("name") and pmain is not None and pmain.get("name"):
        dmain["name"] = pmain["name"]
    # restoreSharedAlphaOnlyDisabledFeatures
    for key in ("scalingAdapter", "gpuMemoryService", "failover", "checkpoint"):
        value = preserved.get(key)
        if dst.get(key) is None and value is not None and not value.get("enabled"):
            dst[key] = copy.deepcopy(value)


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
    if _semantic(main.get("envFrom")) != [{"secretRef": {"name": secret}}]:
        return
    dst["envFromSecret"] = secret
    main.pop("envFrom", None)


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
    if extra is not None:
        base_env = main.get("env") or []
        dedicated_mounts = list(main.get("volumeMounts") or [])
        for key, value in extra.items():
            if not _empty(value):  # mergo WithOverride: non-zero source fields win
                main[key] = copy.deepcopy(value)
        main["name"] = MAIN
        merged: list[Obj] = []
        seen: dict[str, int] = {}
        for e in list(base_env) + list(extra.get("env") or []):
            if e.get("name") in seen:
                merged[seen[e["name"]]] = e
            else:
                seen[e.get("name", "")] = len(merged)
                merged.append(e)
        main["env"] = merged
        main["volumeMounts"] = list(extra.get("volumeMounts") or []) + dedicated_mounts
    return main


def _restore_main_container_field_origins(dst: Obj, preserved: Obj, main_present: bool) -> None:
    pmain = (preserved.get("extraPodSpec") or {}).get("mainContainer")
    if not main_present or pmain is None:
        return
    current = _semantic_main(dst)
    wanted = _semantic_main(preserved)

    def ensure() -> Obj:
        eps = dst.setdefault("extraPodSpec", {})
        main: Obj = eps.setdefault("mainContainer", {})
        return main

    if _sem_equal(current.get("env"), wanted.get("env")) and (
        preserved.get("envs") or pmain.get("env")
    ):
        _set(dst, "envs", copy.deepcopy(preserved.get("envs")))
        _set(ensure(), "env", copy.deepcopy(pmain.get("env")))
    if preserved.get("envFromSecret") is not None and _sem_equal(
        current.get("envFrom"), wanted.get("envFrom")
    ):
        dst["envFromSecret"] = preserved["envFromSecret"]
    if _sem_equal(current.get("resources"), wanted.get("resources")) and (
        preserved.get("resources") is not None or _semantic(pmain.get("resources"))
    ):
        _set(dst, "resources", copy.deepcopy(preserved.get("resources")))
        ensure()["resources"] = copy.deepcopy(pmain.get("resources") or {})
    if preserved.get("volumeMounts") or pmain.get("volumeMounts"):
        raise NotReproducedError(
            "restoring preserved volume-mount origins is not reproduced",
            f"metadata.annotations.{ANN_DGD_SPEC}.volumeMounts",
        )
    for probe in ("livenessProbe", "readinessProbe"):
        if _sem_equal(current.get(probe), wanted.get(probe)) and (
            preserved.get(probe) is not None or pmain.get(probe) is not None
        ):
            _set(dst, probe, copy.deepcopy(preserved.get(probe)))
            _set(ensure(), probe, copy.deepcopy(pmain.get(probe)))
