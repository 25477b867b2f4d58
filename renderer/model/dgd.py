"""DGD normalisation: v1alpha1 `spec.services` and v1beta1 `spec.components` into one model.

The renderers never look at the raw DGD layout again: everything version-specific
(where the pod template lives, how GMS and checkpointing are spelled) is resolved here,
with a located InputError for every value of the wrong type.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from renderer.errors import InputError
from renderer.source.model import Path, SourceObject

V1ALPHA1 = "nvidia.com/v1alpha1"
V1BETA1 = "nvidia.com/v1beta1"
DGD_KIND = "DynamoGraphDeployment"
WORKER_TYPES = frozenset({"worker", "prefill", "decode"})
ENABLE_GROVE_ANNOTATION = "nvidia.com/enable-grove"
GLOBAL_DYNAMO_NAMESPACE = "dynamo"

# Kubernetes name rules: a DGD name is a DNS-1123 subdomain, a namespace a DNS-1123
# label. Checked up front so no name can smuggle `/`, `..` or NUL into a file path.
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(_LABEL + r"\Z")
_DNS1123_SUBDOMAIN = re.compile(_LABEL + r"(\." + _LABEL + r")*\Z")


def is_worker_type(component_type: str) -> bool:
    """Worker-class components are the only ones checkpointed and worker-hashed."""
    return component_type in WORKER_TYPES


@dataclass(frozen=True)
class CheckpointConfig:
    """A component's `checkpoint` block, defaults applied."""

    enabled: bool
    mode: str  # Auto | Manual
    startup_policy: str  # Immediate | WaitForCheckpoint
    deletion_policy: str  # Delete | Retain
    checkpoint_ref: str | None
    path: Path  # where the block is in the DGD, for messages
    # targetContainerName: the container a restore targets (None: as the checkpoint says)
    target_container: str | None = None


@dataclass
class Component:
    """One DGD component, whatever the DGD version."""

    name: str  # as written (map key or `name`)
    index: int  # position in the DGD (component order)
    path: Path  # path of the component in the DGD
    type: str  # componentType / type ("" when absent)
    replicas: int | None
    node_count: int  # multinode.nodeCount, 1 when single-node
    gms_mode: str  # "", "intraPod" or "interPod"
    checkpoint: CheckpointConfig | None
    min_available: int | None
    global_namespace: bool
    spec: dict[str, Any]  # deep copy of the component as written

    @property
    def lower_name(self) -> str:
        return self.name.lower()

    @property
    def is_worker(self) -> bool:
        return is_worker_type(self.type)

    @property
    def checkpointed(self) -> bool:
        """Checkpoint-enabled and worker-class: the components that get a binding."""
        return self.is_worker and self.checkpoint is not None and self.checkpoint.enabled

    @property
    def multinode(self) -> bool:
        return self.node_count > 1

    @property
    def inter_pod_gms(self) -> bool:
        return self.gms_mode == "interPod"


@dataclass
class Graph:
    """A normalised DGD."""

    source: SourceObject
    api_version: str  # nvidia.com/v1alpha1 | nvidia.com/v1beta1
    name: str
    namespace: str
    components: list[Component]
    labels: dict[str, str]  # spec.labels
    annotations: dict[str, str]  # spec.annotations
    env: list[dict[str, Any]]  # spec.envs (v1alpha1) / spec.env (v1beta1)
    backend_framework: str  # spec.backendFramework ("" when absent)
    priority_class_name: str | None
    metadata_annotations: dict[str, str] = field(default_factory=dict)

    @property
    def version(self) -> str:
        return self.api_version.rsplit("/", 1)[1]

    @property
    def is_v1alpha1(self) -> bool:
        return self.api_version == V1ALPHA1

    @property
    def grove_enabled(self) -> bool:
        """The operator's switch for the Grove path: annotation `nvidia.com/enable-grove`."""
        return self.metadata_annotations.get(ENABLE_GROVE_ANNOTATION) == "true"

    def dynamo_namespace(self, component: Component) -> str:
        """`<k8s namespace>-<dgd name>`, or `dynamo` for a global-namespace component.

        Dots in the DGD name become hyphens, as the operator's ComputeDynamoNamespace
        does: the Dynamo namespace is the first segment of dotted endpoint paths.
        """
        if component.global_namespace:
            return GLOBAL_DYNAMO_NAMESPACE
        return f"{self.namespace}-{self.name.replace('.', '-')}"


