"""The operator's own table tests for the pod-spec functions, transcribed as data (1 of 2:
env, component context and defaults, pod-level fields, DGD metadata propagation).

Source: deploy/operator/internal/dynamo/graph_test.go and component_planner_test.go at the
pinned commit (ai-dynamo/dynamo 2a6da14c). The Go tests build v1alpha1 components and convert
them with their betaComponent helper; here the inputs are written directly in the v1beta1
shape that conversion yields (ExtraPodSpec.PodSpec -> podTemplate.spec, MainContainer and Envs
-> the main container, Labels/Annotations -> podTemplate.metadata), or, where the shape is not
obvious, converted by the emulated conversion (``beta_component``). Expected values are the
Go tests' own. The Go tests pass an empty OperatorConfiguration (no discovery backend) and a
secrets retriever that finds nothing; that is ``OperatorConfig(discovery_backend="")`` and
None here.
"""

from __future__ import annotations

from typing import Any

import pytest
from podspec_support import (
    base_pod_spec,
    context,
    env_map,
    field_ref,
    main_container,
    template,
)

from renderer.operator.component_common import (
    BaseComponentDefaults,
    DiscoveryContext,
)
from renderer.operator.component_frontend import FrontendDefaults
from renderer.operator.component_planner import PlannerDefaults
from renderer.operator.component_worker import WorkerDefaults
from renderer.operator.config import InfrastructureConfig, OperatorConfig
from renderer.operator.graph_env import (
    add_standard_env_vars,
    merge_envs,
    propagate_dgd_annotations,
    propagate_dgd_spec_metadata,
)
from renderer.operator.graph_podspec import generate_component_context
from renderer.operator.podspec_volumes import (
    append_missing_pvc_volumes_for_mounts,
)
from renderer.operator.v1beta1_helpers import get_pod_template_annotations, get_pod_template_labels

# --- Test_mergeEnvs ---------------------------------------------------------------------

FOO_BAR = {"name": "FOO", "value": "BAR"}


@pytest.mark.parametrize(
    ("common", "specific", "want"),
    [
        pytest.param([], [FOO_BAR], [FOO_BAR], id="no_common_envs"),
        pytest.param([FOO_BAR], [], [FOO_BAR], id="no_specific_envs"),
        pytest.param(
            [FOO_BAR],
            [{"name": "BAZ", "value": "QUX"}],
            [{"name": "BAZ", "value": "QUX"}, FOO_BAR],
            id="common_and_specific_envs",
        ),
        pytest.param(
            [FOO_BAR],
            [{"name": "FOO", "value": "QUX"}],
            [{"name": "FOO", "value": "QUX"}],
            id="common_and_specific_envs_with_same_name",
        ),
    ],
)
def test_merge_envs(common: list[Any], specific: list[Any], want: list[Any]) -> None:
    assert merge_envs(common, specific) == want


# --- TestAddStandardEnvVars_NATS --------------------------------------------------------


@pytest.mark.parametrize(
    "nats",
    [
        pytest.param("", id="default configuration omits NATS_SERVER"),
        pytest.param(
            "nats://dynamo-nats.dynamo-system.svc.cluster.local:4222",
            id="bundled NATS injects NATS_SERVER",
        ),
        pytest.param("nats://external-nats:4222", id="external NATS injects NATS_SERVER"),
    ],
)
def test_add_standard_env_vars_nats(nats: str) -> None:
    container: dict[str, Any] = {}
    config = OperatorConfig(infrastructure=InfrastructureConfig(nats_address=nats))
    add_standard_env_vars(container, config)
    env = env_map(container)
    if nats:
        assert env["NATS_SERVER"] == nats
    else:
        assert "NATS_SERVER" not in env


# --- TestAppendMissingPVCVolumesForMounts* ----------------------------------------------


def test_append_missing_pvc_volumes_adds_missing_pvcs() -> None:
    volumes = [
        {"name": "config", "configMap": {}},
        {"name": "cache", "persistentVolumeClaim": {"claimName": "cache-pvc"}},
    ]
    mounts = [
        {"name": "cache", "mountPath": "/cache"},
        {"name": "model-cache", "mountPath": "/models"},
    ]
    got = append_missing_pvc_volumes_for_mounts(volumes, mounts)
    assert [v["name"] for v in got] == ["cache", "model-cache", "config"]
    assert got[1]["persistentVolumeClaim"]["claimName"] == "model-cache"


