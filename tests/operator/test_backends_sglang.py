"""The operator's SGLang backend table tests (internal/dynamo/backend_sglang_test.go, pinned).

Rows are in data/backends/backend_sglang_test.json; each test asserts what the Go test
asserts for its rows.
"""

from __future__ import annotations

from typing import Any

import pytest
from backend_cases import deployer, ids, static_gpus, table

from renderer.operator.backend_sglang import SGLangBackend
from renderer.operator.utils import is_python_command

FILE = "backend_sglang_test.json"


def _update(row: dict[str, Any], container: dict[str, Any], component: dict[str, Any]) -> None:
    SGLangBackend().update_container(
        container,
        row.get("numberOfNodes", 1),
        row.get("role", "main"),
        component,
        "test-service",
        deployer(row.get("multinodeDeployer") or {"kind": "grove"}),
        static_gpus(0),
    )


PYTHON_INJECTION = table(FILE, "TestSGLangBackend_PythonCommandInjection")


@pytest.mark.parametrize("row", PYTHON_INJECTION, ids=ids(PYTHON_INJECTION))
def test_python_command_injection(row: dict[str, Any]) -> None:
    container = {"command": list(row["initialCommand"]), "args": list(row["initialArgs"])}
    _update(row, container, {})
    assert container["command"] == row["expectedCommand"]
    assert container["args"] == row["expectedArgs"]


SHELL_INJECTION = table(FILE, "TestSGLangBackend_ShellCommandInjection")


@pytest.mark.parametrize("row", SHELL_INJECTION, ids=ids(SHELL_INJECTION))
def test_shell_command_injection(row: dict[str, Any]) -> None:
    container = {"command": list(row["initialCommand"]), "args": list(row["initialArgs"])}
    _update(row, container, {})
    assert container["args"] == row["expectedArgs"]
    assert container["command"] == row["initialCommand"]


IS_PYTHON: list[Any] = table(FILE, "TestIsPythonCommand")


@pytest.mark.parametrize(("cmd", "expected"), IS_PYTHON, ids=[repr(r[0]) for r in IS_PYTHON])
def test_is_python_command(cmd: str, expected: bool) -> None:
    assert is_python_command(cmd) is expected


MULTINODE_FLAGS = table(FILE, "TestSGLangBackend_GetMultinodeFlags")


@pytest.mark.parametrize("row", MULTINODE_FLAGS, ids=ids(MULTINODE_FLAGS))
def test_get_multinode_flags(row: dict[str, Any]) -> None:
    flags, needs_shell = SGLangBackend().get_multinode_flags(
        row["numberOfNodes"], row["role"], "test-service", deployer(row["multinodeDeployer"])
    )
    assert flags == row["expectedFlags"]
    assert needs_shell is row.get("expectedNeedsShell", False)


PROBE_REMOVAL = table(FILE, "TestSGLangBackend_ProbeRemoval")


@pytest.mark.parametrize("row", PROBE_REMOVAL, ids=ids(PROBE_REMOVAL))
def test_probe_removal(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {
        "args": ["python -m dynamo.sglang"],
        "livenessProbe": {"initialDelaySeconds": 30},
        "readinessProbe": {"initialDelaySeconds": 10},
        "startupProbe": {"initialDelaySeconds": 5},
    }
    _update(row, container, {})
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert (container.get(probe) is None) is row["expectProbesRemoved"]


COMPILATION_CACHE = table(FILE, "TestSGLangBackend_UpdateContainer_UseAsCompilationCache")


@pytest.mark.parametrize("row", COMPILATION_CACHE, ids=ids(COMPILATION_CACHE))
def test_compilation_cache_sets_no_env(row: dict[str, Any]) -> None:
    container: dict[str, Any] = {"env": [], "volumeMounts": row["volumeMounts"]}
    _update({}, container, row["component"])
    if row.get("expectNoEnvVarChanges"):
        assert container["env"] == []
