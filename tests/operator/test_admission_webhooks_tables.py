"""The operator's own table tests for the DGD webhooks, transcribed row for row as data.

Sources at the pinned commit (deploy/operator/...):

- internal/runtimeversion/runtimeversion_test.go (TestParse, TestParseImageVersion,
  TestResolve);
- internal/checkpoint/compatibility_test.go (TestValidateCheckpointCompatibility);
- internal/webhook/defaulting/dynamographdeployment_handler_test.go (the CREATE rows of the
  origin-version, replicas and minAvailable tables, and DefaultsProviderOverrideTargets);
- internal/webhook/validation/dynamographdeployment_unit_test.go
  (TestValidateElasticEPRequiresCommand: the field paths it expects).

Rows for UPDATE/DELETE or a missing admission request are left out: only CREATE is emulated.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.operator.config import FeatureGates, OperatorConfig

# --- runtimeversion -------------------------------------------------------------------

PARSE_ROWS = [
    ("1.2.3", (1, 2, 3)),
    ("1.2", None),
    ("18446744073709551616.0.0", None),
]
IMAGE_ROWS = [
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:v1.2.3-cuda13", (1, 2, 3)),
    ("registry.example/runtime:sha-123", None),
]
RESOLVE_ROWS = [
    ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "", (1, 5, 0)),
    ("nvcr.io/nvidia/ai-dynamo/runtime:1.5.0", "1.4.0", (1, 4, 0)),
    ("nvcr.io/nvidia/ai-dynamo/runtime:1.5.0", "invalid", None),
]


@pytest.mark.parametrize(("value", "want"), PARSE_ROWS)
def test_runtimeversion_parse(value: str, want: tuple[int, int, int] | None) -> None:
    from renderer.operator.admission.runtimeversion import VersionError, parse

    if want is None:
        with pytest.raises(VersionError):
            parse(value)
    else:
        assert parse(value) == want


@pytest.mark.parametrize(("image", "want"), IMAGE_ROWS)
def test_runtimeversion_parse_image_version(image: str, want: tuple[int, int, int] | None) -> None:
    from renderer.operator.admission.runtimeversion import VersionError, parse_image_version

    if want is None:
        with pytest.raises(VersionError):
            parse_image_version(image)
    else:
        assert parse_image_version(image) == want


@pytest.mark.parametrize(("image", "override", "want"), RESOLVE_ROWS)
def test_runtimeversion_resolve(
    image: str, override: str, want: tuple[int, int, int] | None
) -> None:
    from renderer.operator.admission.runtimeversion import VersionError, resolve

    if want is None:
        with pytest.raises(VersionError):
            resolve(image, override)
    else:
        assert resolve(image, override) == want


# --- checkpoint compatibility ---------------------------------------------------------

INTER_POD = "Snapshot with gpuMemoryService.mode=InterPod is unsupported"
FAILOVER = "Snapshot with active/passive failover is temporarily unsupported"
COMPATIBILITY_ROWS: list[tuple[str, dict[str, Any] | None, list[str]]] = [
    ("no experimental features", None, []),
    (
        "no checkpoint configuration",
        {"gpuMemoryService": {"mode": "InterPod"}, "failover": {}},
        [],
    ),
    (
        "disabled checkpoint ignores incompatible settings",
        {"checkpoint": {}, "gpuMemoryService": {"mode": "InterPod"}, "failover": {}},
        [],
    ),
    (
        "enabled checkpoint with intra-pod GMS",
        {"checkpoint": {"enabled": True}, "gpuMemoryService": {"mode": "IntraPod"}},
        [],
    ),
    (
        "enabled checkpoint with inter-pod GMS and failover",
        {"checkpoint": {"enabled": True}, "gpuMemoryService": {"mode": "InterPod"}, "failover": {}},
        [INTER_POD, FAILOVER],
    ),
]


@pytest.mark.parametrize(("name", "experimental", "want"), COMPATIBILITY_ROWS)
def test_checkpoint_compatibility(
    name: str, experimental: dict[str, Any] | None, want: list[str]
) -> None:
    from renderer.operator.admission.validation_shared import check_checkpoint_compatibility

    assert check_checkpoint_compatibility(experimental) == want, name


def test_checkpoint_compatibility_allowance_drops_only_inter_pod() -> None:
    from renderer.operator.admission.validation_shared import check_checkpoint_compatibility

    experimental = COMPATIBILITY_ROWS[-1][1]
    assert check_checkpoint_compatibility(experimental, True) == [FAILOVER]


# --- defaulting -----------------------------------------------------------------------

ORIGIN = "nvidia.com/dynamo-operator-origin-version"
PROVIDER = "nvidia.com/workload-provider"
ENABLE_GROVE = "nvidia.com/enable-grove"
TEST_VERSION = "0.9.0"


def _dgd(annotations: dict[str, str] | None, components: list[dict[str, Any]]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "test", "namespace": "default"}
    if annotations is not None:
        metadata["annotations"] = dict(annotations)
    return {"metadata": metadata, "spec": {"components": components}}


def _config(grove: bool = True) -> OperatorConfig:
    return OperatorConfig(gates=FeatureGates(grove=grove), operator_version=TEST_VERSION)


ORIGIN_ROWS = [
    ("CREATE stamps operator version on new DGD without annotations", None, TEST_VERSION),
    (
        "CREATE stamps operator version on DGD with existing annotations",
        {"some-other-annotation": "value"},
        TEST_VERSION,
    ),
    ("CREATE does not overwrite pre-existing origin version", {ORIGIN: "0.7.0"}, "0.7.0"),
]


@pytest.mark.parametrize(("name", "annotations", "want"), ORIGIN_ROWS)
def test_defaulting_origin_version(
    name: str, annotations: dict[str, str] | None, want: str
) -> None:
    from renderer.operator.admission.defaulting import default

    out = default(_dgd(annotations, []), _config())
    assert out["metadata"]["annotations"][ORIGIN] == want, name


REPLICA_ROWS: list[tuple[str, list[dict[str, Any]], dict[str, int]]] = [
    (
        "CREATE defaults nil replicas to 1",
        [{"name": "Frontend"}, {"name": "Worker"}],
        {"Frontend": 1, "Worker": 1},
    ),
    ("does not overwrite explicit replicas", [{"name": "Worker", "replicas": 3}], {"Worker": 3}),
    ("preserves explicit zero replicas", [{"name": "Worker", "replicas": 0}], {"Worker": 0}),
]


@pytest.mark.parametrize(("name", "components", "want"), REPLICA_ROWS)
def test_defaulting_replicas(
    name: str, components: list[dict[str, Any]], want: dict[str, int]
) -> None:
    from renderer.operator.admission.defaulting import default

    out = default(_dgd(None, components), _config())
    got = {c["name"]: c["replicas"] for c in out["spec"]["components"]}
    assert got == want, name


MIN_AVAILABLE_ROWS: list[
    tuple[str, bool, dict[str, str] | None, list[dict[str, Any]], dict[str, int | None], str]
] = [
    (
        "CREATE defaults nil replicas to minAvailable 1 on Grove pathway",
        True,
        None,
        [{"name": "Worker"}],
        {"Worker": 1},
        "grove",
    ),
    (
        "CREATE ignores a user-supplied provider and follows routing intent",
        True,
        {PROVIDER: "grove", ENABLE_GROVE: "false"},
        [{"name": "Worker", "replicas": 3}],
        {"Worker": None},
        "component",
    ),
    (
        "defaults zero replicas to minAvailable 1 on Grove pathway",
        True,
        None,
        [{"name": "Idle", "replicas": 0}],
        {"Idle": 1},
        "grove",
    ),
    (
        "preserves explicit minAvailable",
        True,
        None,
        [{"name": "Worker", "replicas": 3, "minAvailable": 2}],
        {"Worker": 2},
        "grove",
    ),
    (
        "CREATE preserves explicit zero minAvailable for validation",
        True,
        None,
        [{"name": "Worker", "replicas": 1, "minAvailable": 0}],
        {"Worker": 0},
        "grove",
    ),
    (
        "does not default minAvailable when operator disables Grove",
        False,
        None,
        [{"name": "Worker", "replicas": 3}],
        {"Worker": None},
        "component",
    ),
    (
        "does not default minAvailable when DGD opts out of Grove",
        True,
        {ENABLE_GROVE: "false"},
        [{"name": "Worker", "replicas": 3}],
        {"Worker": None},
        "component",
    ),
]


@pytest.mark.parametrize("row", MIN_AVAILABLE_ROWS, ids=lambda r: r[0])
def test_defaulting_min_available_and_provider(
    row: tuple[str, bool, dict[str, str] | None, list[dict[str, Any]], dict[str, int | None], str],
) -> None:
    from renderer.operator.admission.defaulting import default

    name, grove, annotations, components, want, provider = row
    out = default(_dgd(annotations, components), _config(grove))
    got = {c["name"]: c.get("minAvailable") for c in out["spec"]["components"]}
    assert got == want, name
    assert out["metadata"]["annotations"][PROVIDER] == provider, name


def test_defaulting_provider_override_targets() -> None:
    """TestDGDDefaulter_DefaultsProviderOverrideTargets."""
    from renderer.operator.admission.defaulting import default

    def override(value: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "grove.io/v1alpha1", "value": value}

    def topology(domain: str) -> dict[str, Any]:
        return {"topologyConstraint": {"topologyName": "cluster", "pack": {"required": domain}}}

    dgd = _dgd(
        None,
        [
            {"name": "frontend", "providerOverride": override(topology("host"))},
            {
                "name": "worker",
                "providerOverride": override(topology("rack")),
                "multinode": {
                    "nodeCount": 2,
                    "leader": {"providerOverride": override(topology("host"))},
                    "worker": {"providerOverride": override(topology("host"))},
                },
            },
        ],
    )
    dgd["spec"]["providerOverride"] = override({"spec": {"template": topology("rack")}})
    out = default(dgd, _config())
    spec = out["spec"]
    assert spec["providerOverride"]["target"] == "PodCliqueSet"
    assert spec["components"][0]["providerOverride"]["target"] == "PodCliqueTemplateSpec"
    assert spec["components"][1]["providerOverride"]["target"] == "PodCliqueScalingGroupConfig"
    multinode = spec["components"][1]["multinode"]
    assert multinode["leader"]["providerOverride"]["target"] == "PodCliqueTemplateSpec"
    assert multinode["worker"]["providerOverride"]["target"] == "PodCliqueTemplateSpec"


# --- elastic EP -----------------------------------------------------------------------

RAY_ARGS = ["--model", "test", "--data-parallel-backend", "ray", "--enable-elastic-ep"]
COMMAND_PATH = "spec.podTemplate.spec.containers[0].command"


def _elastic(command: list[str] | None, args: list[str] | None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main"}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    return {"podTemplate": {"spec": {"containers": [container]}}}


ELASTIC_ROWS: list[tuple[str, str, dict[str, Any], list[str]]] = [
    (
        "vllm elastic-EP ray with empty command is rejected",
        "vllm",
        _elastic(None, RAY_ARGS),
        [COMMAND_PATH],
    ),
    (
        "vllm elastic-EP with -dpb=ray alias and empty command is rejected",
        "vllm",
        _elastic(None, ["--model", "test", "-dpb=ray", "--enable-elastic-ep"]),
        [COMMAND_PATH],
    ),
    (
        "explicit command is accepted",
        "vllm",
        _elastic(["python3", "-m", "dynamo.vllm"], RAY_ARGS),
        [],
    ),
    (
        "elastic-EP flags carried in Command are accepted",
        "vllm",
        _elastic(
            [
                "python3",
                "-m",
                "dynamo.vllm",
                "--data-parallel-backend",
                "ray",
                "--enable-elastic-ep",
            ],
            None,
        ),
        [],
    ),
    ("non-vllm backend is not validated", "sglang", _elastic(None, RAY_ARGS), []),
    ("vllm without elastic-EP is accepted", "vllm", _elastic(None, ["--model", "test"]), []),
    (
        "vllm elastic-EP on a non-ray backend is accepted",
        "vllm",
        _elastic(None, ["--model", "test", "--data-parallel-backend", "mp", "--enable-elastic-ep"]),
        [],
    ),
    ("nil pod template is ignored", "vllm", {}, []),
]


@pytest.mark.parametrize(("name", "backend", "spec", "want"), ELASTIC_ROWS)
def test_elastic_ep_requires_command(
    name: str, backend: str, spec: dict[str, Any], want: list[str]
) -> None:
    from renderer.operator.admission.fielderrors import new_path
    from renderer.operator.admission.validation import _elastic_ep_errors

    got = [str(e.field) for e in _elastic_ep_errors(backend, spec, new_path("spec"))]
    assert got == want, name
