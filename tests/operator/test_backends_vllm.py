"""The operator's vLLM backend table tests (internal/dynamo/backend_vllm_test.go, pinned).

Rows are in data/backends/backend_vllm_test.json; each test below asserts what the Go
test asserts for its rows.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from typing import Any

import pytest
from backend_cases import deployer, find_env, ids, static_gpus, table

from renderer.operator import consts
from renderer.operator.backend_vllm import (
    VLLMBackend,
    get_wait_leader_config_map_name,
    should_use_mp_backend,
    update_vllm_multinode_args,
)
from renderer.operator.utils import container_has_arg, shell_quote_posix

FILE = "backend_vllm_test.json"

UPDATE_CONTAINER = table(FILE, "TestVLLMBackend_UpdateContainer")


@pytest.mark.parametrize("row", UPDATE_CONTAINER, ids=ids(UPDATE_CONTAINER))
def test_update_container(row: dict[str, Any]) -> None:
    container = copy.deepcopy(row["initialContainer"])
    initial_args = list(container.get("args") or [])
    VLLMBackend().update_container(
        container,
        row["numberOfNodes"],
        row["role"],
        row["component"],
        "test-service",
        deployer(row["multinodeDeployer"]),
        static_gpus(row["containerGPUs"]),
    )
    if row.get("expectNotModified"):
        assert (container.get("args") or []) == initial_args
    elif row.get("expectedArgs") is not None:
        assert container.get("args") == row["expectedArgs"]
    if row.get("expectProbesRemoved"):
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            assert container.get(probe) is None
    if row.get("expectProbesKept"):
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            assert container.get(probe) is not None
    dp_master = find_env(container.get("env"), consts.VLLM_DP_MASTER_IP_ENV_VAR)
    pod_ip = find_env(container.get("env"), consts.POD_IP_ENV_VAR)
    if row.get("expectDPMasterIPEnv"):
        assert dp_master is not None and pod_ip is not None
        assert dp_master["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
        assert pod_ip["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    else:
        assert dp_master is None and pod_ip is None


SHELL_INJECTION = table(FILE, "TestVLLMBackend_ShellCommandInjection")


@pytest.mark.parametrize("row", SHELL_INJECTION, ids=ids(SHELL_INJECTION))
def test_shell_command_injection(row: dict[str, Any]) -> None:
    container = copy.deepcopy(row["initialContainer"])
    expected_command = list(container.get("command") or [])
    VLLMBackend().update_container(
        container,
        row["numberOfNodes"],
        row["role"],
        {},
        "test-service",
        deployer(row["multinodeDeployer"]),
        static_gpus(row["gpuCount"]),
    )
    assert container.get("args") == row["expectedArgs"]
    assert (container.get("command") or []) == expected_command


COMPILATION_CACHE = table(FILE, "TestVLLMBackend_UpdateContainer_UseAsCompilationCache")


@pytest.mark.parametrize("row", COMPILATION_CACHE, ids=ids(COMPILATION_CACHE))
def test_compilation_cache(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"env": [], "volumeMounts": row["volumeMounts"]}
    VLLMBackend().update_container(
        container,
        1,
        "main",
        row["component"],
        "test-service",
        deployer({"kind": "grove"}),
        static_gpus(0),
    )
    env = find_env(container["env"], "VLLM_CACHE_ROOT")
    if row["expectCacheEnvVar"]:
        assert env is not None and env["value"] == row["expectCacheEnvVarVal"]
    else:
        assert env is None


MULTINODE_ARGS = table(FILE, "TestUpdateVLLMMultinodeArgs")


@pytest.mark.parametrize("row", MULTINODE_ARGS, ids=ids(MULTINODE_ARGS))
def test_update_vllm_multinode_args(row: dict[str, Any]) -> None:
    container = copy.deepcopy(row["initialContainer"])
    initial_args = list(container.get("args") or [])
    update_vllm_multinode_args(
        container,
        row["role"],
        "test-service",
        deployer(row["multinodeDeployer"]),
        row["gpuCount"],
        2,
        row["annotations"],
    )
    if row.get("expectNotModified"):
        assert (container.get("args") or []) == initial_args
    elif row.get("expectedArgs") is not None:
        assert container.get("args") == row["expectedArgs"]


UPDATE_POD_SPEC = table(FILE, "TestVLLMBackend_UpdatePodSpec")


@pytest.mark.parametrize("row", UPDATE_POD_SPEC, ids=ids(UPDATE_POD_SPEC))
def test_update_pod_spec(row: dict[str, Any]) -> None:
    pod_spec = copy.deepcopy(row["initialPodSpec"])
    init_count = len(pod_spec.get("initContainers") or [])
    volume_count = len(pod_spec.get("volumes") or [])
    VLLMBackend("test-dgd").update_pod_spec(
        pod_spec,
        row["numberOfNodes"],
        row["role"],
        row.get("component") or {},
        "test-service",
        deployer(row["multinodeDeployer"]),
    )
    init = pod_spec.get("initContainers") or []
    volumes = pod_spec.get("volumes") or []
    if not row["expectInitContainer"]:
        assert len(init) == init_count and len(volumes) == volume_count
        return
    assert len(init) == init_count + 1 and len(volumes) == volume_count + 1
    injected = init[-1]
    assert injected["name"] == "wait-for-leader-mp"
    assert injected["image"] == row["expectedInitImage"]
    assert injected["command"] == [
        "sh",
        "-c",
        f'export LEADER_HOST="{row["expectedLeaderHost"]}" LEADER_PORT="29500"'
        " && exec python3 /scripts/wait-for-leader.py",
    ]
    assert not injected.get("env")
    assert injected["volumeMounts"] == [
        {"name": "wait-leader-script", "mountPath": "/scripts", "readOnly": True}
    ]
    assert volumes[-1]["name"] == "wait-leader-script"
    assert volumes[-1]["configMap"]["name"] == "test-dgd-wait-leader-script"


def test_get_wait_leader_config_map_name() -> None:
    assert get_wait_leader_config_map_name("foo") == "foo-wait-leader-script"


SHOULD_USE_MP = table(FILE, "TestShouldUseMpBackend")


@pytest.mark.parametrize("row", SHOULD_USE_MP, ids=ids(SHOULD_USE_MP))
def test_should_use_mp_backend(row: dict[str, Any]) -> None:
    assert should_use_mp_backend(row["annotations"]) is row["want"]


INTER_POD_GMS = table(FILE, "TestVLLMBackend_UpdateContainer_InterPodGMS")


@pytest.mark.parametrize("row", INTER_POD_GMS, ids=ids(INTER_POD_GMS))
def test_update_container_inter_pod_gms(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    VLLMBackend().update_container(
        container, 1, "main", row["component"], "svc", deployer({"kind": "grove"}), static_gpus(0)
    )
    assert container_has_arg(container, "--load-format", "gms") is row["wantLoadFormat"]
    shadow = [e for e in container.get("env") or [] if e["name"] == "DYN_VLLM_GMS_SHADOW_MODE"]
    assert all(e["value"] == "true" for e in shadow)
    assert len(shadow) == row.get("shadowModeCount", 0)
    assert bool(shadow) is row.get("wantShadowMode", False)


def test_update_container_no_inter_pod_gms() -> None:
    """TestVLLMBackend_UpdateContainer_NoInterPodGMS."""
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    VLLMBackend().update_container(
        container, 1, "main", {}, "svc", deployer({"kind": "grove"}), static_gpus(0)
    )
    assert not container_has_arg(container, "--load-format", "gms")
    assert find_env(container.get("env"), "DYN_VLLM_GMS_SHADOW_MODE") is None


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX sh")
def test_shell_quote_posix_argv_round_trip() -> None:
    """TestShellQuotePOSIX_ArgvRoundTrip: a real sh gets every token back byte for byte."""
    tokens = [
        "python3", "-m", "dynamo.vllm", "--model", "test",
        "--data-parallel-backend=ray", "-dpb=ray", "--enable-elastic-ep",
        "--chat-template={{ 'it''s' }}", "", "a b\tc", "line1\nline2",
        "semi;pipe|amp&", "d$ollar$(whoami)", "back\\slash", "glob*?[x]",
    ]  # fmt: skip
    script = (
        "set -- "
        + " ".join(shell_quote_posix(t) for t in tokens)
        + '; for a in "$@"; do printf \'%s\\000\' "$a"; done'
    )
    out = subprocess.run(["sh", "-c", script], capture_output=True, check=True).stdout
    assert out.decode().split("\x00")[:-1] == tokens