def test_append_missing_pvc_volumes_keeps_repeated_mounts_unique() -> None:
    volumes = [{"name": "shared-model", "persistentVolumeClaim": {"claimName": "model-cache-pvc"}}]
    mounts = [
        {"name": "shared-model", "mountPath": "/model-store", "subPath": "models/glm"},
        {"name": "shared-model", "mountPath": "/cache/sglang", "subPath": "cache/sglang/glm"},
    ]
    got = append_missing_pvc_volumes_for_mounts(volumes, mounts)
    assert len(got) == 1
    assert got[0]["persistentVolumeClaim"]["claimName"] == "model-cache-pvc"


# --- TestGenerateComponentContext (+ _WorkerHashSuffix) ---------------------------------


@pytest.mark.parametrize(
    ("component", "dgd", "namespace", "nodes", "backend", "want_namespace"),
    [
        pytest.param(
            {"type": "planner"}, "my-deployment", "my-namespace", 1, "kubernetes",
            "my-namespace-my-deployment", id="namespace-scoped operator",
        ),
        pytest.param(
            {"type": "frontend"}, "vllm-disagg", "djangoz", 1, "kubernetes",
            "djangoz-vllm-disagg", id="deprecated dynamoNamespace field is ignored",
        ),
        pytest.param(
            {"type": "worker", "globalDynamoNamespace": True}, "shared-frontend", "production",
            2, "etcd", "dynamo", id="GlobalDynamoNamespace takes precedence",
        ),
        pytest.param(
            {"type": "planner"}, "test-dgd", "default", 1, "kubernetes", "default-test-dgd",
            id="nil dynamoNamespace field still computes correctly",
        ),
        pytest.param(
            {"type": "frontend"}, "llama-70b-prod", "ml-inference", 4, "etcd",
            "ml-inference-llama-70b-prod", id="different namespace and DGD name combinations",
        ),
    ],
)  # fmt: skip
def test_generate_component_context(  # noqa: PLR0917 - pytest parameters
    component: dict[str, Any],
    dgd: str,
    namespace: str,
    nodes: int,
    backend: str,
    want_namespace: str,
) -> None:
    ctx = generate_component_context(
        component, dgd, namespace, nodes, DiscoveryContext(backend, "pod")
    )
    assert ctx.dynamo_namespace == want_namespace
    assert ctx.component_type == component["type"]
    assert ctx.parent_graph_deployment_name == dgd
    assert ctx.parent_graph_deployment_namespace == namespace
    assert ctx.number_of_nodes == nodes
    assert ctx.discovery.backend == backend


@pytest.mark.parametrize(
    ("component_type", "labels", "want"),
    [
        ("worker", {"nvidia.com/dynamo-worker-hash": "abc123"}, "abc123"),
        ("worker", None, ""),
        ("worker", {"nvidia.com/dynamo-worker-hash": "legacy"}, "legacy"),
        ("frontend", {"nvidia.com/dynamo-worker-hash": "abc123"}, ""),
    ],
)
def test_generate_component_context_worker_hash_suffix(
    component_type: str, labels: dict[str, str] | None, want: str
) -> None:
    component: dict[str, Any] = {"type": component_type}
    if labels is not None:
        component["podTemplate"] = template(labels=labels)
    ctx = generate_component_context(
        component, "dgd", "ns", 1, DiscoveryContext("kubernetes", "pod")
    )
    assert ctx.worker_hash_suffix == want


def test_worker_defaults_worker_hash_suffix_env_var() -> None:
    with_suffix = WorkerDefaults().get_base_container(
        context(dynamo_namespace="ns-dgd", component_type="worker", worker_hash_suffix="abc123")
    )
    assert env_map(with_suffix)["DYN_NAMESPACE_WORKER_SUFFIX"] == "abc123"
    without = WorkerDefaults().get_base_container(
        context(dynamo_namespace="ns-dgd", component_type="worker")
    )
    assert "DYN_NAMESPACE_WORKER_SUFFIX" not in env_map(without)


