"""The Grove path: PodCliqueSet structure, names, gating, and exactly where bindings go."""

from __future__ import annotations

import json
from typing import Any

import pytest
from render_support import (
    BASELINE,
    BASELINE_NAME,
    FAILED_PHASE,
    FRONTEND_BETA,
    MINIMAL,
    V1ALPHA1_TWO_CHECKPOINTED,
    decode_beta,
    dgd,
    expected_binding,
    load,
    v1beta1_dgd,
)
from syrupy.assertion import SnapshotAssertion

from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_NAME_KEY,
    RESTORE_CANDIDATE_KEY,
    TARGET_CONTAINERS_KEY,
)
from renderer.render import render
from renderer.yamlout import dump_stream

BASELINE_BINDING = "02-worker-baseline"
RESTORE_KEYS = (BINDING_KEY, RESTORE_CANDIDATE_KEY, CHECKPOINT_NAME_KEY, TARGET_CONTAINERS_KEY)


def _pcs(text: str, *snapshots: Any) -> dict[str, Any]:
    objects = [o for path in snapshots for o in load(path)]
    result = render(dgd(text), objects, target="grove")
    assert [o["kind"] for o in result.objects] == ["PodCliqueSet"]
    return result.objects[0]


def _stream(text: str, *snapshots: Any) -> str:
    objects = [o for path in snapshots for o in load(path)]
    return dump_stream(
        [("dgd.yaml", o) for o in render(dgd(text), objects, target="grove").objects]
    )


def _cliques(pcs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in pcs["spec"]["template"]["cliques"]}


def _binding_map(pcs: dict[str, Any]) -> dict[str, str]:
    return json.loads(pcs["metadata"]["annotations"][BINDINGS_MAP_KEY])  # type: ignore[no-any-return]


def _assert_placement(pcs: dict[str, Any], engine: dict[str, str]) -> None:
    """Engine cliques carry exactly their binding; every other clique carries none."""
    for name, clique in _cliques(pcs).items():
        annotations = clique.get("annotations", {})
        if name in engine:
            assert annotations[BINDING_KEY] == engine[name], name
            assert annotations[RESTORE_CANDIDATE_KEY] == "true"
        else:
            assert not set(RESTORE_KEYS) & set(annotations), name
    assert _binding_map(pcs) == engine
    assert set(_binding_map(pcs)) <= set(_cliques(pcs))


MULTINODE_TRTLLM = v1beta1_dgd(
    FRONTEND_BETA
    + decode_beta(extra="      multinode:\n        nodeCount: 3\n", command="dynamo.trtllm"),
)
# Inter-pod GMS needs a short component name: "vllmdecodeworker" + "vllmdecodeworker-gms-0"
# alone is 38 of Grove's 45 characters (see test_render_errors). The snapshot is found by
# checkpointRef because its component label says VllmDecodeWorker.
REF = f"          checkpointRef: {BASELINE_NAME}\n"
INTERPOD_GMS = v1beta1_dgd(
    FRONTEND_BETA
    + decode_beta(
        name="Decode",
        checkpoint=REF,
        experimental="        gpuMemoryService:\n          mode: InterPod\n",
    )
)
MULTINODE_GMS_WAIT = v1beta1_dgd(
    FRONTEND_BETA
    + decode_beta(
        name="Decode",
        extra="      multinode:\n        nodeCount: 2\n",
        checkpoint="          startupPolicy: WaitForCheckpoint\n" + REF,
        experimental="        gpuMemoryService:\n          mode: InterPod\n",
    )
)


def test_single_node_engine_clique_carries_binding(snapshot: SnapshotAssertion) -> None:
    text = v1beta1_dgd(FRONTEND_BETA + decode_beta())
    pcs = _pcs(text, BASELINE)
    binding = expected_binding(BASELINE_BINDING)
    _assert_placement(pcs, {"vllmdecodeworker": binding})
    clique = _cliques(pcs)["vllmdecodeworker"]
    assert clique["annotations"][CHECKPOINT_NAME_KEY] == BASELINE_NAME
    assert clique["annotations"][TARGET_CONTAINERS_KEY] == "main"
    assert clique["spec"]["replicas"] == 2
    assert pcs["spec"]["template"]["cliqueStartupType"] == "CliqueStartupTypeAnyOrder"
    assert "podCliqueScalingGroups" not in pcs["spec"]["template"]
    assert _stream(text, BASELINE) == snapshot


