"""DGD normalisation (both versions into one model) and the name rules."""

from __future__ import annotations

import pytest
from render_support import EXAMPLES, FRONTEND_BETA, decode_beta, dgd, load, v1beta1_dgd

from renderer.errors import InputError
from renderer.keys import BINDING_KEY
from renderer.model import normalise
from renderer.render.names import (
    CliqueBudget,
    UnsafeNameError,
    dcd_name,
    fnv1a_32,
    name_suffix,
    pcs_name,
)


def _summary(version: str) -> list[tuple[str, str, int | None, bool]]:
    graph = normalise(load(EXAMPLES / f"llama-disagg-{version}" / "dgd.yaml")[0])
    return [(c.name, c.type, c.replicas, c.checkpointed) for c in graph.components]


def test_both_versions_normalise_to_the_same_components() -> None:
    expected = [
        ("Frontend", "frontend", 1, False),
        ("VllmPrefillWorker", "prefill", 1, False),
        ("VllmDecodeWorker", "decode", 2, True),
    ]
    assert _summary("v1alpha1") == expected
    assert _summary("v1beta1") == expected


def test_graph_fields() -> None:
    graph = normalise(load(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml")[0])
    assert (graph.name, graph.namespace, graph.version) == (
        "llama-disagg",
        "dynamo-prod",
        "v1beta1",
    )
    assert graph.grove_enabled
    assert graph.labels == {"team": "inference"}
    assert graph.env == [{"name": "DYN_LOG", "value": "info"}]
    assert graph.dynamo_namespace(graph.components[0]) == "dynamo-prod-llama-disagg"
    alpha = normalise(load(EXAMPLES / "llama-disagg-v1alpha1" / "dgd.yaml")[0])
    assert not alpha.grove_enabled


def test_checkpoint_defaults_and_gms() -> None:
    text = v1beta1_dgd(
        decode_beta(
            extra="      multinode:\n        nodeCount: 4\n",
            experimental="        gpuMemoryService:\n          mode: InterPod\n",
        )
    )
    (component,) = normalise(dgd(text)).components
    assert component.checkpoint is not None
    assert (component.checkpoint.mode, component.checkpoint.startup_policy) == ("Auto", "Immediate")
    assert component.checkpoint.deletion_policy == "Delete"
    assert component.checkpoint.checkpoint_ref is None
    assert (component.node_count, component.gms_mode) == (4, "interPod")


def test_checkpoint_on_a_non_worker_is_not_checkpointed() -> None:
    from renderer.render import render

    text = v1beta1_dgd(decode_beta(component_type="frontend"))
    assert not normalise(dgd(text)).components[0].checkpointed
    result = render(dgd(text), [])
    assert BINDING_KEY not in str(result.objects)
    assert result.warnings == [
        "dgd.yaml:12:9: component 'VllmDecodeWorker': checkpoint is enabled but type 'frontend'"
        " is not worker, prefill or decode; the operator ignores it"
    ]


@pytest.mark.parametrize(
    ("extra", "experimental", "engines"),
    [
        ("", "", ["w"]),
        ("      multinode:\n        nodeCount: 3\n", "", ["w-ldr", "w-wkr"]),
        ("", "        gpuMemoryService:\n          mode: InterPod\n", ["w"]),
        (
            "      multinode:\n        nodeCount: 3\n",
            "        gpuMemoryService:\n          mode: InterPod\n",
            ["w-ldr", "w-wkr-1", "w-wkr-2"],
        ),
    ],
)
def test_engine_cliques(extra: str, experimental: str, engines: list[str]) -> None:
    from renderer.model.cliques import engine_cliques, expand_roles

    text = v1beta1_dgd(decode_beta(name="W", extra=extra, experimental=experimental))
    (component,) = normalise(dgd(text)).components
    assert engine_cliques(component) == engines
    gms = [r.name for r in expand_roles(component) if not r.engine]
    assert gms == ([f"w-gms-{i}" for i in range(component.node_count)] if experimental else [])


def test_v1alpha1_gms_needs_enabled() -> None:
    base = (
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\n"
        "  namespace: ns\nspec:\n  services:\n    W:\n      componentType: worker\n"
        "      gpuMemoryService:\n"
    )
    on = normalise(dgd(base + "        enabled: true\n        mode: interPod\n"))
    off = normalise(dgd(base + "        enabled: false\n        mode: interPod\n"))
    assert on.components[0].gms_mode == "interPod"
    assert off.components[0].gms_mode == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (v1beta1_dgd("    - name: A\n      replicas: two\n"), "replicas must be an integer"),
        (
            v1beta1_dgd("    - name: A\n      multinode:\n        nodeCount: 0\n"),
            "nodeCount must be >= 1",
        ),
        (v1beta1_dgd("    - type: frontend\n"), "has no name"),
        (v1beta1_dgd("    - name: a_b\n"), "not a valid Kubernetes name"),
        (
            v1beta1_dgd(
                "    - name: A\n      experimental:\n        gpuMemoryService:\n"
                "          mode: Sideways\n"
            ),
            "unknown GPU memory service mode",
        ),
        (
            v1beta1_dgd(
                "    - name: A\n      experimental:\n        checkpoint:\n          enabled: true\n"
                "          startupPolicy: Later\n"
            ),
            "unknown startup policy",
        ),
        (
            v1beta1_dgd(FRONTEND_BETA, extra_spec="  labels:\n    a: 1\n"),
            "spec.labels.a must be a string",
        ),
        (v1beta1_dgd(FRONTEND_BETA, name="Upper"), "not a valid Kubernetes name"),
        (
            v1beta1_dgd("    []\n").replace("  components:\n    []\n", "  components: []\n"),
            "no components",
        ),
    ],
)
def test_bad_dgd(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        normalise(dgd(text))
    assert info.value.line is not None  # always located


def test_fnv1a_32_reference_values() -> None:
    # Published FNV-1a 32-bit test vectors.
    assert fnv1a_32(b"") == 0x811C9DC5
    assert fnv1a_32(b"a") == 0xE40C292C
    assert fnv1a_32(b"foobar") == 0xBF9CF968
    assert name_suffix("foobar") == "f968"


def test_pcs_name_budget() -> None:
    short = [CliqueBudget("Worker", "", ("worker",))]
    assert pcs_name("llama", short) == "llama"
    exact = "x" * (45 - len("worker"))
    assert pcs_name(exact, short) == exact
    longer = exact + "y"
    assert pcs_name(longer, short) == longer[: 45 - 6 - 5] + "-" + name_suffix(longer)
    group = [CliqueBudget("Worker", "worker", ("worker-ldr", "worker-wkr"))]
    assert len(pcs_name("d" * 40, group)) == 45 - len("worker") - len("worker-ldr")


def test_pcs_name_over_budget_even_when_shortened() -> None:
    wide = [
        CliqueBudget(
            "VeryLongComponentName", "verylongcomponentname", ("verylongcomponentname-gms-0",)
        )
    ]
    with pytest.raises(UnsafeNameError, match="'VeryLongComponentName'"):
        pcs_name("llama", wide)


def test_dcd_name() -> None:
    assert dcd_name("llama", "VllmDecodeWorker", "5f8d2c1a") == "llama-vllmdecodeworker-5f8d2c1a"
    assert dcd_name("llama", "Frontend", "") == "llama-frontend"
