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


# --- provideroverride (internal/provideroverride/registry_test.go) ----------------------

_SINGLE: dict[str, Any] = {}
_MULTI: dict[str, Any] = {"multinode": {"nodeCount": 2}}
_FORCED: dict[str, Any] = {"experimental": {"grove": {"forceScalingGroup": True}}}
_INTER_POD: dict[str, Any] = {
    "multinode": {"nodeCount": 2},
    "experimental": {"gpuMemoryService": {"mode": "InterPod"}},
}
GROVE_V = "grove.io/v1alpha1"
EXPECTED_TARGET_ROWS: list[tuple[str, str, str, str, dict[str, Any] | None, str, str]] = [
    ("root PodCliqueSet", "grove", GROVE_V, "root", None, "PodCliqueSet", ""),
    (
        "single-node component PodClique",
        "grove",
        GROVE_V,
        "component",
        _SINGLE,
        "PodCliqueTemplateSpec",
        "",
    ),
    (
        "multinode component scaling group",
        "grove",
        GROVE_V,
        "component",
        _MULTI,
        "PodCliqueScalingGroupConfig",
        "",
    ),
    (
        "forced component scaling group",
        "grove",
        GROVE_V,
        "component",
        _FORCED,
        "PodCliqueScalingGroupConfig",
        "",
    ),
    (
        "multinode leader PodClique",
        "grove",
        GROVE_V,
        "multinode.leader",
        _MULTI,
        "PodCliqueTemplateSpec",
        "",
    ),
    (
        "multinode worker PodClique",
        "grove",
        GROVE_V,
        "multinode.worker",
        _MULTI,
        "PodCliqueTemplateSpec",
        "",
    ),
    (
        "component provider unsupported",
        "component",
        GROVE_V,
        "root",
        None,
        "",
        "does not support provider overrides",
    ),
    (
        "version unsupported",
        "grove",
        "grove.io/v2",
        "root",
        None,
        "",
        "unsupported Grove apiVersion",
    ),
    (
        "role requires multinode",
        "grove",
        GROVE_V,
        "multinode.leader",
        _SINGLE,
        "",
        "requires a multinode component",
    ),
    (
        "GMS roles unsupported",
        "grove",
        GROVE_V,
        "multinode.worker",
        _INTER_POD,
        "",
        "not supported for inter-pod GMS",
    ),
]


@pytest.mark.parametrize("row", EXPECTED_TARGET_ROWS, ids=lambda r: r[0])
def test_expected_target(row: tuple[str, str, str, str, dict[str, Any] | None, str, str]) -> None:
    from renderer.operator.admission import provideroverride as po

    _, provider, version, scope, component, want, want_err = row
    if want_err:
        with pytest.raises(po.TargetError, match=want_err):
            po.expected_target(provider, version, scope, component)
    else:
        assert po.expected_target(provider, version, scope, component) == want


def test_default_target() -> None:
    from renderer.operator.admission import provideroverride as po

    override: dict[str, Any] = {"apiVersion": GROVE_V}
    po.default_target(override, "grove", "root", None)
    assert override["target"] == "PodCliqueSet"
    override["target"] = "explicit"
    po.default_target(override, "grove", "root", None)
    assert override["target"] == "explicit"


VALUE_ROWS: list[tuple[str, str, Any, list[str], bool]] = [
    (
        "root topology fragment preserves provider fields",
        "PodCliqueSet",
        {
            "spec": {
                "template": {
                    "topologyConstraint": {
                        "packDomain": "rack",
                        "futureProviderField": {"enabled": True},
                    }
                }
            }
        },
        [],
        False,
    ),
    (
        "embedded topology fragment",
        "PodCliqueTemplateSpec",
        {"topologyConstraint": {"topologyName": "cluster", "pack": {"required": "host"}}},
        [],
        False,
    ),
    (
        "scaling group topology fragment",
        "PodCliqueScalingGroupConfig",
        {"topologyConstraint": {"topologyName": "cluster", "pack": {"required": "rack"}}},
        [],
        False,
    ),
    (
        "root structural field is rejected",
        "PodCliqueSet",
        {
            "metadata": {"labels": {"unsafe": "true"}},
            "spec": {"template": {"topologyConstraint": {}}},
        },
        ["metadata"],
        True,
    ),
    (
        "template structural field is rejected",
        "PodCliqueTemplateSpec",
        {"replicas": 3, "topologyConstraint": {}},
        ["replicas"],
        True,
    ),
    ("topology fragment is required", "PodCliqueTemplateSpec", {}, ["topologyConstraint"], False),
    ("value must be an object", "PodCliqueTemplateSpec", [], ["must be a JSON object"], False),
    (
        "known provider field uses registered type",
        "PodCliqueTemplateSpec",
        {"topologyConstraint": {"pack": "rack"}},
        ["does not match the registered PodCliqueTemplateSpec schema"],
        False,
    ),
]