def test_multinode_leader_worker_scaling_group(snapshot: SnapshotAssertion) -> None:
    pcs = _pcs(MULTINODE_TRTLLM, BASELINE)
    cliques = _cliques(pcs)
    assert list(cliques) == ["frontend", "vllmdecodeworker-ldr", "vllmdecodeworker-wkr"]
    assert cliques["vllmdecodeworker-ldr"]["spec"]["replicas"] == 1
    assert cliques["vllmdecodeworker-wkr"]["spec"]["replicas"] == 2
    # minAvailable equals the replicas of a multinode clique.
    assert cliques["vllmdecodeworker-wkr"]["spec"]["minAvailable"] == 2
    # TRT-LLM: the leader starts after its workers, so the startup type is explicit.
    assert cliques["vllmdecodeworker-ldr"]["spec"]["startsAfter"] == ["vllmdecodeworker-wkr"]
    assert "startsAfter" not in cliques["vllmdecodeworker-wkr"]["spec"]
    assert pcs["spec"]["template"]["cliqueStartupType"] == "CliqueStartupTypeExplicit"
    assert pcs["spec"]["template"]["podCliqueScalingGroups"] == [
        {
            "name": "vllmdecodeworker",
            "cliqueNames": ["vllmdecodeworker-ldr", "vllmdecodeworker-wkr"],
            "replicas": 2,
            "minAvailable": 1,
        }
    ]
    binding = expected_binding(BASELINE_BINDING)
    _assert_placement(pcs, {"vllmdecodeworker-ldr": binding, "vllmdecodeworker-wkr": binding})
    assert _stream(MULTINODE_TRTLLM, BASELINE) == snapshot


def test_inter_pod_gms_cliques_carry_no_binding(snapshot: SnapshotAssertion) -> None:
    pcs = _pcs(INTERPOD_GMS, BASELINE)
    cliques = _cliques(pcs)
    assert list(cliques) == ["frontend", "decode-gms-0", "decode"]
    assert cliques["decode"]["spec"]["startsAfter"] == ["decode-gms-0"]
    assert pcs["spec"]["template"]["podCliqueScalingGroups"][0]["cliqueNames"] == [
        "decode-gms-0",
        "decode",
    ]
    _assert_placement(pcs, {"decode": expected_binding(BASELINE_BINDING)})
    assert _stream(INTERPOD_GMS, BASELINE) == snapshot


def test_wait_for_checkpoint_not_ready_gates_engines_only(snapshot: SnapshotAssertion) -> None:
    pcs = _pcs(MULTINODE_GMS_WAIT, FAILED_PHASE)
    cliques = _cliques(pcs)
    assert list(cliques) == [
        "frontend",
        "decode-gms-0",
        "decode-ldr",
        "decode-gms-1",
        "decode-wkr-1",
    ]
    for name in ("decode-ldr", "decode-wkr-1"):
        assert cliques[name]["spec"]["replicas"] == 0, name
    for name in ("decode-gms-0", "decode-gms-1", "frontend"):
        assert cliques[name]["spec"]["replicas"] == 1, name
    assert cliques["decode-wkr-1"]["spec"]["startsAfter"] == ["decode-gms-1"]
    group = pcs["spec"]["template"]["podCliqueScalingGroups"][0]
    assert group["replicas"] == 0
    # Vector 04 differs from 02 only in fields the binding ignores (status, managedFields...).
    binding = expected_binding("04-same-as-02-metadata-status-identity")
    _assert_placement(pcs, {"decode-ldr": binding, "decode-wkr-1": binding})
    assert _stream(MULTINODE_GMS_WAIT, FAILED_PHASE) == snapshot


def test_wait_for_checkpoint_ready_is_not_gated() -> None:
    pcs = _pcs(MULTINODE_GMS_WAIT, BASELINE)
    assert _cliques(pcs)["decode-ldr"]["spec"]["replicas"] == 1
    assert pcs["spec"]["template"]["podCliqueScalingGroups"][0]["replicas"] == 2


def _fnv1a_32(data: bytes) -> int:
    # Written out independently of renderer.render.names: offset basis and prime of FNV-1a.
    h = 2166136261
    for b in data:
        h ^= b
        h = (h * 16777619) % (1 << 32)
    return h


