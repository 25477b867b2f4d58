"""The operator's TRT-LLM backend table tests (internal/dynamo/backend_trtllm_test.go, pinned).

Rows are in data/backends/backend_trtllm_test.json; each test asserts what the Go test
asserts for its rows (the Go test's secret name is ``mpi-run-ssh-secret``).
"""

from __future__ import annotations

from typing import Any

import pytest
from backend_cases import deployer, ids, static_gpus, table

from renderer.operator.backend_trtllm import TRTLLMBackend
from renderer.operator.dra import resolve_gpu_count
from renderer.operator.utils import shell_quote_for_bash_c

FILE = "backend_trtllm_test.json"
SECRET = "mpi-run-ssh-secret"
DEDUP_CASE = "Leader with overlapping environment variables (deduplication test)"


def resolve_test_container_gpus(component: dict[str, Any]) -> int:
    """resolveTestContainerGPUs: the main container's GPUs, no cluster."""
    spec = (component.get("podTemplate") or {}).get("spec") or {}
    main: dict[str, Any] = next(
        (c for c in spec.get("containers") or [] if c.get("name") == "main"), {}
    )
    return resolve_gpu_count("", spec, main.get("resources") or {})


QUOTE = table(FILE, "TestShellQuoteForBashC")


@pytest.mark.parametrize("row", QUOTE, ids=ids(QUOTE))
def test_shell_quote_for_bash_c(row: dict[str, Any]) -> None:
    assert shell_quote_for_bash_c(row["input"]) == row["expected"]


def test_shell_quote_for_bash_c_in_leader_command() -> None:
    """TestShellQuoteForBashC_InLeaderCommand: JSON args survive the bash -c wrapper."""
    json_args = '{"load_format": "DUMMY", "tensor_parallel_size": 8}'
    container: dict[str, Any] = {
        "command": ["python3", "-m", "dynamo.trtllm"],
        "args": ["--model-path", "deepseek-ai/DeepSeek-R1", "--override-engine-args", json_args],
    }
    component = {
        "podTemplate": {
            "spec": {
                "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "4"}}}]
            }
        }
    }
    TRTLLMBackend().setup_leader_container(
        container, 2, "dec", deployer({"kind": "grove"}), resolve_test_container_gpus(component)
    )
    assert len(container["args"]) == 1
    cmd = container["args"][0]
    quoted = '"{\\"load_format\\": \\"DUMMY\\", \\"tensor_parallel_size\\": 8}"'
    assert quoted in cmd
    assert "--override-engine-args " + quoted in cmd
    assert "bash -c 'trtllm-llmapi-launch" in cmd


UPDATE_CONTAINER = table(FILE, "TestTRTLLMBackend_UpdateContainer")


