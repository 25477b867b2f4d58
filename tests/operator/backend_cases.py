"""Shared helpers for the backend table tests: load the transcribed tables, build deployers.

The tables under data/backends/ are the operator's own Go table tests
(internal/dynamo/backend_*_test.go at the pinned commit), row for row as JSON: the Go
field names of each test struct, containers and pod specs by their corev1 json tags, and
the v1alpha1 component of a row in the v1beta1 form the Go test's ``betaComponent``
converts it to. Each test module re-states the Go test's assertions over those rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from renderer.operator.multinode import GroveMultinodeDeployer, LWSMultinodeDeployer

DATA = Path(__file__).parent / "data" / "backends"


@cache
def _load(name: str) -> dict[str, list[dict[str, Any]]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


def table(file: str, test: str) -> list[dict[str, Any]]:
    """The rows of one Go table test."""
    return _load(file)[test]


def ids(rows: list[dict[str, Any]]) -> list[str]:
    """pytest ids: the Go subtest names."""
    return [row["name"] for row in rows]


@dataclass(frozen=True)
class MockSimpleDeployer:
    """backend_sglang_test.go's MockSimpleDeployer: plain names, rank "1"."""

    def get_leader_hostname(self, service_name: str) -> str:
        return "leader.example.com"

    def get_host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        return ["leader.example.com"] + [
            f"worker{i}.example.com" for i in range(1, number_of_nodes)
        ]

    def get_node_rank(self) -> tuple[str, bool]:
        return "1", False

    def needs_dns_wait(self) -> bool:
        return False


@dataclass(frozen=True)
class MockShellDeployer:
    """backend_sglang_test.go's MockShellDeployer: env-var names, a rank needing a shell."""

    def get_leader_hostname(self, service_name: str) -> str:
        return "$(LEADER_HOST)"

    def get_host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        return ["$(LEADER_HOST)"] + [f"$(WORKER_{i}_HOST)" for i in range(1, number_of_nodes)]

    def get_node_rank(self) -> tuple[str, bool]:
        return "$(WORKER_INDEX)", True

    def needs_dns_wait(self) -> bool:
        return True


def deployer(spec: dict[str, Any] | None) -> Any:
    """The MultinodeDeployer a row names."""
    kind = (spec or {}).get("kind")
    if kind == "grove":
        return GroveMultinodeDeployer(
            is_inter_pod_gms=bool(spec and spec.get("isInterPodGMS")),
            rank=int((spec or {}).get("rank", 0)),
        )
    if kind == "lws":
        return LWSMultinodeDeployer()
    if kind == "MockSimpleDeployer":
        return MockSimpleDeployer()
    if kind == "MockShellDeployer":
        return MockShellDeployer()
    raise AssertionError(f"no deployer {spec!r}")


def static_gpus(count: int) -> Any:
    """staticContainerGPUCount."""
    return lambda: count


def find_env(env: list[dict[str, Any]] | None, name: str) -> dict[str, Any] | None:
    """findEnvVar."""
    for entry in env or []:
        if entry.get("name") == name:
            return entry
    return None