@pytest.mark.parametrize("row", VALUE_ROWS, ids=lambda r: r[0])
def test_validate_value(row: tuple[str, str, Any, list[str], bool]) -> None:
    from renderer.operator.admission import provideroverride as po

    _, target, value, want, ownership = row
    errs = po.validate_value(target, value)
    assert len(errs) == len(want)
    for err, text in zip(errs, want, strict=True):
        rendered = f"{err.path}: {err.detail}" if err.path else err.detail
        assert text in rendered
        assert err.ownership_violation == ownership


def test_writes_grove_topology() -> None:
    from renderer.operator.admission import provideroverride as po

    value = {"topologyConstraint": {"topologyName": "cluster", "pack": {"required": "rack"}}}
    assert po.writes_grove_topology("PodCliqueTemplateSpec", value)
    assert not po.writes_grove_topology("PodCliqueSet", value)


# --- shared component rules (internal/webhook/validation/shared_test.go) ---------------


def _shared(spec: dict[str, Any], path: Any, **options: Any) -> list[str]:
    from renderer.operator.admission.validation_shared import (
        INFERENCE_POOL_ABSENT,
        SharedValidation,
        validate_component_shared_spec,
    )

    source = options.pop("source", "v1beta1")
    v = SharedValidation(runtime_version_source=source, inference_pool_error=INFERENCE_POOL_ABSENT)
    errs = validate_component_shared_spec(
        v,
        spec,
        path,
        grove_pathway=options.get("grove_pathway", False),
        provider_overrides_supported=options.get("supported", False),
        workload_provider="",
    )
    return [str(e.field) for e in errs]


def _components0() -> Any:
    from renderer.operator.admission.fielderrors import new_path

    return new_path("spec", "components").index(0)


def test_shared_spec_field_paths() -> None:
    """TestValidateDynamoComponentDeploymentSharedSpecFieldPaths."""
    spec = {
        "name": "epp",
        "type": "epp",
        "runtimeVersionOverride": "1.1.0",
        "podTemplate": {
            "metadata": {
                "annotations": {"nvidia.com/vllm-distributed-executor-backend": "invalid"}
            },
            "spec": {
                "containers": [{"name": "main", "image": IMAGE_110}, {"name": "sidecar"}],
                "initContainers": [{"name": "init"}],
            },
        },
        "replicas": 2,
        "minAvailable": 1,
        "multinode": {"nodeCount": 2},
        "sharedMemorySize": "-1Gi",
        "eppConfig": {"configMapRef": {}},
        "frontendSidecar": "missing",
    }
    assert _shared(spec, _components0()) == [
        "spec.components[0].minAvailable",
        "spec.components[0].sharedMemorySize",
        "spec.components[0].type",
        "spec.components[0].multinode",
        "spec.components[0].replicas",
        "spec.components[0].eppConfig.configMapRef.name",
        "spec.components[0].frontendSidecar",
    ]


IMAGE_110 = "registry.example/runtime:1.1.0"


def test_provider_override_outside_dgd() -> None:
    """TestValidateProviderOverrideOutsideDGD."""
    from renderer.operator.admission.fielderrors import new_path

    spec = {
        "providerOverride": {
            "apiVersion": GROVE_V,
            "target": "PodCliqueTemplateSpec",
            "value": {"topologyConstraint": {}},
        }
    }
    assert _shared(spec, new_path("spec"), source="disabled") == ["spec.providerOverride"]


SIDECAR_ROWS: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "requires pod template",
        {"runtimeVersionOverride": "1.1.0", "frontendSidecar": "frontend"},
        ["spec.components[0].podTemplate.spec.containers"] * 2,
    ),
    (
        "rejects empty name",
        {
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE_110}]}},
            "frontendSidecar": "",
            "runtimeVersionOverride": "1.1.0",
        },
        ["spec.components[0].frontendSidecar"],
    ),
    (
        "accepts matching container",
        {
            "podTemplate": {
                "spec": {
                    "containers": [
                        {"name": "main", "image": IMAGE_110},
                        {"name": "frontend", "image": "frontend:latest"},
                    ]
                }
            },
            "frontendSidecar": "frontend",
            "runtimeVersionOverride": "1.1.0",
        },
        [],
    ),
]


