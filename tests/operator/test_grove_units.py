"""Grove helpers against the operator's own table tests (internal/dynamo/graph_test.go, pinned).

Rows are transcribed from TestPCSNameForDGD, TestExpandRolesForService,
TestExpandRolesForComponent_SingleNodeForceScalingGroup, TestApplyCliqueStartupDependencies
(+ _GMS), TestGetCliqueStartupDependencies, TestGenerateGrovePodCliqueSet_UpdateStrategy
and TestGenerateGrovePodCliqueSet_TopologyConstraints; the hashed PCS name's suffix is the
oracle's (corpus case beta-long-name-rolling).
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.operator.graph_grove import GroveError, go_duration_string
from renderer.operator.graph_grove_roles import (
    ServiceRole,
    apply_clique_startup_dependencies,
    expand_roles_for_component,
    get_clique_startup_dependencies,
    pcs_name_for_dgd,
)
from renderer.operator.graph_grove_spec import grove_update_strategy_from_annotations

JSON = dict[str, Any]


def _single(name: str) -> JSON:
    return {"name": name}


def _multinode(name: str) -> JSON:
    return {"name": name, "multinode": {"nodeCount": 2}}


@pytest.mark.parametrize(
    ("dgd_name", "components", "want", "want_len"),
    [
        ("trtllm-disagg", [_single("prefill"), _single("decode")], "trtllm-disagg", 0),
        ("my-dgd", [_multinode("prefill"), _multinode("decode")], "my-dgd", 0),
        ("deepseek-v32-fp4-trtllm-dgd", [_multinode("prefill"), _multinode("decode")], "", 27),
        ("deepseek-v32-fp4-trtllm-dgd", [_multinode("prefill")], "", 27),
        ("my-deployment-dgd", [_multinode("VllmPrefillWorker")], "", 8),
        ("my-dgd", [], "my-dgd", 0),
        # Oracle: a 57-character DGD name with two 2-character single-node components.
        (
            "a-very-long-deployment-name-that-exceeds-the-pcs-budget",
            [_single("fe"), _single("wk")],
            "a-very-long-deployment-name-that-excee-e30f",
            0,
        ),
    ],
)
def test_pcs_name_for_dgd(dgd_name: str, components: list[JSON], want: str, want_len: int) -> None:
    got = pcs_name_for_dgd(dgd_name, components)
    if want:
        assert got == want
    if want_len:
        assert len(got) == want_len
    if len(got) < len(dgd_name):
        # Truncated: a prefix of the name, a dash and four hex digits.
        assert got[:-5] == dgd_name[: len(got) - 5]
        assert got[-5] == "-"
        assert all(c in "0123456789abcdef" for c in got[-4:])
    assert got == pcs_name_for_dgd(dgd_name, components)


def _gms(shadows: int | None) -> JSON:
    experimental: JSON = {"gpuMemoryService": {"mode": "InterPod"}}
    if shadows is not None:
        experimental["failover"] = {"mode": "InterPod", "numShadows": shadows}
    return {"experimental": experimental}


R = ServiceRole


@pytest.mark.parametrize(
    ("name", "nodes", "replicas", "component", "expected"),
    [
        ("test-service", 1, 2, {}, [R("test-service", "main", 2)]),
        ("test-service", 2, None, {},
         [R("test-service-ldr", "leader", 1), R("test-service-wkr", "worker", 1)]),
        ("test-service", 5, None, {},
         [R("test-service-ldr", "leader", 1), R("test-service-wkr", "worker", 4)]),
        ("test-service", 0, 1, {}, [R("test-service", "main", 1)]),
        ("test-service", 1, None, {}, [R("test-service", "main", 1)]),
        ("test-service", 1, 0, {}, [R("test-service", "main", 0)]),
        ("svc", 1, None, _gms(1), [R("svc-gms-0", "gms", 1, 0), R("svc", "main", 2, 0)]),
        ("svc", 1, None, _gms(3), [R("svc-gms-0", "gms", 1, 0), R("svc", "main", 4, 0)]),
        ("svc", 1, None, _gms(None), [R("svc-gms-0", "gms", 1, 0), R("svc", "main", 1, 0)]),
        (
            "svc", 2, None, _gms(1),
            [R("svc-gms-0", "gms", 1, 0), R("svc-ldr", "leader", 2, 0),
             R("svc-gms-1", "gms", 1, 1), R("svc-wkr-1", "worker", 2, 1)],
        ),
        (
            "svc", 3, None, _gms(2),
            [R("svc-gms-0", "gms", 1, 0), R("svc-ldr", "leader", 3, 0),
             R("svc-gms-1", "gms", 1, 1), R("svc-wkr-1", "worker", 3, 1),
             R("svc-gms-2", "gms", 1, 2), R("svc-wkr-2", "worker", 3, 2)],
        ),
        (
            "svc", 2, None, _gms(None),
            [R("svc-gms-0", "gms", 1, 0), R("svc-ldr", "leader", 1, 0),
             R("svc-gms-1", "gms", 1, 1), R("svc-wkr-1", "worker", 1, 1)],
        ),
        ("svc", 1, 4, {"experimental": {"grove": {"forceScalingGroup": True}}},
         [R("svc", "main", 1)]),
    ],
)  # fmt: skip
def test_expand_roles_for_component(
    name: str, nodes: int, replicas: int | None, component: JSON, expected: list[ServiceRole]
) -> None:
    assert expand_roles_for_component(name, replicas, nodes, component) == expected


def _gang_set(names: list[str]) -> JSON:
    cliques = [{"name": n, "spec": {"roleName": n, "replicas": 1}} for n in names]
    return {"spec": {"template": {"cliques": cliques}}}


def _starts_after(gang_set: JSON) -> dict[str, list[str] | None]:
    return {
        c["name"]: c["spec"].get("startsAfter") for c in gang_set["spec"]["template"]["cliques"]
    }


MULTINODE_ROLES = [R("service-ldr", "leader", 1), R("service-wkr", "worker", 2)]


@pytest.mark.parametrize(
    ("roles", "backend", "nodes", "deps", "explicit"),
    [
        (MULTINODE_ROLES, "vllm", 3, {"service-ldr": None, "service-wkr": None}, False),
        (MULTINODE_ROLES, "sglang", 3, {"service-ldr": None, "service-wkr": None}, False),
        (MULTINODE_ROLES, "trtllm", 3, {"service-ldr": ["service-wkr"], "service-wkr": None}, True),
        ([R("service", "main", 1)], "trtllm", 1, {"service": None}, False),
    ],
)
def test_apply_clique_startup_dependencies(
    roles: list[ServiceRole],
    backend: str,
    nodes: int,
    deps: dict[str, list[str] | None],
    explicit: bool,
) -> None:
    gang_set = _gang_set([r.name.lower() for r in roles])
    apply_clique_startup_dependencies(gang_set, roles, backend, nodes, False)
    assert _starts_after(gang_set) == deps
    startup = gang_set["spec"]["template"].get("cliqueStartupType")
    assert startup == ("CliqueStartupTypeExplicit" if explicit else None)


def test_apply_clique_startup_dependencies_gms() -> None:
    roles = [R("svc-gms-0", "gms", 1, 0), R("svc", "main", 2, 0)]
    gang_set = _gang_set(["svc-gms-0", "svc"])
    apply_clique_startup_dependencies(gang_set, roles, "vllm", 1, True)
    assert gang_set["spec"]["template"]["cliqueStartupType"] == "CliqueStartupTypeExplicit"
    assert _starts_after(gang_set) == {"svc-gms-0": None, "svc": ["svc-gms-0"]}
    roles = [R("engine-gms-0", "gms", 1, 0), R("engine", "main", 2, 0)]
    gang_set = _gang_set(["frontend", "engine-gms-0", "engine"])
    apply_clique_startup_dependencies(gang_set, roles, "vllm", 1, True)
    assert _starts_after(gang_set) == {
        "frontend": None,
        "engine-gms-0": None,
        "engine": ["engine-gms-0"],
    }


@pytest.mark.parametrize(
    ("role", "backend", "leader", "workers", "expected"),
    [
        ("leader", "trtllm", "service-ldr", ["service-wkr1", "service-wkr2"],
         ["service-wkr1", "service-wkr2"]),
        ("worker", "trtllm", "service-ldr", ["service-wkr"], []),
        ("leader", "trtllm", "service-ldr", [], []),
        ("worker", "vllm", "service-ldr", [], ["service-ldr"]),
        ("worker", "sglang", "", [], []),
    ],
)  # fmt: skip
def test_get_clique_startup_dependencies(
    role: str, backend: str, leader: str, workers: list[str], expected: list[str]
) -> None:
    assert get_clique_startup_dependencies(role, backend, leader, workers) == expected


@pytest.mark.parametrize(
    ("annotations", "want"),
    [
        ({}, None),
        ({"nvidia.com/grove-update-strategy": "RollingRecreate"}, "RollingRecreate"),
        ({"nvidia.com/grove-update-strategy": "OnDelete"}, "OnDelete"),
    ],
)
def test_grove_update_strategy(annotations: dict[str, str], want: str | None) -> None:
    assert grove_update_strategy_from_annotations(annotations) == want


@pytest.mark.parametrize("value", ["ondelete", " OnDelete", ""])
def test_grove_update_strategy_rejects(value: str) -> None:
    with pytest.raises(GroveError) as info:
        grove_update_strategy_from_annotations({"nvidia.com/grove-update-strategy": value})
    assert str(info.value) == (
        f'unsupported Grove update strategy annotation "nvidia.com/grove-update-strategy"='
        f'"{value}": supported values are "RollingRecreate" and "OnDelete"'
    )


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(900, "15m0s"), (3600, "1h0m0s"), (5400, "1h30m0s"), (90, "1m30s"), (5, "5s"), (0, "0s")],
)
def test_go_duration_string(seconds: int, text: str) -> None:
    """time.Duration.String (15m0s is the oracle's terminationDelay)."""
    assert go_duration_string(seconds) == text


def _topology_dgd(spec_tc: JSON | None, component: JSON) -> JSON:
    spec: JSON = {"backendFramework": "vllm", "components": [component]}
    if spec_tc is not None:
        spec["topologyConstraint"] = spec_tc
    return {"metadata": {"name": "test-deploy", "namespace": "default"}, "spec": spec}


def _worker(tc: JSON | None, nodes: int = 1) -> JSON:
    component: JSON = {"name": "Worker", "type": "worker", "replicas": 2}
    if tc is not None:
        component["topologyConstraint"] = tc
    if nodes > 1:
        component["multinode"] = {"nodeCount": nodes}
    return component


def _pack(domain: str, topology: str = "") -> JSON:
    constraint: JSON = {"pack": {"required": domain}}
    if topology:
        constraint["topologyName"] = topology
    return constraint


ZONE = {"clusterTopologyName": "test-topology", "packDomain": "zone"}
NAME_ONLY = {"clusterTopologyName": "test-topology"}


@pytest.mark.parametrize(
    ("spec_tc", "component", "want"),
    [
        (None, _worker(None), (None, {"worker": None}, {})),
        (ZONE, _worker({"packDomain": "rack"}),
         (_pack("zone", "test-topology"), {"worker": _pack("rack")}, {})),
        (NAME_ONLY, _worker({"packDomain": "rack"}),
         (None, {"worker": _pack("rack", "test-topology")}, {})),
        (ZONE, _worker({"packDomain": "block"}, 4),
         (_pack("zone", "test-topology"), {"worker-ldr": None, "worker-wkr": None},
          {"worker": _pack("block")})),
        (NAME_ONLY, _worker({"packDomain": "block"}, 4),
         (None, {"worker-ldr": None, "worker-wkr": None},
          {"worker": _pack("block", "test-topology")})),
    ],
)  # fmt: skip
def test_topology_constraints(
    spec_tc: JSON | None,
    component: JSON,
    want: tuple[JSON | None, dict[str, JSON | None], dict[str, JSON]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TestGenerateGrovePodCliqueSet_TopologyConstraints (pod specs are not its subject).

    ``want``: the PCS template's, each clique's and each scaling group's constraint.
    """
    want_pcs, want_cliques, want_pcsgs = want
    from renderer.operator import graph_grove
    from renderer.operator.config import OperatorConfig

    monkeypatch.setattr(graph_grove, "generate_pod_spec_for_role", lambda *_a, **_k: {})
    pcs = graph_grove.generate_grove_pod_clique_set_for(
        _topology_dgd(spec_tc, component), OperatorConfig(), None, None, None
    )
    template = pcs["spec"]["template"]
    assert template.get("topologyConstraint") == want_pcs
    assert {c["name"]: c.get("topologyConstraint") for c in template["cliques"]} == want_cliques
    groups = template.get("podCliqueScalingGroups") or []
    assert {g["name"]: g.get("topologyConstraint") for g in groups} == want_pcsgs
