"""shared_spec_conversion.go, hub-origin half: restoring hub-only fields on ConvertTo.

A v1alpha1 object the operator itself wrote from a v1beta1 one (``ConvertFrom``, e.g. a
``kubectl get`` of the v1alpha1 view) carries the hub-only remainder of its spec in the
``nvidia.com/dgd-spec`` annotation. ``ConvertTo`` then restores, per component, what the
v1alpha1 fields cannot express: pod-template metadata beyond labels/annotations, sidecar
containers and their order, the absence of a generated ``main`` container, volume-mount
fields, the frontend-sidecar name and the hub-only experimental block.

Sparse values throughout (see goruntime.encoding_json).
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.equality import is_semantic_zero
from renderer.goruntime.mergo import merge
from renderer.goruntime.typetable import CORE, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission.conversion_resources import resources_need_preservation

MAIN = consts.MAIN_CONTAINER_NAME
SIDECAR = consts.FRONTEND_SIDECAR_CONTAINER_NAME

_CONTAINER = struct_type(CORE + "Container")
_POD_TEMPLATE = struct_type(CORE + "PodTemplateSpec")


def _containers(pod: dict[str, Any] | None) -> list[dict[str, Any]]:
    if pod is None:
        return []
    out: list[dict[str, Any]] = (pod.get("spec") or {}).get("containers") or []
    return out


def _find(containers: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    for c in containers:
        if c.get("name", "") == name:
            return c
    return None


def _set_containers(pod: dict[str, Any], containers: list[dict[str, Any]] | None) -> None:
    spec = pod.setdefault("spec", {})
    if containers is None:
        spec.pop("containers", None)
    else:
        spec["containers"] = containers
    if not spec:
        pod.pop("spec")


def container_is_empty(c: dict[str, Any] | None) -> bool:
    """containerIsEmpty (the name ignored)."""
    if c is None:
        return True
    return is_semantic_zero({k: v for k, v in c.items() if k != "name"}, _CONTAINER)


def _pod_template_is_zero(pod: dict[str, Any] | None) -> bool:
    return pod is not None and is_semantic_zero(pod, _POD_TEMPLATE)


def restore_shared_hub_only_fields(
    dst: dict[str, Any], preserved: dict[str, Any], src: dict[str, Any]
) -> None:
    """restoreSharedHubOnlyFields: fill ``dst`` (the hub component) from ``preserved``."""
    pod = restore_shared_pod_template_hub_only_fields(
        preserved, dst.get("podTemplate"), dst.get("compilationCache"), src
    )
    if pod is None:
        dst.pop("podTemplate", None)
    else:
        dst["podTemplate"] = pod
    _restore_frontend_sidecar(dst, preserved)
    exp = preserved.get("experimental")
    if "experimental" not in dst and _experimental_is_hub_only_shape(exp):
        dst["experimental"] = deep_copy(exp)
    elif (
        "experimental" in dst
        and exp is not None
        and "grove" not in dst["experimental"]
        and "grove" in exp
    ):
        dst["experimental"]["grove"] = deep_copy(exp["grove"])


def _experimental_is_hub_only_shape(exp: dict[str, Any] | None) -> bool:
    return exp is not None and not any(
        k in exp for k in ("gpuMemoryService", "failover", "checkpoint")
    )


def _restore_frontend_sidecar(dst: dict[str, Any], preserved: dict[str, Any]) -> None:
    name = preserved.get("frontendSidecar")
    if "frontendSidecar" in dst or name is None:
        return
    in_preserved = _find(_containers(preserved.get("podTemplate")), name) is not None
    if in_preserved and _find(_containers(dst.get("podTemplate")), name) is None:
        return
    dst["frontendSidecar"] = name


def restore_shared_pod_template_hub_only_fields(
    preserved: dict[str, Any],
    semantic: dict[str, Any] | None,
    cache: dict[str, Any] | None,
    src: dict[str, Any],
) -> dict[str, Any] | None:
    """restoreSharedPodTemplateHubOnlyFields."""
    saved = preserved.get("podTemplate")
    if saved is None:
        return deep_copy(semantic)
    out = deep_copy(semantic) if semantic is not None else {}
    _drop_generated_compilation_cache_mount(out, saved, cache, src)
    _drop_generated_main_container(out, saved, cache, src)
    _restore_missing_containers(out, saved, src)
    _restore_existing_sidecar(out, saved, src)
    _restore_container_order(out, saved)
    _restore_metadata(out, saved)
    _restore_flat_volume_mount_fields(out, saved, src)
    if _pod_template_is_zero(saved) and _pod_template_is_zero(out):
        return out
    return None if _pod_template_is_zero(out) else out


def _mount_matches(mount: dict[str, Any], name: str, path: str) -> bool:
    return bool(mount.get("name", "") == name and mount.get("mountPath", "") == path)


def _drop_generated_compilation_cache_mount(
    out: dict[str, Any], saved: dict[str, Any], cache: dict[str, Any] | None, src: dict[str, Any]
) -> None:
    if cache is None:
        return
    name, path = cache.get("pvcName", ""), cache.get("mountPath", "")
    saved_main = _find(_containers(saved), MAIN)
    if saved_main is not None and any(
        _mount_matches(m, name, path) for m in saved_main.get("volumeMounts") or []
    ):
        return
    src_main = (src.get("extraPodSpec") or {}).get("mainContainer") or {}
    if any(_mount_matches(m, name, path) for m in src_main.get("volumeMounts") or []):
        return
    main = _find(_containers(out), MAIN)
    if main is not None and main.get("volumeMounts") is not None:
        kept = [m for m in main["volumeMounts"] if not _mount_matches(m, name, path)]
        main["volumeMounts"] = kept


def _drop_generated_main_container(
    out: dict[str, Any], saved: dict[str, Any], cache: dict[str, Any] | None, src: dict[str, Any]
) -> None:

    if _find(_containers(saved), MAIN) is not None:
        return
    if resources_need_preservation(src.get("resources")):
        return
    containers = _containers(out)
    for i, c in enumerate(containers):
        if c.get("name", "") != MAIN:
            continue
        probe = deep_copy(c)
        if cache is not None and probe.get("volumeMounts") is not None:
            name, path = cache.get("pvcName", ""), cache.get("mountPath", "")
            probe["volumeMounts"] = [
                m for m in probe["volumeMounts"] if not _mount_matches(m, name, path)
            ]
        if container_is_empty(probe):
            rest = containers[:i] + containers[i + 1 :]
            _set_containers(out, rest or None)
        return


def _restore_missing_containers(
    out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]
) -> None:
    for c in _containers(saved):
        name = c.get("name", "")
        if container_is_empty(c) or _find(_containers(out), name) is not None:
            continue
        if name == SIDECAR and "frontendSidecar" not in src:
            continue  # the generated sidecar's live field is gone: the remainder is stale
        _set_containers(out, [*_containers(out), deep_copy(c)])


def _restore_existing_sidecar(
    out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]
) -> None:
    fs = src.get("frontendSidecar")
    if fs is None:
        return
    saved_sidecar = _find(_containers(saved), SIDECAR)
    if saved_sidecar is None or container_is_empty(saved_sidecar):
        return
    containers = _containers(out)
    for i, c in enumerate(containers):
        if c.get("name", "") != SIDECAR:
            continue
        extra = deep_copy(saved_sidecar)
        for key in ("name", "image", "args", "env"):
            extra.pop(key, None)
        if extra.get("envFrom"):
            env_from = _restore_sidecar_env_from(c.get("envFrom"), extra["envFrom"], fs)
            if env_from is None:
                extra.pop("envFrom")
            else:
                extra["envFrom"] = env_from
        containers[i] = merge(c, extra, _CONTAINER)
        return


def _restore_sidecar_env_from(
    current: list[dict[str, Any]] | None, saved: list[dict[str, Any]], fs: dict[str, Any]
) -> list[dict[str, Any]] | None:
    secret = fs.get("envFromSecret")
    if not secret:
        return deep_copy(saved) or None
    current = current or []
    if (
        len(current) != 1
        or len(saved) != 1
        or "secretRef" not in current[0]
        or "secretRef" not in saved[0]
        or current[0]["secretRef"].get("name", "") != secret
        or saved[0]["secretRef"].get("name", "") != secret
    ):
        return None
    out = deep_copy(saved)
    out[0]["secretRef"]["name"] = current[0]["secretRef"]["name"]
    return out


def _restore_container_order(out: dict[str, Any], saved: dict[str, Any]) -> None:
    saved_names = [c.get("name", "") for c in _containers(saved)]
    current = _containers(out)
    if len(saved_names) < 2 or len(saved_names) != len(current):
        return
    if any(c.get("name", "") not in saved_names for c in current):
        return
    remaining = list(current)
    ordered = []
    for name in saved_names:
        for i, c in enumerate(remaining):
            if c.get("name", "") == name:
                ordered.append(c)
                del remaining[i]
                break
    _set_containers(out, ordered + remaining)


def _restore_metadata(out: dict[str, Any], saved: dict[str, Any]) -> None:
    current = out.get("metadata") or {}
    meta = deep_copy(saved.get("metadata") or {})
    meta.pop("labels", None)
    meta.pop("annotations", None)
    for key in ("labels", "annotations"):
        if current.get(key) is not None:
            meta[key] = deep_copy(current[key])
    if meta:
        out["metadata"] = meta
    else:
        out.pop("metadata", None)


def _restore_flat_volume_mount_fields(
    out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]
) -> None:
    flat = src.get("volumeMounts") or []
    if not flat:
        return
    saved_main = _find(_containers(saved), MAIN)
    if saved_main is None or not saved_main.get("volumeMounts"):
        return
    main = _find(_containers(out), MAIN)
    if main is None:
        return
    src_main = (src.get("extraPodSpec") or {}).get("mainContainer") or {}
    for j, mount in enumerate(main.get("volumeMounts") or []):
        name, path = mount.get("name", ""), mount.get("mountPath", "")
        if not any(v.get("name", "") == name and v.get("mountPoint", "") == path for v in flat):
            continue
        if any(_mount_matches(m, name, path) for m in src_main.get("volumeMounts") or []):
            continue
        found = _find_preserved_mount(saved_main["volumeMounts"], name, path)
        if found is not None:
            restored = deep_copy(found)
            restored.pop("name", None)
            restored.pop("mountPath", None)
            if name:
                restored["name"] = name
            if path:
                restored["mountPath"] = path
            main["volumeMounts"][j] = restored


def _find_preserved_mount(
    mounts: list[dict[str, Any]], name: str, path: str
) -> dict[str, Any] | None:
    for m in mounts:
        if _mount_matches(m, name, path):
            return m
    matches = [m for m in mounts if m.get("name", "") == name]
    return matches[0] if len(matches) == 1 else None