@pytest.mark.parametrize("row", SIDECAR_ROWS, ids=lambda r: r[0])
def test_shared_spec_frontend_sidecar(row: tuple[str, dict[str, Any], list[str]]) -> None:
    """TestValidateDynamoComponentDeploymentSharedSpecFrontendSidecar."""
    _, spec, want = row
    assert _shared(spec, _components0(), grove_pathway=True) == want


def test_checkpoint_job_field_paths() -> None:
    """TestValidateComponentCheckpointJobConfigFieldPaths."""
    from renderer.operator.admission.fielderrors import new_path
    from renderer.operator.admission.validation_shared import checkpoint_job_errors

    path = new_path("spec", "components").index(0).child("experimental", "checkpoint", "job")
    job = {"gmsClientContainers": ["saver"]}
    want = ["spec.components[0].experimental.checkpoint.job.gmsClientContainers"]
    assert [str(e.field) for e in checkpoint_job_errors(job, path, None)] == want
    inter = {"mode": "InterPod"}
    assert [str(e.field) for e in checkpoint_job_errors(job, path, inter)] == want
    assert checkpoint_job_errors(job, path, {"mode": "IntraPod"}) == []
    assert checkpoint_job_errors({}, path, None) == []


def test_v1alpha1_frontend_sidecar_field_paths() -> None:
    """TestValidateDynamoComponentDeploymentSharedSpecV1alpha1FrontendSidecarFieldPaths."""
    from renderer.operator.admission.fielderrors import new_path
    from renderer.operator.admission.validation_shared import SharedValidation
    from renderer.operator.admission.validation_v1alpha1 import _validate_service

    path = new_path("spec", "services").key("frontend")
    sidecar = {
        "image": "frontend:latest",
        "envs": [{"name": "TOKEN", "value": "do-not-leak-this-value"}],
    }
    spec: dict[str, Any] = {
        "runtimeVersionOverride": "1.1.0",
        "frontendSidecar": sidecar,
        "extraPodSpec": {"mainContainer": {"image": IMAGE_110}},
    }
    v = SharedValidation()
    assert _validate_service(v, spec, path, "dynamo") == []
    spec["extraPodSpec"]["containers"] = [{"name": "sidecar-frontend"}]
    errs = _validate_service(v, spec, path, "dynamo")
    assert [str(e.field) for e in errs] == ["spec.services[frontend].frontendSidecar"]
    assert "do-not-leak-this-value" not in str(errs[0])


def test_experimental_spec_does_not_expose_pod_template() -> None:
    """TestValidateExperimentalSpecDoesNotExposePodTemplate."""
    from renderer.operator.admission.fielderrors import new_path
    from renderer.operator.admission.validation_shared import (
        SharedValidation,
        validate_experimental_spec,
    )

    gms = {
        "extraClientPods": [
            {
                "name": "client",
                "podTemplate": {
                    "spec": {
                        "containers": [
                            {
                                "name": "main",
                                "env": [{"name": "TOKEN", "value": "do-not-leak-this-value"}],
                            }
                        ]
                    }
                },
            }
        ]
    }
    path = new_path("spec", "components").index(0).child("experimental")
    errs = validate_experimental_spec(
        SharedValidation(), {"gpuMemoryService": gms}, path, {"type": "worker"}, True
    )
    assert [str(e.field) for e in errs] == ["spec.components[0].experimental.gpuMemoryService"]
    assert "do-not-leak-this-value" not in str(errs[0])


def test_v1alpha1_warnings_and_errors() -> None:
    """TestValidateDynamoComponentDeploymentSharedSpecV1alpha1WarningsAndErrors."""
    from renderer.operator.admission.fielderrors import new_path
    from renderer.operator.admission.validation_shared import SharedValidation
    from renderer.operator.admission.validation_v1alpha1 import _validate_service

    spec = {
        "dynamoNamespace": "legacy",
        "runtimeVersionOverride": "1.1.0",
        "extraPodSpec": {"mainContainer": {"image": IMAGE_110}},
        "annotations": {"nvidia.com/vllm-distributed-executor-backend": "invalid"},
        "autoscaling": {"enabled": True},
    }
    v = SharedValidation()
    errs = _validate_service(v, spec, new_path("spec", "services").key("worker"), "replacement")
    assert len(v.warnings) == 2
    assert "spec.services[worker].dynamoNamespace" in v.warnings[0]
    assert "spec.services[worker].autoscaling" in v.warnings[1]
    assert [str(e.field) for e in errs] == [
        "spec.services[worker].annotations[nvidia.com/vllm-distributed-executor-backend]"
    ]
