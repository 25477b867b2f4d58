"""The backend layer of internal/dynamo/graph.go: roles, frameworks, the Backend protocol.

``GenerateBasePodSpec`` asks ``backend_factory`` (its own module) for the component's
backend and calls its two hooks: ``update_container`` on the merged main container (before
the pod spec exists) and ``update_pod_spec`` on the finished pod spec. Both mutate their
argument in place, as the Go methods do through pointers. Containers and pod specs are JSON
dicts keyed by the corev1 json tags; a component is the v1beta1
``DynamoComponentDeploymentSharedSpec`` dict.

The framework is chosen by ``determine_backend_framework``: only worker-type components get
one; it is detected from ``python -m dynamo.<backend>`` in the main container's command line
and checked against the DGD's ``spec.backendFramework``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any, Final, Protocol

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator.errors import OperatorError
from renderer.operator.graph_env import is_worker_component
from renderer.operator.v1beta1_helpers import get_main_container

JSON = dict[str, Any]

# Role (graph.go): what a pod is within its component.
ROLE_LEADER: Final = "leader"
ROLE_WORKER: Final = "worker"
ROLE_MAIN: Final = "main"
ROLE_CHECKPOINT: Final = "checkpoint"
ROLE_GMS: Final = "gms"

# BackendFramework (graph.go).
BACKEND_FRAMEWORK_SGLANG: Final = "sglang"
BACKEND_FRAMEWORK_VLLM: Final = "vllm"
BACKEND_FRAMEWORK_TRTLLM: Final = "trtllm"
BACKEND_FRAMEWORK_NOOP: Final = "noop"

#: ContainerGPUCount: lazily resolves the main container's GPU count; raises BackendError.
ContainerGPUCount = Callable[[], int]


class BackendError(OperatorError):
    """An error a backend function returns in Go (the message is the operator's wording)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MultinodeDeployer(Protocol):
    """MultinodeDeployer: how the pods of one multinode component find each other.

    Every implementation returns Kubernetes ``$(VAR)`` expansion syntax, which the kubelet
    substitutes in command and args; ``get_node_rank``'s flag says a shell is needed.
    """

    def get_leader_hostname(self, service_name: str) -> str: ...

    def get_host_names(self, service_name: str, number_of_nodes: int) -> list[str]: ...

    def get_node_rank(self) -> tuple[str, bool]: ...

    def needs_dns_wait(self) -> bool: ...


class Backend(Protocol):
    """Backend: the framework-specific container and pod-spec changes."""

    def update_container(  # noqa: PLR0917 - Go parameter order
        self,
        container: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
        container_gpus: ContainerGPUCount,
    ) -> None: ...

    def update_pod_spec(  # noqa: PLR0917 - Go parameter order
        self,
        pod_spec: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> None: ...


class NoopBackend:
    """NoopBackend: frontends, planners and workers without a framework are left alone."""

    def update_container(  # noqa: PLR0917 - Go parameter order
        self,
        container: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
        container_gpus: ContainerGPUCount,
    ) -> None:
        """Nothing to change."""

    def update_pod_spec(  # noqa: PLR0917 - Go parameter order
        self,
        pod_spec: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> None:
        """Nothing to change."""


def parse_backend_framework(framework: str) -> str:
    """ParseBackendFramework: the framework named, or BackendError for an unknown one."""
    if framework in (
        BACKEND_FRAMEWORK_VLLM,
        BACKEND_FRAMEWORK_SGLANG,
        BACKEND_FRAMEWORK_TRTLLM,
        BACKEND_FRAMEWORK_NOOP,
    ):
        return framework
    raise BackendError(
        f"unsupported backend framework: {framework} (valid values: vllm, sglang, trtllm)"
    )


@cache
def _detect_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    # Go's \s is ASCII whitespace only (no \v); spelled out so Python matches the same text.
    space = r"[\t\n\f\r ]"
    return tuple(
        (
            framework,
            re.compile(rf"python[0-9.]*{space}+[^|&;]*-m{space}+[^|&;]*dynamo\.{framework}[^|&;]*"),
        )
        for framework in (
            BACKEND_FRAMEWORK_VLLM,
            BACKEND_FRAMEWORK_SGLANG,
            BACKEND_FRAMEWORK_TRTLLM,
        )
    )


def detect_backend_framework_from_args(command: list[str], args: list[str]) -> str:
    """DetectBackendFrameworkFromArgs: the framework ``python -m dynamo.<x>`` names, or noop."""
    full_command = " ".join([*command, *args])
    detected = [f for f, pattern in _detect_patterns() if pattern.search(full_command)]
    if not detected:
        return BACKEND_FRAMEWORK_NOOP
    if len(detected) > 1:
        # Go ranges over a map here, so its list order varies run to run; ours is fixed.
        raise BackendError(
            f"multiple backend frameworks detected from command: [{' '.join(detected)}]"
            f" in {go_quote(full_command)}"
        )
    return detected[0]


def determine_backend_framework(
    component_type: str,
    command: list[str],
    args: list[str],
    explicit_backend_framework: str,
) -> str:
    """determineBackendFramework: detected beats explicit; both set must agree."""
    if not is_worker_component(component_type):
        return BACKEND_FRAMEWORK_NOOP
    detected = ""
    detection_error: BackendError | None = None
    if command or args:
        try:
            detected = detect_backend_framework_from_args(command, args)
        except BackendError as err:
            detection_error = err
    explicit = explicit_backend_framework
    if detected not in ("", BACKEND_FRAMEWORK_NOOP) and explicit and detected != explicit:
        raise BackendError(
            f"backend framework mismatch: detected {go_quote(detected)} from command"
            f" but explicitly configured as {go_quote(explicit)}"
        )
    if detected not in ("", BACKEND_FRAMEWORK_NOOP):
        return detected
    if explicit:
        return explicit
    if detection_error is not None:
        raise BackendError(f"could not determine backend framework: {detection_error.message}")
    return BACKEND_FRAMEWORK_NOOP


def get_backend_framework_from_component(component: JSON, dynamo_deployment: JSON) -> str:
    """getBackendFrameworkFromComponent: the framework of one DGD component."""
    main = get_main_container(component)
    command = list(main.get("command") or []) if main else []
    args = list(main.get("args") or []) if main else []
    explicit = (dynamo_deployment.get("spec") or {}).get("backendFramework", "")
    return determine_backend_framework(component.get("type", ""), command, args, explicit)


def backend_framework_for_generated_dcds(parent_dgd: JSON) -> str:
    """backendFrameworkForGeneratedDCDs: the one framework the DGD's workers share, or ""."""
    spec = parent_dgd.get("spec") or {}
    if spec.get("backendFramework"):
        return str(spec["backendFramework"])
    detected = ""
    for component in spec.get("components") or []:
        if not is_worker_component(component.get("type", "")):
            continue
        try:
            framework = get_backend_framework_from_component(component, parent_dgd)
        except BackendError as err:
            raise BackendError(
                "failed to determine backend framework for component"
                f" {component.get('name', '')}: {err.message}"
            ) from None
        if framework in ("", BACKEND_FRAMEWORK_NOOP):
            continue
        if detected and detected != framework:
            raise BackendError(
                "multiple backend frameworks detected for generated DynamoComponentDeployments:"
                f" {detected} and {framework}"
            )
        detected = framework
    return detected