@pytest.mark.parametrize("row", UPDATE_CONTAINER, ids=ids(UPDATE_CONTAINER))
def test_update_container(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {
        "args": ["python3", "--model", "test"],
        "livenessProbe": {},
        "readinessProbe": {},
        "startupProbe": {},
    }
    TRTLLMBackend(SECRET).update_container(
        container,
        row["numberOfNodes"],
        row["role"],
        row["component"],
        "test-service",
        deployer(row["multinodeDeployer"]),
        static_gpus(resolve_test_container_gpus(row["component"])),
    )
    mounts = container.get("volumeMounts") or []
    assert [(m["name"], m["mountPath"], m.get("readOnly", False)) for m in mounts] == [
        (m["name"], m["mountPath"], m.get("readOnly", False)) for m in row["expectedVolumeMounts"]
    ]
    assert (container.get("command") or []) == row["expectedCommand"]
    assert container.get("args") == row["expectedArgs"]
    assert [(e["name"], e.get("value", "")) for e in container.get("env") or []] == [
        (e["name"], e.get("value", "")) for e in row["expectedEnv"]
    ]
    assert (container.get("livenessProbe") is None) is row["expectLivenessRemoved"]
    assert (container.get("startupProbe") is None) is row["expectStartupRemoved"]
    expected_readiness = row.get("expectedReadinessProbe")
    if row["expectReadinessRemoved"]:
        assert container.get("readinessProbe") is None
    elif expected_readiness is not None:
        probe = container["readinessProbe"]
        assert probe["tcpSocket"]["port"] == expected_readiness["tcpSocket"]["port"]
        for key in ("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "failureThreshold"):
            assert probe[key] == expected_readiness[key]
    else:
        assert container.get("readinessProbe") is not None


UPDATE_POD_SPEC = table(FILE, "TestTRTLLMBackend_UpdatePodSpec")


@pytest.mark.parametrize("row", UPDATE_POD_SPEC, ids=ids(UPDATE_POD_SPEC))
def test_update_pod_spec(row: dict[str, Any]) -> None:
    pod_spec: dict[str, Any] = {
        "volumes": list(row["initialVolumes"]),
        "containers": [{"name": "main", "env": []}],
    }
    TRTLLMBackend(SECRET).update_pod_spec(
        pod_spec,
        row["numberOfNodes"],
        row["role"],
        {},
        "test-service",
        deployer(row["multinodeDeployer"]),
    )
    volumes = pod_spec.get("volumes") or []
    assert len(volumes) == row["expectedVolumeCount"]
    ssh = [v for v in volumes if v.get("name") == SECRET]
    assert bool(ssh) is row["shouldHaveSSHVolume"]
    for volume in ssh[:1]:
        assert volume["secret"]["secretName"] == SECRET
        assert volume["secret"]["defaultMode"] == 0o644


HOST_NAMES = table(FILE, "TestTRTLLMBackend_hostNamesList")


@pytest.mark.parametrize("row", HOST_NAMES, ids=ids(HOST_NAMES))
def test_host_names_list(row: dict[str, Any]) -> None:
    result = deployer(row["multinodeDeployer"]).get_host_names(
        row["serviceName"], row["numberOfNodes"]
    )
    assert result == row["expectedContains"]


SSH_MOUNT = table(FILE, "TestTRTLLMBackend_addSSHVolumeMount")


@pytest.mark.parametrize("row", SSH_MOUNT, ids=ids(SSH_MOUNT))
def test_add_ssh_volume_mount(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"volumeMounts": list(row["initialVolumeMounts"])}
    TRTLLMBackend(SECRET).add_ssh_volume_mount(container)
    assert [
        (m["name"], m["mountPath"], m.get("readOnly", False)) for m in container["volumeMounts"]
    ] == [
        (m["name"], m["mountPath"], m.get("readOnly", False)) for m in row["expectedVolumeMounts"]
    ]


LEADER = table(FILE, "TestTRTLLMBackend_setupLeaderContainer")


@pytest.mark.parametrize("row", LEADER, ids=ids(LEADER))
def test_setup_leader_container(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"args": row["initialArgs"], "command": row["initialCommand"]}
    if row["name"] == DEDUP_CASE:
        container["env"] = [
            {"name": "CUDA_VISIBLE_DEVICES", "value": "0,1"},
            {"name": "CUSTOM_VAR", "value": "test_value"},
            {"name": "PATH", "value": "/custom/path"},
        ]
    TRTLLMBackend().setup_leader_container(
        container,
        row["numberOfNodes"],
        row["serviceName"],
        deployer(row["multinodeDeployer"]),
        resolve_test_container_gpus(row["component"]),
    )
    assert container["command"] == ["/bin/sh", "-c"]
    assert container["args"] == [row["expected"]]


WORKER = table(FILE, "TestTRTLLMBackend_setupWorkerContainer")


@pytest.mark.parametrize("row", WORKER, ids=ids(WORKER))
def test_setup_worker_container(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"args": row["initialArgs"], "command": row["initialCommand"]}
    TRTLLMBackend().setup_worker_container(container)
    assert container["command"] == ["/bin/sh", "-c"]
    assert container["args"] == [row["expected"]]


COMPILATION_CACHE = table(FILE, "TestTRTLLMBackend_UpdateContainer_UseAsCompilationCache")


@pytest.mark.parametrize("row", COMPILATION_CACHE, ids=ids(COMPILATION_CACHE))
def test_compilation_cache_sets_no_env(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"env": [], "volumeMounts": row["volumeMounts"]}
    TRTLLMBackend().update_container(
        container,
        1,
        "main",
        row["component"],
        "test-service",
        deployer({"kind": "grove"}),
        static_gpus(0),
    )
    if row["expectNoEnvVarChanges"]:
        assert container["env"] == []