def test_frontend_defaults_namespace_prefix_env_var() -> None:
    container = FrontendDefaults().get_base_container(
        context(dynamo_namespace="myns-mydgd", component_type="frontend")
    )
    assert env_map(container)["DYN_NAMESPACE_PREFIX"] == "myns-mydgd"


def test_container_name_only_in_container_discovery_mode() -> None:
    pod_mode = WorkerDefaults().get_base_container(
        context(dynamo_namespace="ns-dgd", component_type="worker",
                 discovery=DiscoveryContext("kubernetes", "pod"))
    )  # fmt: skip
    assert "CONTAINER_NAME" not in env_map(pod_mode)
    assert "DYN_KUBE_DISCOVERY_MODE" not in env_map(pod_mode)
    container_mode = WorkerDefaults().get_base_container(
        context(dynamo_namespace="ns-dgd", component_type="worker",
                 discovery=DiscoveryContext("kubernetes", "container"))
    )  # fmt: skip
    assert env_map(container_mode)["CONTAINER_NAME"] == "main"
    assert env_map(container_mode)["DYN_KUBE_DISCOVERY_MODE"] == "container"


# --- component_planner_test.go: TestPlannerDefaults_GetBaseContainer ---------------------


def test_planner_defaults_get_base_container() -> None:
    got = PlannerDefaults().get_base_container(
        context(number_of_nodes=1, parent_graph_deployment_name="name",
                 parent_graph_deployment_namespace="namespace",
                 dynamo_namespace="dynamo-namespace", component_type="planner")
    )  # fmt: skip
    assert got == {
        "name": "main",
        "command": ["/bin/sh", "-c"],
        "ports": [
            {"name": "metrics", "containerPort": 9085, "protocol": "TCP"},
            {"name": "system", "containerPort": 9090, "protocol": "TCP"},
        ],
        "livenessProbe": {
            "httpGet": {"path": "/live", "port": "system"},
            "periodSeconds": 5, "timeoutSeconds": 4, "failureThreshold": 1,
        },
        "readinessProbe": {
            "httpGet": {"path": "/health", "port": "system"},
            "periodSeconds": 10, "timeoutSeconds": 4, "failureThreshold": 3,
        },
        "startupProbe": {
            "httpGet": {"path": "/live", "port": "system"},
            "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 720,
        },
        "env": [
            {"name": "DYN_NAMESPACE", "value": "dynamo-namespace"},
            {"name": "DYN_COMPONENT", "value": "planner"},
            {"name": "DYN_PARENT_DGD_K8S_NAME", "value": "name"},
            {"name": "DYN_PARENT_DGD_K8S_NAMESPACE", "value": "namespace"},
            field_ref("POD_NAME", "metadata.name"),
            field_ref("POD_NAMESPACE", "metadata.namespace"),
            field_ref("POD_UID", "metadata.uid"),
            {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
            {"name": "PLANNER_PROMETHEUS_PORT", "value": "9085"},
            {"name": "DYN_SYSTEM_PORT", "value": "9090"},
        ],
    }  # fmt: skip


def test_base_component_defaults_pod_spec() -> None:
    assert BaseComponentDefaults().get_base_pod_spec(context()) == {
        "terminationGracePeriodSeconds": 60,
        "restartPolicy": "Always",
    }


# --- TestGenerateBasePodSpec_Frontend / _PlannerServiceAccount / _DiscoverBackend ----------


@pytest.mark.parametrize(
    ("main", "want_command", "want_args", "want_http_port"),
    [
        pytest.param(None, ["python3"], ["-m", "dynamo.frontend"], "8000", id="default command"),
        pytest.param(
            main_container(env=[{"name": "DYN_HTTP_PORT", "value": "3000"}]),
            ["python3"], ["-m", "dynamo.frontend"], "3000", id="overriding env var",
        ),
        pytest.param(
            main_container(
                command=["python3"], args=["-m", "dynamo.frontend", "--router-mode", "kv"]
            ),
            ["python3"], ["-m", "dynamo.frontend", "--router-mode", "kv"], "8000",
            id="materialized appended args",
        ),
    ],
)  # fmt: skip
def test_generate_base_pod_spec_frontend(
    main: dict[str, Any] | None, want_command: list[str], want_args: list[str], want_http_port: str
) -> None:
    component: dict[str, Any] = {"type": "frontend"}
    if main is not None:
        component["podTemplate"] = template({"containers": [main]})
    pod_spec = base_pod_spec(component, backend="vllm")
    container = pod_spec["containers"][0]
    assert container["command"] == want_command
    assert container["args"] == want_args
    assert env_map(container)["DYN_HTTP_PORT"] == want_http_port


@pytest.mark.parametrize(
    ("component_type", "want"), [("planner", "planner-serviceaccount"), ("worker", "")]
)
def test_generate_base_pod_spec_planner_service_account(component_type: str, want: str) -> None:
    pod_spec = base_pod_spec({"type": component_type}, backend="sglang")
    assert pod_spec.get("serviceAccountName", "") == want


@pytest.mark.parametrize(
    ("annotations", "config_backend", "want"),
    [
        pytest.param({"nvidia.com/dynamo-discovery-backend": "kubernetes"}, "", "kubernetes",
                     id="annotation kubernetes"),
        pytest.param({}, "kubernetes", "kubernetes", id="config kubernetes"),
        pytest.param({"nvidia.com/dynamo-discovery-backend": "etcd"}, "kubernetes", "",
                     id="annotation etcd"),
        pytest.param({}, "etcd", "", id="config etcd"),
        pytest.param({"nvidia.com/dynamo-discovery-backend": ""}, "", "kubernetes",
                     id="empty defaults to kubernetes"),
        pytest.param(None, "", "kubernetes", id="not set defaults to kubernetes"),
    ],
)  # fmt: skip
def test_generate_base_pod_spec_discover_backend(
    annotations: dict[str, str] | None, config_backend: str, want: str
) -> None:
    component: dict[str, Any] = {}
    if annotations is not None:
        component["podTemplate"] = template(annotations=annotations)
    pod_spec = base_pod_spec(component, "sglang", OperatorConfig(discovery_backend=config_backend))
    values = [
        e.get("value")
        for e in pod_spec["containers"][0]["env"]
        if e["name"] == "DYN_DISCOVERY_BACKEND"
    ]
    assert values == ([want] if want else [])


# --- TestGenerateBasePodSpec_DisableImagePullSecretDiscovery ------------------------------


_FOUND = [{"name": "test-docker-secret"}]


class _RetrieverWithSecrets:
    def get_secrets(self, namespace: str, registry: str) -> list[str]:
        return ["test-docker-secret"]


@pytest.mark.parametrize(
    ("annotation", "retriever", "want"),
    [
        pytest.param("true", _RetrieverWithSecrets(), None, id="disabled"),
        pytest.param("false", _RetrieverWithSecrets(), _FOUND, id="false"),
        pytest.param(None, _RetrieverWithSecrets(), _FOUND, id="not set"),
        pytest.param("invalid", _RetrieverWithSecrets(), _FOUND, id="invalid value"),
        pytest.param("false", None, None, id="no secrets retriever"),
    ],
)  # fmt: skip
def test_generate_base_pod_spec_disable_image_pull_secret_discovery(
    annotation: str | None, retriever: Any, want: list[Any] | None
) -> None:
    metadata = {}
    if annotation is not None:
        metadata["annotations"] = {"nvidia.com/disable-image-pull-secret-discovery": annotation}
    component = {
        "type": "frontend",
        "podTemplate": template(
            {"containers": [main_container(image="test-registry/test-image:latest")]}, **metadata
        ),
    }
    pod_spec = base_pod_spec(component, retriever=retriever)
    assert pod_spec.get("imagePullSecrets") == want


# --- TestGenerateBasePodSpec_SecurityContext ----------------------------------------------


@pytest.mark.parametrize(
    ("user", "want"),
    [
        pytest.param(None, {"fsGroup": 1000}, id="no security context: fsGroup default only"),
        pytest.param(
            {"runAsNonRoot": True, "runAsUser": 5000, "runAsGroup": 5000, "fsGroup": 5000},
            {"runAsNonRoot": True, "runAsUser": 5000, "runAsGroup": 5000, "fsGroup": 5000},
            id="full override",
        ),
        pytest.param({"runAsUser": 2000, "runAsGroup": 3000},
                     {"runAsUser": 2000, "runAsGroup": 3000},
                     id="partial override: user gets full control"),
        pytest.param({"fsGroup": 7000}, {"fsGroup": 7000}, id="only fsGroup override"),
        pytest.param({"fsGroup": 2000}, {"fsGroup": 2000}, id="fsGroup 2000"),
        pytest.param(
            {"runAsNonRoot": True, "runAsUser": 1000700001, "runAsGroup": 1000700001,
             "fsGroup": 1000700001},
            {"runAsNonRoot": True, "runAsUser": 1000700001, "runAsGroup": 1000700001,
             "fsGroup": 1000700001},
            id="OpenShift-style namespace range",
        ),
    ],
)  # fmt: skip
def test_generate_base_pod_spec_securitycontext(
    user: dict[str, Any] | None, want: dict[str, Any]
) -> None:
    component: dict[str, Any] = {"type": "frontend"}
    if user is not None:
        component["podTemplate"] = template({"securityContext": user})
    assert base_pod_spec(component)["securityContext"] == want


# --- TestPropagateDGDAnnotations / TestPropagateDGDSpecMetadata ---------------------------

_VLLM_EXEC = "nvidia.com/vllm-distributed-executor-backend"
_ORIGIN = "nvidia.com/dynamo-operator-origin-version"


@pytest.mark.parametrize(
    ("dgd", "service", "want"),
    [
        pytest.param({_VLLM_EXEC: "ray"}, None, {_VLLM_EXEC: "ray"}, id="propagates to empty"),
        pytest.param({_VLLM_EXEC: "ray"}, {_VLLM_EXEC: "mp"}, {_VLLM_EXEC: "mp"},
                     id="service-level annotation takes precedence"),
        pytest.param(None, None, None, id="nothing"),
        pytest.param({_ORIGIN: "1.0.0"}, None, {_ORIGIN: "1.0.0"}, id="origin version"),
        pytest.param({"some-other-annotation": "value"}, None, None, id="unrelated not propagated"),
    ],
)  # fmt: skip
def test_propagate_dgd_annotations(
    dgd: dict[str, str] | None, service: dict[str, str] | None, want: dict[str, str] | None
) -> None:
    component: dict[str, Any] = {}
    if service is not None:
        component["podTemplate"] = template(annotations=dict(service))
    propagate_dgd_annotations(dgd, component)
    annotations = get_pod_template_annotations(component)
    if want is None:
        assert not annotations
    else:
        for key, value in want.items():
            assert annotations is not None and annotations[key] == value


@pytest.mark.parametrize(
    ("dgd_annotations", "dgd_labels", "service_annotations", "service_labels", "want_a", "want_l"),
    [
        pytest.param(None, None, {"existing": "value"}, None, {"existing": "value"}, None,
                     id="nil metadata is a no-op"),
        pytest.param({"team/cost-center": "abc"}, {"env": "prod"}, None, None,
                     {"team/cost-center": "abc"}, {"env": "prod"}, id="propagate to empty"),
        pytest.param({"shared": "from-dgd", "dgd-only": "val"}, None, {"shared": "from-service"},
                     None, {"shared": "from-service", "dgd-only": "val"}, None,
                     id="service-level annotations take precedence"),
        pytest.param(None, {"shared": "from-dgd", "dgd-only": "val"}, None,
                     {"shared": "from-service"}, None,
                     {"shared": "from-service", "dgd-only": "val"},
                     id="service-level labels take precedence"),
    ],
)  # fmt: skip
def test_propagate_dgd_spec_metadata(  # noqa: PLR0917 - pytest parameters
    dgd_annotations: Any, dgd_labels: Any, service_annotations: Any, service_labels: Any,
    want_a: Any, want_l: Any,
) -> None:  # fmt: skip
    component: dict[str, Any] = {}
    metadata = {}
    if service_annotations is not None:
        metadata["annotations"] = dict(service_annotations)
    if service_labels is not None:
        metadata["labels"] = dict(service_labels)
    if metadata:
        component["podTemplate"] = template(**metadata)
    propagate_dgd_spec_metadata(dgd_annotations, dgd_labels, component)
    annotations = get_pod_template_annotations(component)
    labels = get_pod_template_labels(component)
    assert (annotations or None) == want_a
    assert (labels or None) == want_l
