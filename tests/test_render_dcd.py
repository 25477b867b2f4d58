"""The DCD path: one DCD per component, names, labels, spec copy, and the two binding copies."""

from __future__ import annotations

from typing import Any

from render_support import (
    BASELINE,
    BASELINE_NAME,
    EXAMPLES,
    FAILED_PHASE,
    FRONTEND_BETA,
    MINIMAL,
    V1ALPHA1_TWO_CHECKPOINTED,
    WORKER_HASH,
    decode_beta,
    dgd,
    expected_binding,
    load,
    v1beta1_dgd,
)
from syrupy.assertion import SnapshotAssertion

from renderer.keys import (
    BINDING_KEY,
    CHECKPOINT_NAME_KEY,
    COMPONENT_LABEL,
    DGD_NAME_LABEL,
    DYNAMO_NAMESPACE_LABEL,
    RESTORE_CANDIDATE_KEY,
    TARGET_CONTAINERS_KEY,
    WORKER_HASH_LABEL,
)
from renderer.render import render
from renderer.source import load_bytes, load_paths
from renderer.yamlout import dump_stream

RESTORE_KEYS = {BINDING_KEY, RESTORE_CANDIDATE_KEY, CHECKPOINT_NAME_KEY, TARGET_CONTAINERS_KEY}


def _dcds(text: str, *snapshots: Any) -> dict[str, dict[str, Any]]:
    objects = [o for path in snapshots for o in load(path)]
    result = render(dgd(text), objects, target="dcd")
    assert {o["kind"] for o in result.objects} == {"DynamoComponentDeployment"}
    return {o["metadata"]["name"]: o for o in result.objects}


def _pod_metadata(dcd: dict[str, Any]) -> dict[str, Any]:
    spec = dcd["spec"]
    if dcd["apiVersion"] == "nvidia.com/v1alpha1":
        return spec.get("extraPodMetadata", {})  # type: ignore[no-any-return]
    return spec.get("podTemplate", {}).get("metadata", {})  # type: ignore[no-any-return]


def _all_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _all_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _all_keys(v)}
    return set()


def _assert_two_copies(dcd: dict[str, Any], binding: str, checkpoint_name: str) -> None:
    assert dcd["metadata"]["annotations"][BINDING_KEY] == binding
    pod = _pod_metadata(dcd)["annotations"]
    assert pod[BINDING_KEY] == binding
    assert pod[RESTORE_CANDIDATE_KEY] == "true"
    assert pod[CHECKPOINT_NAME_KEY] == checkpoint_name
    assert pod[TARGET_CONTAINERS_KEY] == "main"


