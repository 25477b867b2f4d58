"""The operator's backend-framework detection tests (internal/dynamo/graph_test.go, pinned).

Rows are in data/backends/graph_backend_test.json (TestDetectBackendFrameworkFromArgs,
TestDetermineBackendFramework, TestGetBackendFrameworkFromComponent), plus the
framework constants of TestBackendFrameworkEnum and ParseBackendFramework's accepted set.
"""

from __future__ import annotations

from typing import Any

import pytest
from backend_cases import ids, table

from renderer.operator import backend
from renderer.operator.backend import BackendError

FILE = "graph_backend_test.json"


def test_backend_framework_enum() -> None:
    assert backend.BACKEND_FRAMEWORK_SGLANG == "sglang"
    assert backend.BACKEND_FRAMEWORK_VLLM == "vllm"
    assert backend.BACKEND_FRAMEWORK_TRTLLM == "trtllm"


@pytest.mark.parametrize("name", ["vllm", "sglang", "trtllm", "noop"])
def test_parse_backend_framework_accepts(name: str) -> None:
    assert backend.parse_backend_framework(name) == name


def test_parse_backend_framework_refuses() -> None:
    with pytest.raises(BackendError) as info:
        backend.parse_backend_framework("tgi")
    assert info.value.message == (
        "unsupported backend framework: tgi (valid values: vllm, sglang, trtllm)"
    )


DETECT = table(FILE, "TestDetectBackendFrameworkFromArgs")


@pytest.mark.parametrize("row", DETECT, ids=ids(DETECT))
def test_detect_backend_framework_from_args(row: dict[str, Any]) -> None:
    if row.get("expectError"):
        with pytest.raises(BackendError):
            backend.detect_backend_framework_from_args(row["command"], row["args"])
        return
    assert (
        backend.detect_backend_framework_from_args(row["command"], row["args"]) == row["expected"]
    )


DETERMINE = table(FILE, "TestDetermineBackendFramework")


@pytest.mark.parametrize("row", DETERMINE, ids=ids(DETERMINE))
def test_determine_backend_framework(row: dict[str, Any]) -> None:
    call = (
        row["componentType"],
        row.get("command") or [],
        row.get("args") or [],
        row.get("explicitBackendFramework", ""),
    )
    if row.get("expectError"):
        with pytest.raises(BackendError) as info:
            backend.determine_backend_framework(*call)
        assert row.get("errorContains", "") in info.value.message
        return
    assert backend.determine_backend_framework(*call) == row["expected"]


FROM_COMPONENT = table(FILE, "TestGetBackendFrameworkFromComponent")


@pytest.mark.parametrize("row", FROM_COMPONENT, ids=ids(FROM_COMPONENT))
def test_get_backend_framework_from_component(row: dict[str, Any]) -> None:
    if row.get("expectError"):
        with pytest.raises(BackendError) as info:
            backend.get_backend_framework_from_component(row["component"], row["deployment"])
        assert row.get("errorContains", "") in info.value.message
        return
    result = backend.get_backend_framework_from_component(row["component"], row["deployment"])
    assert result == row["expected"]
