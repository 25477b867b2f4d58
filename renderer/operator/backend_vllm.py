"""internal/dynamo/backend_vllm.go: the vLLM backend.

Single node: inter-pod GMS load format (and shadow mode with inter-pod failover), the
elastic-EP Ray head for a lone pod, ``VLLM_CACHE_ROOT`` for a compilation cache.

Multinode (``numberOfNodes > 1``), by what the engine's flags ask for and the GPUs one
container has:

- TP*PP larger than one container: a distributed launch, native multiprocessing (``mp``:
  ``--nnodes/--node-rank/--master-addr``; workers ``--headless`` plus a wait-for-leader init
  container) when the executor annotation or the origin-version gate says so, else Ray
  (leader ``ray start --head && vllm ...``, workers only ``ray start --address``);
- ``--enable-elastic-ep``: one Ray cluster across nodes, workers gated on the leader's /live;
- DP*TP*PP larger than one container: hybrid-LB data parallel flags with per-node ranks;
- otherwise nothing. Worker pods lose their probes.
"""

from __future__ import annotations

import re
from typing import Any, Final

from renderer.goruntime.arith import wrap_int64 as _wrap_int64
from renderer.goruntime.strconv import parse_int
from renderer.goruntime.strings import fields as go_fields
from renderer.goruntime.strings import to_lower
from renderer.operator import consts
from renderer.operator.backend import (
    ROLE_LEADER,
    ROLE_MAIN,
    ROLE_WORKER,
    BackendError,
    ContainerGPUCount,
    MultinodeDeployer,
)
from renderer.operator.compatibility import VLLM_MULTIPROCESSING
from renderer.operator.graph_grove_roles import (
    is_inter_pod_failover_enabled,
    is_inter_pod_gms_enabled,
)
from renderer.operator.utils import (
    container_command_line_has_arg,
    container_has_arg,
    has_arg,
    inject_flags_into_container_command,
    shell_quote_for_bash_c,
    shell_quote_posix,
)
from renderer.operator.v1beta1_helpers import get_pod_template_annotations

JSON = dict[str, Any]

VLLM_PORT: Final = "6379"
DATA_PARALLEL_RPC_PORT: Final = "13445"
TENSOR_PARALLEL_SIZE_FLAG: Final = "--tensor-parallel-size"
PIPELINE_PARALLEL_SIZE_FLAG: Final = "--pipeline-parallel-size"
DATA_PARALLEL_SIZE_FLAG: Final = "--data-parallel-size"
DATA_PARALLEL_SIZE_LOCAL_FLAG: Final = "--data-parallel-size-local"
DISTRIBUTED_EXECUTOR_FLAG: Final = "--distributed-executor-backend"
ENABLE_ELASTIC_EP_FLAG: Final = "--enable-elastic-ep"
DATA_PARALLEL_BACKEND_FLAG: Final = "--data-parallel-backend"
DATA_PARALLEL_BACKEND_SHORT_FLAG: Final = "-dpb"
DATA_PARALLEL_BACKEND_RAY: Final = "ray"

WAIT_LEADER_CONFIG_MAP_SUFFIX: Final = "wait-leader-script"
WAIT_LEADER_SCRIPT_KEY: Final = "wait-for-leader.py"
WAIT_LEADER_VOLUME_NAME: Final = "wait-leader-script"
WAIT_LEADER_MOUNT_PATH: Final = "/scripts"


def _pod_ip_env(name: str) -> JSON:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}


def _append_env(container: JSON, *envs: JSON) -> None:
    container["env"] = [*(container.get("env") or []), *envs]