def test_example_dcds_carry_both_copies() -> None:
    snapshots = load_paths([str(EXAMPLES / "snapshots")])
    binding = expected_binding("02-worker-baseline")
    for version in ("v1alpha1", "v1beta1"):
        source = load(EXAMPLES / f"llama-disagg-{version}" / "dgd.yaml")[0]
        objects = render(source, snapshots, target="dcd").objects
        by_name = {o["metadata"]["name"]: o for o in objects}
        # One worker hash per DGD (the operator hashes all workers together): the prefill
        # worker, not checkpointed, is named with the hash the decode worker's snapshot carries.
        assert list(by_name) == [
            "llama-disagg-frontend",
            f"llama-disagg-vllmprefillworker-{WORKER_HASH}",
            f"llama-disagg-vllmdecodeworker-{WORKER_HASH}",
        ]
        assert {o["apiVersion"] for o in objects} == {f"nvidia.com/{version}"}
        _assert_two_copies(
            by_name[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"],
            binding,
            "checkpoint-9f1e2d3c4b5a6978",
        )
        for name in ("llama-disagg-frontend", f"llama-disagg-vllmprefillworker-{WORKER_HASH}"):
            assert not RESTORE_KEYS & _all_keys(by_name[name]), (version, name)


def test_copies_equal_the_engines_binding() -> None:
    from renderer.binding import bind

    dcd = _dcds(V1ALPHA1_TWO_CHECKPOINTED, BASELINE, MINIMAL)[
        f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"
    ]
    value = bind(load(BASELINE)[0]).value
    assert dcd["metadata"]["annotations"][BINDING_KEY] == value
    assert _pod_metadata(dcd)["annotations"][BINDING_KEY] == value


def test_two_checkpointed_components(snapshot: SnapshotAssertion) -> None:
    dcds = _dcds(V1ALPHA1_TWO_CHECKPOINTED, BASELINE, MINIMAL)
    assert list(dcds) == [
        "llama-disagg-frontend",
        # vector 01 has no worker-hash label; the DGD's one worker hash comes from vector 02
        f"llama-disagg-vllmprefillworker-{WORKER_HASH}",
        f"llama-disagg-vllmdecodeworker-{WORKER_HASH}",
    ]
    _assert_two_copies(
        dcds[f"llama-disagg-vllmprefillworker-{WORKER_HASH}"],
        expected_binding("01-minimal"),
        "checkpoint-a1b2c3d4",
    )
    _assert_two_copies(
        dcds[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"],
        expected_binding("02-worker-baseline"),
        "checkpoint-9f1e2d3c4b5a6978",
    )
    prefill = dcds[f"llama-disagg-vllmprefillworker-{WORKER_HASH}"]
    assert prefill["metadata"]["labels"][WORKER_HASH_LABEL] == WORKER_HASH
    assert not RESTORE_KEYS & _all_keys(dcds["llama-disagg-frontend"])
    objects = render(
        dgd(V1ALPHA1_TWO_CHECKPOINTED), load(BASELINE) + load(MINIMAL), target="dcd"
    ).objects
    assert dump_stream([("dgd.yaml", o) for o in objects]) == snapshot


def test_v1alpha1_extras_and_labels() -> None:
    dcd = _dcds(V1ALPHA1_TWO_CHECKPOINTED, BASELINE, MINIMAL)[
        f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"
    ]
    three = {
        COMPONENT_LABEL: "VllmDecodeWorker",
        DYNAMO_NAMESPACE_LABEL: "dynamo-prod-llama-disagg",
        DGD_NAME_LABEL: "llama-disagg",
    }
    assert dcd["metadata"]["labels"] == {**three, WORKER_HASH_LABEL: WORKER_HASH}
    assert dcd["spec"]["serviceName"] == "VllmDecodeWorker"
    assert dcd["spec"]["dynamoNamespace"] == "dynamo-prod-llama-disagg"
    assert dcd["spec"]["labels"] == three
    assert dcd["spec"]["backendFramework"] == "vllm"  # detected from `python3 -m dynamo.vllm`
    assert dcd["spec"]["extraPodMetadata"]["labels"] == {WORKER_HASH_LABEL: WORKER_HASH}
    assert dcd["metadata"]["namespace"] == "dynamo-prod"


def test_wait_for_checkpoint_not_ready_scales_dcd_to_zero(snapshot: SnapshotAssertion) -> None:
    text = v1beta1_dgd(
        FRONTEND_BETA + decode_beta(checkpoint="          startupPolicy: WaitForCheckpoint\n")
    )
    dcds = _dcds(text, FAILED_PHASE)
    worker = dcds[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"]
    assert worker["spec"]["replicas"] == 0
    # The candidate metadata stays: the pods restore once the gate opens.
    _assert_two_copies(
        worker,
        expected_binding("04-same-as-02-metadata-status-identity"),
        "checkpoint-9f1e2d3c4b5a6978",
    )
    assert dcds["llama-disagg-frontend"]["spec"]["replicas"] == 1
    assert (
        _dcds(text, BASELINE)[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"]["spec"]["replicas"]
        == 2
    )
    objects = render(dgd(text), load(FAILED_PHASE), target="dcd").objects
    assert dump_stream([("dgd.yaml", o) for o in objects]) == snapshot


def test_dgd_metadata_merges_under_the_components_own() -> None:
    component = decode_beta().replace(
        "      podTemplate:\n",
        "      podTemplate:\n        metadata:\n          labels:\n            team: decode\n"
        "          annotations:\n            example.com/owner: decode-team\n",
    )
    text = v1beta1_dgd(
        component,
        extra_spec=(
            "  labels:\n    team: ml\n    tier: gold\n"
            "  annotations:\n    example.com/owner: platform\n"
            "  env:\n    - name: DYN_LOG\n      value: info\n    - name: A_FIRST\n      value: x\n"
        ),
    )
    dcd = _dcds(text, BASELINE)[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"]
    pod = dcd["spec"]["podTemplate"]["metadata"]
    assert pod["labels"] == {"team": "decode", "tier": "gold", WORKER_HASH_LABEL: WORKER_HASH}
    assert pod["annotations"]["example.com/owner"] == "decode-team"
    # DCD metadata labels: the pod template labels as written plus the operator's.
    assert dcd["metadata"]["labels"]["team"] == "decode"
    assert "tier" not in dcd["metadata"]["labels"]
    main = dcd["spec"]["podTemplate"]["spec"]["containers"][0]
    assert [e["name"] for e in main["env"]] == ["A_FIRST", "DYN_LOG"]  # merged, sorted by name


def test_multinode_and_gms_dcd_is_a_spec_copy(snapshot: SnapshotAssertion) -> None:
    text = v1beta1_dgd(
        decode_beta(
            extra="      multinode:\n        nodeCount: 2\n",
            experimental="        gpuMemoryService:\n          mode: InterPod\n",
        )
    )
    dcds = _dcds(text, BASELINE)
    worker = dcds[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"]
    assert worker["spec"]["multinode"] == {"nodeCount": 2}
    assert worker["spec"]["experimental"]["gpuMemoryService"] == {"mode": "InterPod"}
    _assert_two_copies(
        worker, expected_binding("02-worker-baseline"), "checkpoint-9f1e2d3c4b5a6978"
    )
    objects = render(dgd(text), load(BASELINE), target="dcd").objects
    assert dump_stream([("dgd.yaml", o) for o in objects]) == snapshot


def test_v1alpha1_component_labels_and_annotations_win_over_the_dgds() -> None:
    # A v1alpha1 component's own `labels`/`annotations` are its pod metadata too: a DGD
    # value for the same key is low priority and is not added to extraPodMetadata.
    text = V1ALPHA1_TWO_CHECKPOINTED.replace(
        "  services:\n",
        "  labels:\n    team: dgd\n  annotations:\n    owner: dgd\n    other: dgd\n  services:\n",
    ).replace(
        "    Frontend:\n      componentType: frontend\n",
        "    Frontend:\n      componentType: frontend\n"
        "      labels:\n        team: fe\n      annotations:\n        owner: fe\n",
    )
    frontend = _dcds(text, BASELINE, MINIMAL)["llama-disagg-frontend"]
    assert frontend["spec"]["labels"]["team"] == "fe"
    assert frontend["spec"]["annotations"] == {"owner": "fe"}
    assert frontend["spec"]["extraPodMetadata"] == {"annotations": {"other": "dgd"}}
    assert frontend["metadata"]["labels"]["team"] == "fe"


def test_reserved_annotations_never_reach_a_non_checkpointed_dcd() -> None:
    # A binding or restore-candidate annotation written in the DGD is dropped (warned):
    # only a checkpointed component's DCD carries them, with the renderer's values.
    text = V1ALPHA1_TWO_CHECKPOINTED.replace(
        "  services:\n",
        f"  annotations:\n    {BINDING_KEY}: v1/stale/1/00\n  services:\n",
    ).replace(
        "    Frontend:\n      componentType: frontend\n",
        "    Frontend:\n      componentType: frontend\n"
        f'      annotations:\n        {RESTORE_CANDIDATE_KEY}: "true"\n'
        f"      extraPodMetadata:\n        annotations:\n          {CHECKPOINT_NAME_KEY}: x\n",
    )
    result = render(dgd(text), load(BASELINE) + load(MINIMAL), target="dcd")
    by_name = {o["metadata"]["name"]: o for o in result.objects}
    frontend = by_name["llama-disagg-frontend"]
    assert not RESTORE_KEYS & _all_keys(frontend)
    decode = by_name[f"llama-disagg-vllmdecodeworker-{WORKER_HASH}"]
    _assert_two_copies(
        decode, expected_binding("02-worker-baseline"), "checkpoint-9f1e2d3c4b5a6978"
    )
    assert sum("written only by the renderer" in w for w in result.warnings) == 3


def test_target_containers_follow_the_components_target_container_name() -> None:
    # The operator's checkpoint resolver: the service's checkpoint.targetContainerName
    # overrides the restore targets; without it they are the capture's (here `main`).
    text = v1beta1_dgd(decode_beta(checkpoint="          targetContainerName: engine\n"))
    (dcd,) = _dcds(text, BASELINE).values()
    assert _pod_metadata(dcd)["annotations"][TARGET_CONTAINERS_KEY] == "engine"
    (dcd,) = _dcds(v1beta1_dgd(decode_beta()), BASELINE).values()
    assert _pod_metadata(dcd)["annotations"][TARGET_CONTAINERS_KEY] == "main"


def test_dynamo_namespace_label_and_field() -> None:
    # The operator's ComputeDynamoNamespace: "<ns>-<dgd>" with dots in the DGD name made
    # hyphens (it is the first segment of dotted endpoint paths); "dynamo" when global.
    text = V1ALPHA1_TWO_CHECKPOINTED.replace("name: llama-disagg", "name: llama.v2").replace(
        "    Frontend:\n      componentType: frontend\n",
        "    Frontend:\n      componentType: frontend\n      globalDynamoNamespace: true\n",
    )
    # The baseline snapshot's labels name llama-disagg: bind the decode worker by name.
    text = text.replace(
        "      checkpoint:\n        enabled: true\n      extraPodSpec",
        f"      checkpoint:\n        enabled: true\n        checkpointRef: {BASELINE_NAME}\n"
        "      extraPodSpec",
    )
    snapshots = load(BASELINE) + load(MINIMAL)
    objects = render(dgd(text), snapshots, target="dcd").objects
    by_name = {o["metadata"]["name"]: o for o in objects}
    decode = by_name[f"llama.v2-vllmdecodeworker-{WORKER_HASH}"]
    assert decode["metadata"]["labels"][DYNAMO_NAMESPACE_LABEL] == "dynamo-prod-llama-v2"
    assert decode["spec"]["dynamoNamespace"] == "dynamo-prod-llama-v2"
    assert decode["spec"]["labels"][DYNAMO_NAMESPACE_LABEL] == "dynamo-prod-llama-v2"
    frontend = by_name["llama.v2-frontend"]
    assert frontend["metadata"]["labels"][DYNAMO_NAMESPACE_LABEL] == "dynamo"
    assert frontend["spec"]["dynamoNamespace"] == "dynamo"


def test_no_empty_pod_template_when_nothing_is_added() -> None:
    # A component without a podTemplate gets one only for something to put in it: DGD
    # values it does not override, the worker hash, the binding. A dropped reserved
    # annotation alone adds nothing.
    frontend = "    - name: Frontend\n      type: frontend\n"
    text = v1beta1_dgd(frontend, extra_spec=f"  annotations:\n    {BINDING_KEY}: v1/x/1/00\n")
    (dcd,) = _dcds(text).values()
    assert "podTemplate" not in dcd["spec"]


def test_one_worker_hash_per_dgd_unless_the_snapshots_disagree() -> None:
    # The operator hashes all workers of a DGD together and stamps that one hash on every
    # worker DCD. Offline it comes from the snapshots; two snapshots captured under
    # different worker generations leave it unknown for the workers that have none.
    other = "0a1b2c3d"
    prefill = BASELINE.read_text().replace(WORKER_HASH, other)
    prefill = prefill.replace("VllmDecodeWorker", "VllmPrefillWorker")
    prefill = prefill.replace(BASELINE_NAME, "checkpoint-prefill")
    spare = decode_beta(name="Spare", component_type="worker").replace("true", "false")
    text = v1beta1_dgd(
        FRONTEND_BETA
        + decode_beta()
        + decode_beta(name="VllmPrefillWorker", component_type="prefill")
        + spare
    )
    snapshots = load(BASELINE) + load_bytes(prefill.encode(), "prefill.yaml")
    result = render(dgd(text), snapshots, target="dcd")
    names = [o["metadata"]["name"] for o in result.objects]
    assert names == [
        "llama-disagg-frontend",
        f"llama-disagg-vllmdecodeworker-{WORKER_HASH}",
        f"llama-disagg-vllmprefillworker-{other}",
        "llama-disagg-spare",
    ]
    [warning] = [w for w in result.warnings if "worker hash unknown" in w]
    assert "component 'Spare'" in warning
    assert f"disagree on it: {other}, {WORKER_HASH}" in warning