def test_long_dgd_name_is_shortened_with_fnv_suffix(snapshot: SnapshotAssertion) -> None:
    # 40 characters: over the PCS budget (45 - 16 = 29), yet short enough that the derived
    # labels (<dgd>-vllmdecodeworker, dynamo-prod-<dgd>) stay within 63.
    long_name = "llama-disagg-production-east-us2-large-a"
    assert len(long_name) == 40
    text = v1beta1_dgd(
        FRONTEND_BETA + decode_beta(checkpoint=f"          checkpointRef: {BASELINE_NAME}\n"),
        name=long_name,
    )
    pcs = _pcs(text, BASELINE)
    name = pcs["metadata"]["name"]
    budget = 45 - len("vllmdecodeworker")  # widest single-node component clique
    suffix = f"{_fnv1a_32(long_name.encode()) & 0xFFFF:04x}"
    assert name == long_name[: budget - 5] + "-" + suffix
    assert len(name) + len("vllmdecodeworker") <= 45
    # Labels keep the full DGD name; only the PCS object name is shortened.
    assert pcs["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == long_name
    _assert_placement(pcs, {"vllmdecodeworker": expected_binding(BASELINE_BINDING)})
    assert _stream(text, BASELINE) == snapshot


def test_two_checkpointed_components_v1alpha1(snapshot: SnapshotAssertion) -> None:
    pcs = _pcs(V1ALPHA1_TWO_CHECKPOINTED, BASELINE, MINIMAL)
    _assert_placement(
        pcs,
        {
            "vllmprefillworker": expected_binding("01-minimal"),
            "vllmdecodeworker": expected_binding(BASELINE_BINDING),
        },
    )
    # compact JSON, keys sorted
    raw = pcs["metadata"]["annotations"][BINDINGS_MAP_KEY]
    assert raw == json.dumps(_binding_map(pcs), sort_keys=True, separators=(",", ":"))
    assert " " not in raw
    assert _stream(V1ALPHA1_TWO_CHECKPOINTED, BASELINE, MINIMAL) == snapshot


def test_pcs_defaults_and_dgd_metadata() -> None:
    text = v1beta1_dgd(
        FRONTEND_BETA,
        extra_spec="  priorityClassName: inference-high\n  labels:\n    team: ml\n"
        "  annotations:\n    example.com/owner: platform\n",
    )
    pcs = _pcs(text)
    template = pcs["spec"]["template"]
    assert pcs["spec"]["replicas"] == 1
    assert template["headlessServiceConfig"] == {"publishNotReadyAddresses": True}
    assert template["terminationDelay"] == "15m0s"
    assert template["priorityClassName"] == "inference-high"
    assert pcs["metadata"]["labels"] == {
        "nvidia.com/dynamo-graph-deployment-name": "llama-disagg",
        "team": "ml",
    }
    # No checkpointed component: no binding map at all.
    assert pcs["metadata"]["annotations"] == {"example.com/owner": "platform"}
    frontend = _cliques(pcs)["frontend"]
    assert frontend["labels"]["team"] == "ml"
    assert frontend["labels"]["nvidia.com/selector"] == "llama-disagg-frontend"
    assert frontend["annotations"] == {"example.com/owner": "platform"}


@pytest.mark.parametrize("nodes", [2, 5])
def test_multinode_worker_replicas(nodes: int) -> None:
    text = v1beta1_dgd(decode_beta(extra=f"      multinode:\n        nodeCount: {nodes}\n"))
    cliques = _cliques(_pcs(text, BASELINE))
    assert cliques["vllmdecodeworker-wkr"]["spec"]["replicas"] == nodes - 1
    # vLLM multinode has no explicit startup order (only TRT-LLM does).
    assert "startsAfter" not in cliques["vllmdecodeworker-ldr"]["spec"]


@pytest.mark.parametrize(
    ("text", "snapshot_path"),
    [
        (MULTINODE_TRTLLM, BASELINE),
        (INTERPOD_GMS, BASELINE),
        (MULTINODE_GMS_WAIT, FAILED_PHASE),
        (V1ALPHA1_TWO_CHECKPOINTED, BASELINE),
    ],
    ids=["multinode", "inter-pod-gms", "gated", "v1alpha1"],
)
@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_rendered_objects_match_the_bundled_schemas(
    text: str, snapshot_path: Any, target: str
) -> None:
    from renderer.schema import validate_data

    snapshots = load(snapshot_path) + (load(MINIMAL) if "VllmPrefillWorker" in text else [])
    for obj in render(dgd(text), snapshots, target=target).objects:
        assert validate_data(obj, "rendered.yaml") == [], obj["metadata"]["name"]


def test_scaling_group_replicas_absent_when_the_component_has_none() -> None:
    component = decode_beta(extra="      multinode:\n        nodeCount: 2\n").replace(
        "      replicas: 2\n", ""
    )
    pcs = _pcs(v1beta1_dgd(component), BASELINE)
    (group,) = pcs["spec"]["template"]["podCliqueScalingGroups"]
    assert "replicas" not in group  # the operator passes the nil pointer through
    assert group["minAvailable"] == 1


def test_pod_labels_cannot_override_the_system_labels() -> None:
    # The operator's generateLabels merges DGD and pod-template labels, then re-applies
    # every system label: selector, DGD name, component, component type, namespace.
    component = decode_beta().replace(
        "      podTemplate:\n",
        "      podTemplate:\n        metadata:\n          labels:\n"
        "            nvidia.com/selector: mine\n            nvidia.com/dynamo-component: Other\n"
        "            nvidia.com/dynamo-component-type: other\n            team: pods\n",
    )
    text = v1beta1_dgd(component, extra_spec="  labels:\n    team: dgd\n    tier: gold\n")
    labels = _cliques(_pcs(text, BASELINE))["vllmdecodeworker"]["labels"]
    assert labels["nvidia.com/selector"] == "llama-disagg-vllmdecodeworker"
    assert labels["nvidia.com/dynamo-component"] == "VllmDecodeWorker"
    assert labels["nvidia.com/dynamo-component-type"] == "decode"
    assert labels["team"] == "pods"  # the component's own label wins over the DGD's
    assert labels["tier"] == "gold"


def test_scaling_group_takes_the_components_min_available() -> None:
    # The operator's buildGroveScalingGroupConfig: minAvailable = component's, else 1.
    # The multinode cliques still take their replicas.
    text = v1beta1_dgd(
        decode_beta(extra="      minAvailable: 2\n      multinode:\n        nodeCount: 3\n")
    )
    pcs = _pcs(text, BASELINE)
    (group,) = pcs["spec"]["template"]["podCliqueScalingGroups"]
    assert group["minAvailable"] == 2
    cliques = _cliques(pcs)
    assert cliques["vllmdecodeworker-ldr"]["spec"]["minAvailable"] == 1
    assert cliques["vllmdecodeworker-wkr"]["spec"]["minAvailable"] == 2


def test_trtllm_startup_order_only_for_worker_components() -> None:
    # The operator resolves the backend per component: a non-worker is always the no-op
    # backend, so a multinode frontend of a TRT-LLM graph gets no startsAfter.
    frontend = FRONTEND_BETA.replace(
        "      replicas: 1\n", "      replicas: 1\n      multinode:\n        nodeCount: 2\n"
    )
    text = v1beta1_dgd(
        frontend
        + decode_beta(extra="      multinode:\n        nodeCount: 2\n", command="dynamo.trtllm"),
    )
    cliques = _cliques(_pcs(text, BASELINE))
    assert "startsAfter" not in cliques["frontend-ldr"]["spec"]
    assert cliques["vllmdecodeworker-ldr"]["spec"]["startsAfter"] == ["vllmdecodeworker-wkr"]


def test_trtllm_startup_order_from_the_dgd_backend_when_undetectable() -> None:
    # A worker whose command names no backend falls back to spec.backendFramework.
    component = decode_beta(extra="      multinode:\n        nodeCount: 2\n").replace(
        "              command: [python3, -m, dynamo.vllm]\n", ""
    )
    text = v1beta1_dgd(component, extra_spec="  backendFramework: trtllm\n")
    cliques = _cliques(_pcs(text, BASELINE))
    assert cliques["vllmdecodeworker-ldr"]["spec"]["startsAfter"] == ["vllmdecodeworker-wkr"]


def test_reserved_annotations_written_in_the_dgd_are_dropped() -> None:
    # Only the renderer stamps the binding and restore-candidate set (engine cliques of a
    # checkpointed component) and the map (PCS); the operator clears copies elsewhere.
    frontend = FRONTEND_BETA.replace(
        "      podTemplate:\n",
        "      podTemplate:\n        metadata:\n          annotations:\n"
        f"            {BINDING_KEY}: v1/stale/1/00\n"
        f'            {RESTORE_CANDIDATE_KEY}: "true"\n',
    )
    text = v1beta1_dgd(
        frontend + decode_beta(),
        extra_spec=f"  annotations:\n    {BINDINGS_MAP_KEY}: '{{}}'\n    team: x\n",
    )
    result = render(dgd(text), load(BASELINE), target="grove")
    pcs = result.objects[0]
    _assert_placement(pcs, {"vllmdecodeworker": expected_binding(BASELINE_BINDING)})
    assert _cliques(pcs)["frontend"]["annotations"] == {"team": "x"}
    assert sum("written only by the renderer" in w for w in result.warnings) == 3
