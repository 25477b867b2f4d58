"""Where a component's pod template lives, and the merges every renderer applies to it.

v1alpha1 keeps pod metadata in `extraPodMetadata` (plus the component's own `labels`
and `annotations`) and the main container in `extraPodSpec.mainContainer` with its env
in `envs`; v1beta1 has one `podTemplate` (a PodTemplateSpec) whose container `main` is
the main container.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from renderer.errors import InputError
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_NAME_KEY,
    MAIN_CONTAINER,
    RESTORE_CANDIDATE_KEY,
    TARGET_CONTAINERS_KEY,
)
from renderer.model.dgd import Component, Graph
from renderer.source.model import Path

BACKENDS = ("vllm", "sglang", "trtllm")
# `python -m dynamo.<backend>...` in the main container's command line, as the operator
# detects it (a shell pipeline or `;` ends the match).
_BACKEND_PATTERNS = {
    name: re.compile(r"python[0-9.]*\s+[^|&;]*-m\s+[^|&;]*dynamo\." + name + r"[^|&;]*")
    for name in BACKENDS
}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str_map(value: Any) -> dict[str, str]:
    return {k: v for k, v in _dict(value).items() if isinstance(v, str)}


def pod_labels(graph: Graph, component: Component) -> dict[str, str]:
    """The labels the component asks for on its pods, as written."""
    spec = component.spec
    if graph.is_v1alpha1:
        return {
            **_str_map(spec.get("labels")),
            **_str_map(_dict(spec.get("extraPodMetadata")).get("labels")),
        }
    return _str_map(_dict(_dict(spec.get("podTemplate")).get("metadata")).get("labels"))


def pod_annotations(graph: Graph, component: Component) -> dict[str, str]:
    """The annotations the component asks for on its pods, as written."""
    spec = component.spec
    if graph.is_v1alpha1:
        return {
            **_str_map(spec.get("annotations")),
            **_str_map(_dict(spec.get("extraPodMetadata")).get("annotations")),
        }
    return _str_map(_dict(_dict(spec.get("podTemplate")).get("metadata")).get("annotations"))


# Annotations only the renderer writes, and only where the operator writes them: the
# binding and the restore-candidate set on a checkpointed component's engine pods, the
# binding map on the PodCliqueSet. The operator clears them everywhere else, so a copy
# written in the DGD (at DGD or component level) is dropped.
RESERVED_ANNOTATIONS = frozenset(
    {
        BINDING_KEY,
        RESTORE_CANDIDATE_KEY,
        CHECKPOINT_NAME_KEY,
        TARGET_CONTAINERS_KEY,
        BINDINGS_MAP_KEY,
    }
)


def drop_reserved_annotations(graph: Graph) -> list[tuple[Path, str]]:
    """Remove the reserved annotations the DGD itself writes (DGD-level, and in every
    component's pod metadata) from the model, once, before anything is rendered; returns
    their (path, key), for warnings. The renderers then add only their own copies."""
    dropped: list[tuple[Path, str]] = [
        (("spec", "annotations", k), k) for k in sorted(graph.annotations) if _reserved(k)
    ]
    graph.annotations = {k: v for k, v in graph.annotations.items() if not _reserved(k)}
    for component in graph.components:
        spec = component.spec
        holders: list[tuple[Path, dict[str, Any]]]
        if graph.is_v1alpha1:
            holders = [
                (component.path, spec),
                ((*component.path, "extraPodMetadata"), _dict(spec.get("extraPodMetadata"))),
            ]
        else:
            metadata = _dict(_dict(spec.get("podTemplate")).get("metadata"))
            holders = [((*component.path, "podTemplate", "metadata"), metadata)]
        for path, holder in holders:
            written = holder.get("annotations")
            if not isinstance(written, dict) or not any(map(_reserved, written)):
                continue
            dropped += [
                ((*path, "annotations", k), k) for k in sorted(_str_map(written)) if _reserved(k)
            ]
            holder["annotations"] = {k: v for k, v in written.items() if not _reserved(k)}
    return dropped


def _reserved(key: object) -> bool:
    return key in RESERVED_ANNOTATIONS


def merge_env(common: list[dict[str, Any]], specific: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The operator's env merge: by name, the component's entry wins, sorted by name."""
    merged: dict[str, dict[str, Any]] = {}
    for entry in (*common, *specific):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            merged[entry["name"]] = copy.deepcopy(entry)
    return [merged[name] for name in sorted(merged)]


def main_container(graph: Graph, component: Component) -> dict[str, Any] | None:
    """The main container as written (v1alpha1 mainContainer; v1beta1 container `main`)."""
    if graph.is_v1alpha1:
        main = _dict(component.spec.get("extraPodSpec")).get("mainContainer")
        return main if isinstance(main, dict) else None
    containers = _dict(_dict(component.spec.get("podTemplate")).get("spec")).get("containers")
    for container in containers if isinstance(containers, list) else []:
        if isinstance(container, dict) and container.get("name") == MAIN_CONTAINER:
            return container
    return None


def _string_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def detect_backend(graph: Graph, component: Component) -> str:
    """The backend a worker's main command runs ("" when none is recognisable)."""
    main = main_container(graph, component) or {}
    command_line = " ".join([*_string_list(main.get("command")), *_string_list(main.get("args"))])
    found = [name for name, pattern in _BACKEND_PATTERNS.items() if pattern.search(command_line)]
    if len(found) > 1:
        where = graph.source.where(component.path)
        raise InputError(
            f"component {component.name!r}: multiple backend frameworks detected "
            f"from its command ({', '.join(found)})",
            *_split_where(where),
        )
    return found[0] if found else ""


def _split_where(where: str) -> tuple[str, int, int]:
    file, line, column = where.rsplit(":", 2)
    return file, int(line), int(column)


def backend_framework(graph: Graph) -> str:
    """spec.backendFramework, else the one backend all workers agree on (conflict: error)."""
    if graph.backend_framework:
        return graph.backend_framework
    detected = ""
    detected_by: Component | None = None
    for component in graph.components:
        if not component.is_worker:
            continue
        backend = detect_backend(graph, component)
        if not backend:
            continue
        if detected and backend != detected:
            assert detected_by is not None
            raise InputError(
                "multiple backend frameworks detected for generated DynamoComponentDeployments: "
                f"{detected} (component {detected_by.name!r}) and {backend} (component "
                f"{component.name!r}); set spec.backendFramework",
                *_split_where(graph.source.where(component.path)),
            )
        detected, detected_by = backend, component
    return detected


def component_backend(graph: Graph, component: Component) -> str:
    """The backend the operator renders one component's pods with ("" for none).

    Non-worker components always use the no-op backend; a worker uses the backend its
    own command runs, else the DGD's spec.backendFramework. (The DCD field
    `backendFramework` is graph-wide: see `backend_framework`.)
    """
    if not component.is_worker:
        return ""
    return detect_backend(graph, component) or graph.backend_framework


def grove_pod_spec(graph: Graph, component: Component) -> dict[str, Any]:
    """The PodSpec a Grove clique of this component runs, as the component writes it.

    [our contract] The operator also injects its own defaults (ports, probes, env from
    its configuration); those depend on the cluster's operator configuration and are not
    rendered. Here: the component's pod spec with the main container named `main` first
    and the DGD env merged into it at low priority.
    """
    if graph.is_v1alpha1:
        extra = copy.deepcopy(_dict(component.spec.get("extraPodSpec")))
        main = _dict(extra.pop("mainContainer", None))
        containers = [c for c in extra.pop("containers", None) or [] if isinstance(c, dict)]
        main = {"name": MAIN_CONTAINER, **{k: v for k, v in main.items() if k != "name"}}
        env = merge_env(graph.env, _list(component.spec.get("envs")))
        if env:
            main["env"] = merge_env(env, _list(main.get("env")))
        pod: dict[str, Any] = {"containers": [main, *containers], **extra}
        return pod
    pod = copy.deepcopy(_dict(_dict(component.spec.get("podTemplate")).get("spec")))
    _merge_main_env(pod, graph.env)
    return pod


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _merge_main_env(pod_spec: dict[str, Any], env: list[dict[str, Any]]) -> None:
    """Merge DGD env into the `main` container of a v1beta1 pod spec (in place)."""
    if not env:
        return
    containers = pod_spec.setdefault("containers", [])
    if not isinstance(containers, list):
        return
    for container in containers:
        if isinstance(container, dict) and container.get("name") == MAIN_CONTAINER:
            container["env"] = merge_env(env, _list(container.get("env")))
            return
    # No main container written: the operator's base container receives the env.
    containers.insert(0, {"name": MAIN_CONTAINER, "env": merge_env(env, [])})


def merge_dgd_env_v1beta1(pod_spec: dict[str, Any], graph: Graph) -> None:
    """The DCD path's env merge for a v1beta1 pod template spec (in place)."""
    _merge_main_env(pod_spec, graph.env)
