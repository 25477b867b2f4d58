"""internal/dynamo/failover.go + failover_vllm.go: GMS pods and GPU failover engines.

Inter-pod GMS (``mode: InterPod``): per rank, a dedicated GMS weight-server pod (built from
the engine's pod spec: ``bash -c`` wrapper, a socket-count startup probe, no liveness or
readiness) and the engine pods share GPUs through one ResourceClaimTemplate per rank and a
hostPath socket directory isolated per PCSG replica and rank (``subPathExpr``), fixed up
by a root init container. Engines of a failover cohort never restart in place.

Intra-pod failover: the main container is cloned into ``engine-0`` and ``engine-1`` with
staggered system ports, per-engine env, probes retargeted to each engine's named port and
vLLM's side-channel, KV-event and master ports staggered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Protocol

from renderer.goruntime.strconv import parse_int
from renderer.goruntime.strings import to_lower
from renderer.jsoncopy import deep_copy
from renderer.operator import consts, dra
from renderer.operator.backend import BACKEND_FRAMEWORK_VLLM, BackendError
from renderer.operator.gms import ENV_SOCKET_DIR, SERVER_MODULE
from renderer.operator.gms import SHARED_MOUNT_PATH as INTRAPOD_MOUNT_PATH

JSON = dict[str, Any]

GMS_SHARED_VOLUME_NAME: Final = "gms-shared"
GMS_HOST_PATH_BASE: Final = "/run/gms"
GMS_SHARED_MOUNT_PATH: Final = "/run/gms/shared"
GMS_FAILOVER_LOCK_FILE: Final = "failover.lock"
GMS_PERM_FIX_INIT_NAME: Final = "fix-gms-perms"
INTRA_POD_FAILOVER_LOCK_FILE: Final = INTRAPOD_MOUNT_PATH + "/failover.lock"
FAILOVER_ENGINE_COUNT: Final = 2
VLLM_MASTER_PORT_FLAG: Final = "--master-port"
VLLM_MASTER_PORT_STRIDE: Final = 100


class RankedRole(Protocol):
    """What the GMS helpers read of a ServiceRole."""

    @property
    def name(self) -> str: ...

    @property
    def rank(self) -> int: ...


def gms_wrapper_script() -> str:
    """gmsWrapperScript: clean stale sockets, run the server, forward signals and exit code."""
    return (
        f"rm -f {GMS_SHARED_MOUNT_PATH}/gms_*.sock\n"
        "rc=1\n"
        'cleanup() { kill -- -$$ 2>/dev/null; exit "$rc"; }\n'
        "trap cleanup SIGTERM SIGINT\n"
        f"python3 -m {SERVER_MODULE} &\n"
        'echo "Started GMS server pid=$!"\n'
        "wait -n\n"
        "rc=$?\n"
        'echo "GMS server exited (code=$rc), shutting down"\n'
        "cleanup"
    )


def gms_startup_probe_command(gpu_count: int) -> list[str]:
    """gmsStartupProbeCommand: two sockets (weights, kv_cache) per GPU."""
    return [
        "sh",
        "-c",
        f"test $(ls {GMS_SHARED_MOUNT_PATH}/gms_*.sock 2>/dev/null | wc -l) -ge {2 * gpu_count}",
    ]


def apply_gms_shared_resources(pod_spec: JSON, container: JSON, rank: int) -> None:
    """applyGMSSharedResources: no scalar GPUs, GPU toleration, shared volume, perm fix."""
    remove_gpu_from_limits(container)
    add_gpu_toleration(pod_spec)
    volume, mount = gms_shared_volume(rank)
    pod_spec["volumes"] = [*(pod_spec.get("volumes") or []), volume]
    container["volumeMounts"] = [*(container.get("volumeMounts") or []), mount]
    pod_spec["initContainers"] = [
        *(pod_spec.get("initContainers") or []),
        gms_perm_fix_init_container(rank, container.get("image", "")),
    ]


def gms_weight_server_pod_spec(base_pod_spec: JSON, rank: int, gpu_count: int) -> JSON:
    """gmsWeightServerPodSpec: the rank's GMS server pod from a copy of the engine's spec."""
    pod_spec = deep_copy(base_pod_spec)
    if not pod_spec.get("containers"):
        return pod_spec
    container = pod_spec["containers"][0]
    container["command"] = ["bash", "-c"]
    container["args"] = [gms_wrapper_script()]
    container["startupProbe"] = {
        "exec": {"command": gms_startup_probe_command(gpu_count)},
        "periodSeconds": 2,
        "timeoutSeconds": 2,
        "failureThreshold": 150,
    }
    container.pop("livenessProbe", None)
    container.pop("readinessProbe", None)
    container["env"] = [
        *(container.get("env") or []),
        {"name": ENV_SOCKET_DIR, "value": GMS_SHARED_MOUNT_PATH},
    ]
    apply_gms_shared_resources(pod_spec, container, rank)
    return pod_spec


def gms_engine_env_vars() -> list[JSON]:
    """gmsEngineEnvVars: the backend-agnostic env of an inter-pod GMS engine."""
    return [
        {
            "name": "ENGINE_ID",
            "valueFrom": {
                "fieldRef": {"fieldPath": "metadata.labels['grove.io/podclique-pod-index']"}
            },
        },
        {"name": ENV_SOCKET_DIR, "value": GMS_SHARED_MOUNT_PATH},
        {
            "name": "FAILOVER_LOCK_PATH",
            "value": GMS_SHARED_MOUNT_PATH + "/" + GMS_FAILOVER_LOCK_FILE,
        },
        {"name": "DYN_SYSTEM_STARTING_HEALTH_STATUS", "value": "notready"},
    ]


def augment_engine_for_gms(pod_spec: JSON, rank: int, is_inter_pod_failover: bool) -> None:
    """augmentEngineForGMS: engine env, shared resources; Never restart in a failover cohort."""
    if not pod_spec.get("containers"):
        return
    container = pod_spec["containers"][0]
    container["env"] = [*(container.get("env") or []), *gms_engine_env_vars()]
    remove_env_var(container, "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS")
    apply_gms_shared_resources(pod_spec, container, rank)
    if is_inter_pod_failover:
        pod_spec["restartPolicy"] = "Never"


def gms_shared_volume(rank: int) -> tuple[JSON, JSON]:
    """gmsSharedVolume: the hostPath volume and its per-replica, per-rank mount."""
    volume = {
        "name": GMS_SHARED_VOLUME_NAME,
        "hostPath": {"path": GMS_HOST_PATH_BASE, "type": "DirectoryOrCreate"},
    }
    mount = {
        "name": GMS_SHARED_VOLUME_NAME,
        "mountPath": GMS_SHARED_MOUNT_PATH,
        "subPathExpr": f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-{rank}",
    }
    return volume, mount


def gms_perm_fix_init_container(rank: int, image: str) -> JSON:
    """gmsPermFixInitContainer: chmod the hostPath mount as root for non-root processes."""
    _, mount = gms_shared_volume(rank)
    init: JSON = {
        "name": GMS_PERM_FIX_INIT_NAME,
        "command": ["sh", "-c", f"chmod 1777 {GMS_SHARED_MOUNT_PATH}"],
        "securityContext": {"runAsUser": 0, "runAsNonRoot": False},
        "volumeMounts": [mount],
    }
    if image:
        init["image"] = image
    return init


def remove_gpu_from_limits(container: JSON) -> None:
    """removeGPUFromLimits: DRA allocates the GPUs of GMS pods."""
    resources = container.get("resources") or {}
    dra.remove_gpu_resources(resources.get("limits"))
    dra.remove_gpu_resources(resources.get("requests"))


def add_gpu_toleration(pod_spec: JSON) -> None:
    """addGPUToleration: tolerate the GPU taint once."""
    tolerations = pod_spec.get("tolerations") or []
    for toleration in tolerations:
        if toleration.get("key", "") == consts.KUBE_RESOURCE_GPU_NVIDIA and toleration.get(
            "effect", ""
        ) == ("NoSchedule"):
            return
    pod_spec["tolerations"] = [
        *tolerations,
        {"key": consts.KUBE_RESOURCE_GPU_NVIDIA, "operator": "Exists", "effect": "NoSchedule"},
    ]


def remove_env_var(container: JSON, name: str) -> None:
    """removeEnvVar: drop every env var of that name."""
    container["env"] = [e for e in container.get("env") or [] if e.get("name", "") != name]


def get_gpu_count(resources: JSON | None) -> int:
    """getGPUCount: the scalar GPU count, as int32."""
    count = dra.extract_gpu_count_from_resource_requirements(resources)
    return (count + 2**31) % 2**32 - 2**31


def get_device_class_name(gms_spec: JSON | None) -> str:
    """getDeviceClassName: the spec's DeviceClass, else the DRA default."""
    if gms_spec and gms_spec.get("deviceClassName"):
        return str(gms_spec["deviceClassName"])
    return dra.DEFAULT_DEVICE_CLASS_NAME


