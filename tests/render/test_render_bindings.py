"""Exactly where render places the binding on the operator's objects (the places are listed
in renderer/render/place.py).

The objects themselves are the operator's and are checked against the oracle elsewhere
(tests/operator/test_cli_end_to_end.py); here: a checkpointed worker's DCD carries the
binding on its metadata and its pod template, a PodCliqueSet carries it on the component's
engine cliques (leader and workers of a multinode one; never its GMS cliques, never another
component's) and in its binding map. Expected bindings are the Go-computed reference
vectors (tests/vectors/expected.jsonl); the snapshots are given by checkpointRef, which the
operator reads whatever the snapshot's name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from paths import OPERATOR_GOLDENS, TESTS, VECTORS
from render_support import (
    BASELINE,
    BASELINE_NAME,
    FRONTEND_BETA,
    MINIMAL,
    NOT_AUTOMATIC,
    V1ALPHA1_TWO_CHECKPOINTED,
    decode_beta,
    dgd,
    expected_binding,
    load,
    v1beta1_dgd,
)

from renderer.errors import BindingError
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY, CHECKPOINT_NAME_KEY, COMPONENT_LABEL
from renderer.render import render

VLLM = "  backendFramework: vllm\n"
GOOD = expected_binding("02-worker-baseline")
SINGLE = v1beta1_dgd(FRONTEND_BETA + decode_beta(), extra_spec=VLLM)
MULTINODE = v1beta1_dgd(
    FRONTEND_BETA + decode_beta(extra="      multinode:\n        nodeCount: 2\n"),
    extra_spec=VLLM,
)
# restores from vector 34 (a checkpoint recording GPU memory service, as the operator
# requires for a GMS component)
GMS_VECTOR = VECTORS / "34-gms-empty-mode.input.yaml"
INTER_POD_GMS = v1beta1_dgd(
    FRONTEND_BETA
    + decode_beta(
        ref="checkpoint-g33",
        extra="      multinode:\n        nodeCount: 2\n",
        experimental="        gpuMemoryService:\n          mode: InterPod\n",
    ).replace(
        "              command:",
        "              resources:\n                limits:\n"
        '                  nvidia.com/gpu: "1"\n              command:',
    ),
    extra_spec=VLLM,
    name="llama",  # inside the Grove name budget with the GMS cliques
)


def _render(text: str, target: str, *snapshots: Any) -> list[dict[str, Any]]:
    objects = [o for path in snapshots for o in load(path)]
    return render(dgd(text), objects, target=target).objects


def _annotations(node: dict[str, Any], *path: str) -> dict[str, Any]:
    for key in path:
        node = node.get(key) or {}
    return node.get("annotations") or {}


def _clique_bindings(pcs: dict[str, Any]) -> dict[str, str | None]:
    return {
        c["name"]: (c.get("annotations") or {}).get(BINDING_KEY)
        for c in pcs["spec"]["template"]["cliques"]
    }


def test_dcd_of_the_checkpointed_worker_carries_both_copies() -> None:
    dcds = _render(SINGLE, "dcd", BASELINE)
    by_component = {d["metadata"]["labels"][COMPONENT_LABEL]: d for d in dcds}
    decode = by_component.pop("VllmDecodeWorker")
    assert _annotations(decode, "metadata")[BINDING_KEY] == GOOD
    template = _annotations(decode, "spec", "podTemplate", "metadata")
    assert template[BINDING_KEY] == GOOD
    assert template[CHECKPOINT_NAME_KEY] == BASELINE_NAME  # the operator's, beside it
    for other in by_component.values():
        assert BINDING_KEY not in json.dumps(other)


def test_single_node_pcs_binds_the_engine_clique_and_the_map() -> None:
    (pcs,) = _render(SINGLE, "grove", BASELINE)
    assert _clique_bindings(pcs) == {"frontend": None, "vllmdecodeworker": GOOD}
    assert json.loads(pcs["metadata"]["annotations"][BINDINGS_MAP_KEY]) == {
        "vllmdecodeworker": GOOD
    }


def test_multinode_binds_leader_and_workers() -> None:
    (pcs,) = _render(MULTINODE, "grove", BASELINE)
    bindings = _clique_bindings(pcs)
    engines = {n for n in bindings if n.startswith("vllmdecodeworker")}
    assert engines == {"vllmdecodeworker-ldr", "vllmdecodeworker-wkr"}
    assert {n: bindings[n] for n in engines} == dict.fromkeys(engines, GOOD)
    assert bindings["frontend"] is None
    assert json.loads(pcs["metadata"]["annotations"][BINDINGS_MAP_KEY]) == dict.fromkeys(
        engines, GOOD
    )


def test_inter_pod_gms_cliques_are_never_bound() -> None:
    # The pinned webhook refuses checkpointing with inter-pod GMS; the binding design
    # covers it (the deliberate difference): engines bound, GMS cliques never.
    (pcs,) = _render(INTER_POD_GMS, "grove", GMS_VECTOR)
    good = expected_binding("34-gms-empty-mode")
    bindings = _clique_bindings(pcs)
    gms = {n for n in bindings if "-gms-" in n}
    assert gms  # the operator renders one GMS clique per rank
    assert all(bindings[n] is None for n in gms)
    engines = {n for n in bindings if n.startswith("vllmdecodeworker") and n not in gms}
    assert engines and all(bindings[n] == good for n in engines)
    assert set(json.loads(pcs["metadata"]["annotations"][BINDINGS_MAP_KEY])) == engines


@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_two_checkpointed_components_get_their_own_bindings(target: str) -> None:
    objects = _render(V1ALPHA1_TWO_CHECKPOINTED, target, BASELINE, MINIMAL)
    text = json.dumps(objects)
    assert text.count(GOOD) >= 2
    assert expected_binding("01-minimal") in text


MANUAL = OPERATOR_GOLDENS / "oracle/beta-checkpoint-ref-ready/checkpoint.yaml"


def test_a_manual_checkpoint_needs_no_binding() -> None:
    # the oracle corpus' manual DynamoCheckpoint (no automatic marker, no ID label)
    text = v1beta1_dgd(FRONTEND_BETA + decode_beta(ref="qwen3-06b-bf16"), extra_spec=VLLM)
    for target in ("dcd", "grove"):
        objects = _render(text, target, MANUAL)
        assert BINDING_KEY not in json.dumps(objects)
        assert "qwen3-06b-bf16" in json.dumps(objects)  # the operator's restore metadata


def test_a_checkpoint_without_the_marker_is_manual_whatever_its_labels() -> None:
    # vector 51: the ID label but no automatic marker. The operator tests only the marker
    # (annotations[nvidia.com/dynamo-auto-checkpoint] == "true"), and its pod webhook
    # restores from such a checkpoint (its own test table's are labelled, unmarked): manual,
    # so the component restores from it with no binding
    text = v1beta1_dgd(FRONTEND_BETA + decode_beta(), extra_spec=VLLM)
    for target in ("dcd", "grove"):
        objects = _render(text, target, NOT_AUTOMATIC)
        assert BINDING_KEY not in json.dumps(objects)
        assert BINDINGS_MAP_KEY not in json.dumps(objects)
        assert f'"{CHECKPOINT_NAME_KEY}": "checkpoint-9f1e2d3c4b5a6978"' in json.dumps(objects)


ORACLE = TESTS.parent.parent / "shared" / "operator-oracle" / "oracle"


@pytest.mark.skipif(not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}")
def test_a_labelled_unmarked_checkpoint_renders_as_the_operator_renders_it(
    tmp_path: Path,
) -> None:
    """The operator's own objects for vector 51 (resolved, restore metadata, no refusal)
    are what render writes, unbound: nothing placed on top of them."""
    import subprocess

    import yaml

    (tmp_path / "dgd.yaml").write_text(SINGLE)
    args = ["render", str(tmp_path / "dgd.yaml"), "--checkpoint", str(NOT_AUTOMATIC)]
    subprocess.run(
        [str(ORACLE), *args, "--out", str(tmp_path / "out")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    for target, name in (("dcd", "expected-dcds.yaml"), ("grove", "expected-pcs.yaml")):
        expected = [d for d in yaml.safe_load_all((tmp_path / "out" / name).read_text()) if d]
        ours = _render(SINGLE, target, NOT_AUTOMATIC)
        strip = [{k: v for k, v in o.items() if k != "status"} for o in (*ours, *expected)]
        assert strip[: len(ours)] == strip[len(ours) :], target


def test_a_broken_automatic_checkpoint_is_refused() -> None:
    # vector 53: marked automatic but without its ID label: the Go-computed reason
    text = v1beta1_dgd(FRONTEND_BETA + decode_beta(), extra_spec=VLLM)
    with pytest.raises(BindingError, match=r"automatic checkpoint \S+ ID label is missing"):
        _render(text, "dcd", VECTORS / "53-error-missing-id-label.input.yaml")


def test_a_checkpointed_component_that_is_no_worker_is_not_bound() -> None:
    frontend = decode_beta(name="Gateway", component_type="frontend")
    objects = _render(v1beta1_dgd(frontend, extra_spec=VLLM), "dcd", BASELINE)
    assert BINDING_KEY not in json.dumps(objects)


def test_binding_keys_typed_into_the_dgd_are_dropped_with_a_warning() -> None:
    frontend = FRONTEND_BETA.replace(
        "      podTemplate:\n",
        "      podTemplate:\n        metadata:\n          annotations:\n"
        f"            {BINDING_KEY}: v1/stale/1/00\n",
    )
    text = v1beta1_dgd(
        frontend + decode_beta(),
        extra_spec=VLLM + f"  annotations:\n    {BINDINGS_MAP_KEY}: '{{}}'\n",
    )
    result = render(dgd(text), load(BASELINE), target="grove")
    (pcs,) = result.objects
    assert _clique_bindings(pcs) == {"frontend": None, "vllmdecodeworker": GOOD}
    assert json.loads(pcs["metadata"]["annotations"][BINDINGS_MAP_KEY]) == {
        "vllmdecodeworker": GOOD
    }
    assert sum("written only by the renderer" in w for w in result.warnings) == 2


@pytest.mark.parametrize("text", [SINGLE, MULTINODE, INTER_POD_GMS, V1ALPHA1_TWO_CHECKPOINTED])
@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_rendered_objects_match_the_bundled_schemas(text: str, target: str) -> None:
    from renderer.schema import validate_data

    for obj in _render(text, target, BASELINE, MINIMAL, GMS_VECTOR):
        assert validate_data(obj, "rendered.yaml") == [], obj["metadata"]["name"]