class VLLMBackend:
    """VLLMBackend; the parent DGD name names the wait-for-leader ConfigMap."""

    def __init__(self, parent_graph_deployment_name: str = "") -> None:
        self.parent_graph_deployment_name = parent_graph_deployment_name

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
        """UpdateContainer."""
        if is_inter_pod_gms_enabled(component):
            # The inter-pod layout loads weights from the GMS weight-server pod.
            if not container_has_arg(container, "--load-format", "gms"):
                inject_flags_into_container_command(container, "--load-format gms", False, "vllm")
            if is_inter_pod_failover_enabled(component):
                _append_env(container, {"name": "DYN_VLLM_GMS_SHADOW_MODE", "value": "true"})

        annotations = get_pod_template_annotations(component)
        if number_of_nodes > 1:
            try:
                gpus = container_gpus()
            except BackendError as err:
                raise BackendError(f"failed to resolve container GPUs: {err.message}") from None
            update_vllm_multinode_args(
                container,
                role,
                service_name,
                multinode_deployer,
                gpus,
                number_of_nodes,
                annotations,
            )
            if should_use_mp_backend(annotations):
                _append_env(container, _pod_ip_env(consts.VLLM_NIXL_SIDE_CHANNEL_HOST_ENV_VAR))
            if role == ROLE_WORKER:
                for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                    container.pop(probe, None)
        elif (
            role == ROLE_MAIN
            and is_elastic_ep_ray_launch(container)
            # A lone elastic-EP pod still heads a Ray cluster for later followers; both
            # addresses come from the pod IP so the head and the engine agree on it.
            and inject_elastic_ep_ray_launch_flags(
                container, role, service_name, multinode_deployer
            )
        ):
            _append_env(
                container,
                _pod_ip_env(consts.POD_IP_ENV_VAR),
                _pod_ip_env(consts.VLLM_DP_MASTER_IP_ENV_VAR),
            )

        cache_dir = (component.get("compilationCache") or {}).get("mountPath", "")
        if cache_dir:
            _append_env(container, {"name": "VLLM_CACHE_ROOT", "value": cache_dir})

    def update_pod_spec(  # noqa: PLR0917 - Go parameter order
        self,
        pod_spec: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> None:
        """UpdatePodSpec: an mp worker waits for the leader's master port in an init container."""
        if not self._should_inject_vllm_mp_wait_leader_init(pod_spec, number_of_nodes, role):
            return
        main = pod_spec["containers"][0]
        leader_hostname = multinode_deployer.get_leader_hostname(service_name)
        pod_spec["volumes"] = [
            *(pod_spec.get("volumes") or []),
            {
                "name": WAIT_LEADER_VOLUME_NAME,
                "configMap": {
                    "name": get_wait_leader_config_map_name(self.parent_graph_deployment_name)
                },
            },
        ]
        # sh -c: Grove/LWS env vars come after ours on init containers, so only a shell sees
        # them all; $(VAR) becomes ${VAR}.
        shell_hostname = k8s_to_shell_var_syntax(leader_hostname)
        init_container: JSON = {
            "name": "wait-for-leader-mp",
            "command": [
                "sh",
                "-c",
                f'export LEADER_HOST="{shell_hostname}" LEADER_PORT="{consts.VLLM_MP_MASTER_PORT}"'
                f" && exec python3 {WAIT_LEADER_MOUNT_PATH}/{WAIT_LEADER_SCRIPT_KEY}",
            ],
            "volumeMounts": [
                {
                    "name": WAIT_LEADER_VOLUME_NAME,
                    "mountPath": WAIT_LEADER_MOUNT_PATH,
                    "readOnly": True,
                }
            ],
        }
        if main.get("image"):
            init_container["image"] = main["image"]
        pod_spec["initContainers"] = [*(pod_spec.get("initContainers") or []), init_container]

    def _should_inject_vllm_mp_wait_leader_init(
        self, pod_spec: JSON, number_of_nodes: int, role: str
    ) -> bool:
        if (
            not self.parent_graph_deployment_name
            or number_of_nodes <= 1
            or role != ROLE_WORKER
            or not pod_spec.get("containers")
        ):
            return False
        return container_command_line_has_arg(
            pod_spec["containers"][0], DISTRIBUTED_EXECUTOR_FLAG, "mp"
        )


def k8s_to_shell_var_syntax(text: str) -> str:
    """k8sToShellVarSyntax: ``$(VAR)`` -> ``${VAR}`` (Go's \\w is ASCII)."""
    return re.sub(r"\$\(([0-9A-Za-z_]+)\)", r"${\1}", text)


def get_wait_leader_config_map_name(dgd_name: str) -> str:
    """GetWaitLeaderConfigMapName."""
    return f"{dgd_name}-{WAIT_LEADER_CONFIG_MAP_SUFFIX}"


def update_vllm_multinode_args(  # noqa: PLR0917 - Go parameter order
    container: JSON,
    role: str,
    service_name: str,
    multinode_deployer: MultinodeDeployer,
    container_gpus: int,
    number_of_nodes: int,
    annotations: dict[str, str] | None,
) -> None:
    """updateVLLMMultinodeArgs: pick the launch by parallelism and executor backend."""
    expanded = get_expanded_args(container)
    if needs_tensor_parallel_multinode_launch(expanded, container_gpus):
        if should_use_mp_backend(annotations):
            inject_mp_distributed_launch_flags(
                container, role, service_name, multinode_deployer, number_of_nodes
            )
        else:
            inject_ray_distributed_launch_flags(container, role, service_name, multinode_deployer)
    elif ENABLE_ELASTIC_EP_FLAG in expanded:
        inject_elastic_ep_ray_launch_flags(container, role, service_name, multinode_deployer)
    elif needs_data_parallel_multinode_launch(expanded, container_gpus):
        inject_data_parallel_launch_flags(
            container, role, service_name, multinode_deployer, container_gpus, number_of_nodes
        )


def get_expanded_args(container: JSON) -> list[str]:
    """getExpandedArgs: the args split on whitespace."""
    return [field for arg in container.get("args") or [] for field in go_fields(arg)]


def should_use_mp_backend(annotations: dict[str, str] | None) -> bool:
    """shouldUseMpBackend: the executor annotation (mp/ray), else the origin-version gate."""
    override = (annotations or {}).get(consts.KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if override is not None:
        lowered = to_lower(override)
        if lowered == "mp":
            return True
        if lowered == "ray":
            return False
    return VLLM_MULTIPROCESSING.enabled(annotations)


def inject_mp_distributed_launch_flags(
    container: JSON,
    role: str,
    service_name: str,
    multinode_deployer: MultinodeDeployer,
    number_of_nodes: int,
) -> None:
    """injectMpDistributedLaunchFlags: every node runs vLLM; workers headless."""
    leader_hostname = multinode_deployer.get_leader_hostname(service_name)
    flags = (
        f"{DISTRIBUTED_EXECUTOR_FLAG} mp --nnodes {number_of_nodes}"
        f" --master-addr {leader_hostname} --master-port {consts.VLLM_MP_MASTER_PORT}"
    )
    needs_shell = False
    if role == ROLE_LEADER:
        flags += " --node-rank 0"
    elif role == ROLE_WORKER:
        node_rank, needs_shell = multinode_deployer.get_node_rank()
        flags += f" --node-rank {node_rank} --headless"
    inject_flags_into_container_command(container, flags, needs_shell, "vllm")


def inject_ray_distributed_launch_flags(
    container: JSON, role: str, service_name: str, multinode_deployer: MultinodeDeployer
) -> None:
    """injectRayDistributedLaunchFlags: the leader heads Ray and runs vLLM; workers join."""
    if role == ROLE_LEADER:
        full_command = " ".join(shell_quote_for_bash_c(t) for t in container.get("command") or [])
        original_args = " ".join(shell_quote_for_bash_c(a) for a in container.get("args") or [])
        container["args"] = [
            f"ray start --head --port={VLLM_PORT} && {full_command} {original_args}"
            f" {DISTRIBUTED_EXECUTOR_FLAG} ray"
        ]
    elif role == ROLE_WORKER:
        leader_hostname = multinode_deployer.get_leader_hostname(service_name)
        container["args"] = [f"ray start --address={leader_hostname}:{VLLM_PORT} --block"]
    container["command"] = ["/bin/sh", "-c"]


def inject_elastic_ep_ray_launch_flags(
    container: JSON, role: str, service_name: str, multinode_deployer: MultinodeDeployer
) -> bool:
    """injectElasticEPRayLaunchFlags: True when the container now fronts vLLM with Ray."""
    if role in (ROLE_LEADER, ROLE_MAIN):
        command = container.get("command") or []
        if not command:
            # The real entrypoint is the image's; a wrapper could not run it.
            return False
        vllm_command = (
            " ".join(shell_quote_posix(t) for t in command)
            + " "
            + " ".join(shell_quote_posix(a) for a in container.get("args") or [])
        ).strip(" \t\n\v\f\r")
        node_ip_flag = ""
        if role == ROLE_MAIN:
            vllm_command = "exec " + vllm_command
            node_ip_flag = f' --node-ip-address="${consts.POD_IP_ENV_VAR}"'
        container["args"] = [
            f"ray start --head --port={VLLM_PORT}{node_ip_flag} --block & "
            f"i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',"
            f'{VLLM_PORT}),timeout=1); s.close()" 2>/dev/null; '
            'do i=$((i+1)); [ "$i" -ge 150 ] && { echo "ERROR: Ray head did not start within'
            f' 300s" >&2; exit 1; }}; sleep 2; done && {vllm_command}'
        ]
    elif role == ROLE_WORKER:
        leader = multinode_deployer.get_leader_hostname(service_name)
        health_gate = (
            'i=0; until python3 -c "import urllib.request; urllib.request.urlopen('
            f"'http://{leader}:{consts.DYNAMO_SYSTEM_PORT}/live', timeout=5)\" 2>/dev/null; do "
            'i=$((i+1)); [ "$i" -ge 720 ] && { echo "ERROR: leader /live did not become ready'
            ' within 3h" >&2; exit 1; }; '
            "echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done"
        )
        container["args"] = [f"{health_gate} && ray start --address={leader}:{VLLM_PORT} --block"]
    container["command"] = ["/bin/sh", "-c"]
    return True


def is_elastic_ep_ray_launch(container: JSON) -> bool:
    """IsElasticEPRayLaunch: ``--enable-elastic-ep`` with the Ray data-parallel backend."""
    expanded = get_expanded_command_line(container)
    return ENABLE_ELASTIC_EP_FLAG in expanded and (
        has_arg(expanded, DATA_PARALLEL_BACKEND_FLAG, DATA_PARALLEL_BACKEND_RAY)
        or has_arg(expanded, DATA_PARALLEL_BACKEND_SHORT_FLAG, DATA_PARALLEL_BACKEND_RAY)
    )


def get_expanded_command_line(container: JSON) -> list[str]:
    """getExpandedCommandLine: command + args split on whitespace."""
    line = [*(container.get("command") or []), *(container.get("args") or [])]
    return [field for arg in line for field in go_fields(arg)]


def inject_data_parallel_launch_flags(  # noqa: PLR0917 - Go parameter order
    container: JSON,
    role: str,
    service_name: str,
    multinode_deployer: MultinodeDeployer,
    container_gpus: int,
    number_of_nodes: int,
) -> None:
    """injectDataParallelLaunchFlags: hybrid-LB data parallel, ranks per node."""
    expanded = get_expanded_args(container)
    leader_hostname = multinode_deployer.get_leader_hostname(service_name)
    world_size = get_world_size(expanded)
    dp_size_local = _go_div(container_gpus, world_size)
    total_dp_size = get_flag_value(expanded, DATA_PARALLEL_SIZE_FLAG)
    if total_dp_size == 1:
        total_dp_size = _wrap_int64(dp_size_local * number_of_nodes)
    if role == ROLE_LEADER:
        start_rank = "0"
        needs_shell = False
    elif role == ROLE_WORKER:
        node_rank, _ = multinode_deployer.get_node_rank()
        start_rank = f"$(( {dp_size_local} * {node_rank} ))"
        needs_shell = True  # arithmetic expansion
    else:
        inject_flags_into_container_command(container, "", False, "vllm")
        return
    flags = ["--data-parallel-hybrid-lb"]
    if DATA_PARALLEL_SIZE_FLAG not in expanded:
        flags += [DATA_PARALLEL_SIZE_FLAG, str(total_dp_size)]
    flags += [
        DATA_PARALLEL_SIZE_LOCAL_FLAG,
        str(dp_size_local),
        "--data-parallel-start-rank",
        start_rank,
        "--data-parallel-address",
        leader_hostname,
        "--data-parallel-rpc-port",
        DATA_PARALLEL_RPC_PORT,
    ]
    inject_flags_into_container_command(container, " ".join(flags), needs_shell, "vllm")


def _go_div(a: int, b: int) -> int:
    """Go's int64 division (truncating); a zero divisor panics in Go, refused here."""
    if b == 0:
        raise BackendError(
            "vLLM data-parallel launch with a zero tensor/pipeline parallel size"
            " (the operator panics on it)"
        )
    quotient = abs(a) // abs(b)
    return _wrap_int64(quotient if (a >= 0) == (b >= 0) else -quotient)


def needs_tensor_parallel_multinode_launch(expanded_args: list[str], container_gpus: int) -> bool:
    """needsTensorParallelMultinodeLaunch: TP*PP exceeds one container's GPUs."""
    if container_gpus == 0:
        return False
    return get_world_size(expanded_args) > container_gpus


def get_world_size(expanded_args: list[str]) -> int:
    """getWorldSize: TP * PP (int64 arithmetic)."""
    return _wrap_int64(
        get_flag_value(expanded_args, TENSOR_PARALLEL_SIZE_FLAG)
        * get_flag_value(expanded_args, PIPELINE_PARALLEL_SIZE_FLAG)
    )


def needs_data_parallel_multinode_launch(expanded_args: list[str], container_gpus: int) -> bool:
    """needsDataParallelMultinodeLaunch: DP*TP*PP exceeds one container's GPUs."""
    dp_size = get_flag_value(expanded_args, DATA_PARALLEL_SIZE_FLAG)
    if container_gpus == 0:
        return False
    return _wrap_int64(get_world_size(expanded_args) * dp_size) > container_gpus


def get_flag_value(expanded_args: list[str], flag: str) -> int:
    """getFlagValue: the first parsable int64 after ``flag``, else 1."""
    for i, arg in enumerate(expanded_args):
        if arg == flag and i + 1 < len(expanded_args):
            value = parse_int(expanded_args[i + 1])
            if value is not None:
                return value
    return 1