class _Reader:
    """Typed access to the DGD's values, failing at the offending value's position."""

    def __init__(self, obj: SourceObject) -> None:
        self.obj = obj

    def fail(self, path: Path, message: str) -> InputError:
        mark = self.obj.mark(path, key=False)
        return InputError(message, self.obj.file, mark.line, mark.column)

    @staticmethod
    def dotted(path: Path) -> str:
        return ".".join(str(p) for p in path)

    def get(self, data: dict[str, Any], path: Path, key: str, kind: type | tuple[type, ...]) -> Any:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) and kind in (int, (int,)):
            raise self.fail((*path, key), f"{self.dotted((*path, key))} must be an integer")
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            expected = {
                "dict": "a mapping",
                "list": "a list",
                "str": "a string",
                "int": "an integer",
                "bool": "a boolean",
            }.get(names, names)
            raise self.fail((*path, key), f"{self.dotted((*path, key))} must be {expected}")
        return value

    def mapping(self, data: dict[str, Any], path: Path, key: str) -> dict[str, Any]:
        value = self.get(data, path, key, dict)
        return value if value is not None else {}

    def string_map(self, data: dict[str, Any], path: Path, key: str) -> dict[str, str]:
        value = self.mapping(data, path, key)
        for k, v in value.items():
            if not isinstance(v, str):
                raise self.fail((*path, key, k), f"{self.dotted((*path, key, k))} must be a string")
        return dict(value)

    def positive_int(self, data: dict[str, Any], path: Path, key: str, minimum: int) -> int | None:
        value = self.get(data, path, key, int)
        where = self.dotted((*path, key))
        if value is not None and not -(2**31) <= value <= 2**31 - 1:
            # the operator's field is an int32: Go's decoder refuses the number outright
            raise self.fail(
                (*path, key),
                f"{where} {value} is out of range: the field is a 32-bit integer"
                f" (at most {2**31 - 1})",
            )
        if value is not None and value < minimum:
            raise self.fail((*path, key), f"{where} must be >= {minimum}")
        return value  # type: ignore[no-any-return]


def _gms_mode(reader: _Reader, gms: dict[str, Any], path: Path, *, alpha: bool) -> str:
    if not gms:
        return ""
    if alpha and reader.get(gms, path, "enabled", bool) is not True:
        return ""
    mode = reader.get(gms, path, "mode", str) or "intraPod"
    normalised = {"intrapod": "intraPod", "interpod": "interPod"}.get(mode.lower())
    if normalised is None:
        raise reader.fail(
            (*path, "mode"),
            f"{reader.dotted((*path, 'mode'))}: unknown GPU memory "
            f"service mode {mode!r} (expected intraPod or interPod)",
        )
    return normalised


def _checkpoint(reader: _Reader, block: dict[str, Any], path: Path) -> CheckpointConfig | None:
    if not block:
        return None
    enabled = reader.get(block, path, "enabled", bool) is True
    mode = reader.get(block, path, "mode", str) or "Auto"
    policy = reader.get(block, path, "startupPolicy", str) or "Immediate"
    if policy not in ("Immediate", "WaitForCheckpoint"):
        raise reader.fail(
            (*path, "startupPolicy"),
            f"{reader.dotted((*path, 'startupPolicy'))}: "
            f"unknown startup policy {policy!r} (expected Immediate or WaitForCheckpoint)",
        )
    deletion = reader.get(block, path, "deletionPolicy", str) or "Delete"
    ref = reader.get(block, path, "checkpointRef", str) or None
    target = reader.get(block, path, "targetContainerName", str) or None
    return CheckpointConfig(enabled, mode, policy, deletion, ref, path, target)


def _component(
    reader: _Reader, name: str, index: int, path: Path, raw: Any, *, alpha: bool
) -> Component:
    if not isinstance(raw, dict):
        raise reader.fail(path, f"{reader.dotted(path)} must be a mapping")
    type_key = "componentType" if alpha else "type"
    component_type = reader.get(raw, path, type_key, str) or ""
    replicas = reader.positive_int(raw, path, "replicas", 0)
    multinode = reader.mapping(raw, path, "multinode")
    node_count = reader.positive_int(multinode, (*path, "multinode"), "nodeCount", 1) or 1
    if alpha:
        gms_path: Path = (*path, "gpuMemoryService")
        ckpt_path: Path = (*path, "checkpoint")
        gms = reader.mapping(raw, path, "gpuMemoryService")
        ckpt = reader.mapping(raw, path, "checkpoint")
    else:
        experimental = reader.mapping(raw, path, "experimental")
        gms_path = (*path, "experimental", "gpuMemoryService")
        ckpt_path = (*path, "experimental", "checkpoint")
        gms = reader.mapping(experimental, (*path, "experimental"), "gpuMemoryService")
        ckpt = reader.mapping(experimental, (*path, "experimental"), "checkpoint")
    key = "globalDynamoNamespace"
    return Component(
        name=name,
        index=index,
        path=path,
        type=component_type,
        replicas=replicas,
        node_count=node_count,
        gms_mode=_gms_mode(reader, gms, gms_path, alpha=alpha),
        checkpoint=_checkpoint(reader, ckpt, ckpt_path),
        min_available=reader.positive_int(raw, path, "minAvailable", 0),
        global_namespace=reader.get(raw, path, key, bool) is True,
        spec=copy.deepcopy(raw),
    )