def gms_rct_name(service_name: str, rank: int) -> str:
    """gmsRCTName: ``<normalized service>-gpu-rank-<rank>``."""
    return f"{to_lower(service_name.replace('.', '-'))}-gpu-rank-{rank}"


def gms_resource_claim_template_configs(
    service_name: str, gms_spec: JSON | None, resources: JSON | None, roles: Sequence[RankedRole]
) -> list[JSON]:
    """gmsResourceClaimTemplateConfigs: one PCS ResourceClaimTemplateConfig per rank."""
    gpu_count = get_gpu_count(resources)
    seen: set[int] = set()
    configs: list[JSON] = []
    for role in roles:
        if role.rank in seen:
            continue
        seen.add(role.rank)
        configs.append(
            {
                "name": gms_rct_name(service_name, role.rank),
                "templateSpec": {
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "gpu",
                                    "exactly": {
                                        "deviceClassName": get_device_class_name(gms_spec),
                                        "allocationMode": "ExactCount",
                                        "count": gpu_count,
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        )
    return configs


def gms_resource_sharing_entries(service_name: str, roles: Sequence[RankedRole]) -> list[JSON]:
    """gmsResourceSharingEntries: per rank, its RCT shared PerReplica by that rank's cliques."""
    order: list[int] = []
    groups: dict[int, list[str]] = {}
    for role in roles:
        if role.rank not in groups:
            groups[role.rank] = []
            order.append(role.rank)
        groups[role.rank].append(to_lower(role.name))
    return [
        {
            "name": gms_rct_name(service_name, rank),
            "scope": "PerReplica",
            "filter": {"childCliqueNames": groups[rank]},
        }
        for rank in order
    ]


def is_intra_pod_failover_enabled(component: JSON | None) -> bool:
    """IsIntraPodFailoverEnabled: ``failover`` set with an empty or IntraPod mode."""
    failover = ((component or {}).get("experimental") or {}).get("failover")
    if failover is None:
        return False
    return failover.get("mode", "") in ("", "IntraPod")


def intra_pod_failover_engine_container_names() -> list[str]:
    """IntraPodFailoverEngineContainerNames: engine-0, engine-1."""
    return [f"engine-{i}" for i in range(FAILOVER_ENGINE_COUNT)]


def build_failover_pod(pod_spec: JSON, number_of_nodes: int, backend_framework: str) -> None:
    """buildFailoverPod: main -> engine-0/engine-1 (sidecars kept), then backend overrides."""
    containers = pod_spec.get("containers") or []
    if not containers:
        raise BackendError("pod spec must have at least one container for failover transformation")
    main, sidecars = containers[0], containers[1:]
    engines = [
        build_engine_container(main, i, consts.DYNAMO_SYSTEM_PORT + i)
        for i in range(FAILOVER_ENGINE_COUNT)
    ]
    pod_spec["containers"] = [*engines, *sidecars]
    if backend_framework == BACKEND_FRAMEWORK_VLLM:
        apply_vllm_overrides(pod_spec, number_of_nodes)
        return
    raise BackendError(
        f"failover is currently supported only for vLLM (detected: {backend_framework})"
    )


_ENGINE_REPLACED_ENV: Final = frozenset(
    {
        "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS",
        "DYN_SYSTEM_PORT",
        "DYN_SYSTEM_ENABLED",
        "DYN_HEALTH_CHECK_ENABLED",
        "CONTAINER_NAME",
        "DYN_FORWARDPASS_METRIC_PORT",
    }
)


def build_engine_container(base: JSON, engine_id: int, system_port: int) -> JSON:
    """buildEngineContainer: a copy of main with its own name, port, env and probe port."""
    engine = deep_copy(base)
    engine["name"] = f"engine-{engine_id}"
    port_name = f"system-{engine_id}"
    engine["ports"] = [{"protocol": "TCP", "name": port_name, "containerPort": system_port}]
    kept = [e for e in engine.get("env") or [] if e.get("name", "") not in _ENGINE_REPLACED_ENV]
    engine["env"] = [
        *kept,
        {"name": "ENGINE_ID", "value": str(engine_id)},
        {"name": "CONTAINER_NAME", "value": engine["name"]},
        {"name": "FAILOVER_LOCK_PATH", "value": INTRA_POD_FAILOVER_LOCK_FILE},
        {"name": "DYN_SYSTEM_STARTING_HEALTH_STATUS", "value": "notready"},
        {"name": "DYN_SYSTEM_PORT", "value": str(system_port)},
        {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
        # Both engines share the pod's network; without this they bind one FPM port.
        {
            "name": "DYN_FORWARDPASS_METRIC_PORT",
            "value": str(consts.DYNAMO_FPM_BASE_PORT + engine_id),
        },
    ]
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        http_get = (engine.get(probe) or {}).get("httpGet")
        if http_get is not None:
            http_get["port"] = port_name
    return engine


def apply_vllm_overrides(pod_spec: JSON, number_of_nodes: int) -> None:
    """applyVLLMOverrides: shadow mode and staggered ports per engine; NNODES if multinode."""
    for container in pod_spec.get("containers") or []:
        name = container.get("name", "")
        if not name.startswith("engine-"):
            continue
        engine_id = _atoi(name[len("engine-") :])
        container["env"] = [
            *(container.get("env") or []),
            {"name": "DYN_VLLM_GMS_SHADOW_MODE", "value": "true"},
            {"name": "VLLM_NIXL_SIDE_CHANNEL_PORT", "value": str(5600 + engine_id)},
            {"name": "DYN_VLLM_KV_EVENT_PORT", "value": str(20080 + engine_id)},
        ]
        if engine_id > 0:
            if has_master_port_flag(container):
                stagger_master_port(container, engine_id)
            else:
                container["args"] = [
                    *(container.get("args") or []),
                    VLLM_MASTER_PORT_FLAG,
                    str(29500 + engine_id * VLLM_MASTER_PORT_STRIDE),
                ]
        if number_of_nodes > 1:
            container["env"] = [
                *container["env"],
                {"name": "NNODES", "value": str(number_of_nodes)},
            ]


def _atoi(text: str) -> int:
    """strconv.Atoi with its error ignored (0), as the caller does."""
    value = parse_int(text)
    return 0 if value is None else value


def has_master_port_flag(container: JSON) -> bool:
    """hasMasterPortFlag: --master-port in args, or ``--master-port `` in command."""
    flag = VLLM_MASTER_PORT_FLAG
    if any(arg == flag or flag + " " in arg for arg in container.get("args") or []):
        return True
    return any(flag + " " in cmd for cmd in container.get("command") or [])


def stagger_master_port(container: JSON, engine_id: int) -> None:
    """staggerMasterPort."""
    stagger_flag_value(container, VLLM_MASTER_PORT_FLAG, engine_id * VLLM_MASTER_PORT_STRIDE)


def stagger_flag_value(container: JSON, flag: str, offset: int) -> None:
    """staggerFlagValue: add ``offset`` to the first ``flag VALUE`` in args, then command."""
    args: list[str] = container.get("args") or []
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            port = parse_int(args[i + 1])
            if port is not None:
                args[i + 1] = str(port + offset)
                return
    for key in ("args", "command"):
        items: list[str] = container.get(key) or []
        for i, item in enumerate(items):
            if flag + " " not in item:
                continue
            after = item.split(flag + " ")[1]
            digits = ""
            for char in after:
                if "0" <= char <= "9":
                    digits += char
                else:
                    break
            port = parse_int(digits)
            if port is not None:
                items[i] = item.replace(flag + " " + digits, flag + " " + str(port + offset), 1)
                return