def _check_component_name(reader: _Reader, name: str, path: Path) -> None:
    lowered = name.lower()
    if len(lowered) > 63 or not _DNS1123_LABEL.match(lowered):
        raise reader.fail(
            path,
            f"component name {name!r} is not a valid Kubernetes name once "
            "lower-cased (letters, digits and '-', at most 63 characters)",
        )


def _components(reader: _Reader, spec: dict[str, Any], *, alpha: bool) -> list[Component]:
    components: list[Component] = []
    if alpha:
        services = reader.mapping(spec, ("spec",), "services")
        for index, (name, raw) in enumerate(services.items()):
            path: Path = ("spec", "services", name)
            _check_component_name(reader, name, path)
            components.append(_component(reader, name, index, path, raw, alpha=True))
    else:
        items = reader.get(spec, ("spec",), "components", list) or []
        for index, raw in enumerate(items):
            path = ("spec", "components", index)
            if not isinstance(raw, dict):
                raise reader.fail(path, f"spec.components.{index} must be a mapping")
            name = reader.get(raw, path, "name", str)
            if not name:
                raise reader.fail(path, f"spec.components.{index} has no name")
            _check_component_name(reader, name, (*path, "name"))
            components.append(_component(reader, name, index, path, raw, alpha=False))
    if not components:
        where = "spec.services" if alpha else "spec.components"
        raise reader.fail(("spec",), f"the DGD has no components ({where} is empty)")
    seen: dict[str, Component] = {}
    for component in components:
        other = seen.get(component.lower_name)
        if other is not None:
            raise reader.fail(
                component.path,
                f"components {other.name!r} and {component.name!r} "
                "have the same name once lower-cased (their objects would collide)",
            )
        seen[component.lower_name] = component
    return components


def _described(value: Any) -> str:
    """`the number 123`, `a list`: what a wrongly typed value is, for messages."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, dict):
        return "a mapping"
    return "a list" if isinstance(value, list) else "null"


def normalise(obj: SourceObject) -> Graph:
    """The component model of a DGD object (InputError, located, on anything malformed)."""
    reader = _Reader(obj)
    if obj.kind != DGD_KIND:
        raise reader.fail(("kind",), f"expected a {DGD_KIND}, got kind {obj.kind!r}")
    if obj.api_version not in (V1ALPHA1, V1BETA1):
        raise reader.fail(
            ("apiVersion",),
            f"unsupported DGD apiVersion {obj.api_version!r} (expected {V1ALPHA1} or {V1BETA1})",
        )
    for meta_key in ("name", "namespace"):
        raw = obj.metadata.get(meta_key)
        if raw is not None and not isinstance(raw, str):
            raise reader.fail(
                ("metadata", meta_key),
                f"metadata.{meta_key} must be a string, not {_described(raw)}",
            )
    name, namespace = obj.name, obj.namespace
    if len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name):
        raise reader.fail(("metadata", "name"), f"DGD name {name!r} is not a valid Kubernetes name")
    if not namespace:
        raise reader.fail(
            ("metadata",),
            "the DGD has no metadata.namespace (rendered objects need one): pass"
            " -n/--namespace NS, as with kubectl apply -n, or set it in the DGD",
        )
    if len(namespace) > 63 or not _DNS1123_LABEL.match(namespace):
        raise reader.fail(
            ("metadata", "namespace"),
            f"namespace {namespace!r} is not a valid Kubernetes namespace",
        )
    spec = reader.mapping(obj.data, (), "spec")
    alpha = obj.api_version == V1ALPHA1
    env_key = "envs" if alpha else "env"
    env = reader.get(spec, ("spec",), env_key, list) or []
    for i, item in enumerate(env):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise reader.fail(
                ("spec", env_key, i), f"spec.{env_key}.{i} must be an env var with a name"
            )
    return Graph(
        source=obj,
        api_version=obj.api_version,
        name=name,
        namespace=namespace,
        components=_components(reader, spec, alpha=alpha),
        labels=reader.string_map(spec, ("spec",), "labels"),
        annotations=reader.string_map(spec, ("spec",), "annotations"),
        env=copy.deepcopy(env),
        backend_framework=reader.get(spec, ("spec",), "backendFramework", str) or "",
        priority_class_name=reader.get(spec, ("spec",), "priorityClassName", str) or None,
        metadata_annotations=reader.string_map(dict(obj.metadata), ("metadata",), "annotations"),
    )
