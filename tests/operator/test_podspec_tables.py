"""The operator's own table tests for the pod-spec functions, transcribed as data.

Source: deploy/operator/internal/dynamo/graph_test.go and component_planner_test.go at the
pinned commit (ai-dynamo/dynamo 2a6da14c). The Go tests build v1alpha1 components and convert
them with their betaComponent helper; here the inputs are written directly in the v1beta1
shape that conversion yields (ExtraPodSpec.PodSpec -> podTemplate.spec, MainContainer and Envs
-> the main container, Labels/Annotations -> podTemplate.metadata, a useAsCompilationCache
mount -> compilationCache plus the main container's mount). Expected values are the Go
tests' own. The Go tests pass an empty OperatorConfiguration (no discovery backend) and a
secrets retriever that finds nothing; that is ``OperatorConfig(discovery_backend="")`` and
None here.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer.operator.component_common import (
    BaseComponentDefaults,
    ComponentContext,
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
from renderer.operator.graph_podspec import (
    PodSpecError,
    generate_base_pod_spec,
    generate_component_context,
    generate_pod_spec_for_component,
)
from renderer.operator.podspec_volumes import (
    append_missing_pvc_volumes_for_mounts,
    apply_compilation_cache,
    apply_compilation_cache_volume,
)
from renderer.operator.v1beta1_helpers import get_pod_template_annotations, get_pod_template_labels

EMPTY_CONFIG = OperatorConfig(discovery_backend="")
TOPOLOGY_LABEL_KEY = "topology.kubernetes.io/zone"


def _env_map(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


def _base_pod_spec(
    component: dict[str, Any],
    backend: str = "noop",
    config: OperatorConfig = EMPTY_CONFIG,
    retriever: Any = None,
    service: str = "test-service",
) -> dict[str, Any]:
    return generate_base_pod_spec(
        component, backend, retriever, "test-deployment", "default", "main", 1, config,
        "grove", service, None, None, lambda: 0,
    )  # fmt: skip


def _template(spec: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"spec": spec or {}}
    if metadata:
        out["metadata"] = metadata
    return out


def _main(**fields: Any) -> dict[str, Any]:
    return {"name": "main", **fields}


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
    env = _env_map(container)
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
        component["podTemplate"] = _template(labels=labels)
    ctx = generate_component_context(
        component, "dgd", "ns", 1, DiscoveryContext("kubernetes", "pod")
    )
    assert ctx.worker_hash_suffix == want


def _context(**fields: Any) -> ComponentContext:
    values: dict[str, Any] = {
        "number_of_nodes": 0,
        "dynamo_namespace": "",
        "component_type": "",
        "parent_graph_deployment_name": "",
        "parent_graph_deployment_namespace": "",
        "discovery": DiscoveryContext("", ""),
    }
    values.update(fields)
    return ComponentContext(**values)


def test_worker_defaults_worker_hash_suffix_env_var() -> None:
    with_suffix = WorkerDefaults().get_base_container(
        _context(dynamo_namespace="ns-dgd", component_type="worker", worker_hash_suffix="abc123")
    )
    assert _env_map(with_suffix)["DYN_NAMESPACE_WORKER_SUFFIX"] == "abc123"
    without = WorkerDefaults().get_base_container(
        _context(dynamo_namespace="ns-dgd", component_type="worker")
    )
    assert "DYN_NAMESPACE_WORKER_SUFFIX" not in _env_map(without)


def test_frontend_defaults_namespace_prefix_env_var() -> None:
    container = FrontendDefaults().get_base_container(
        _context(dynamo_namespace="myns-mydgd", component_type="frontend")
    )
    assert _env_map(container)["DYN_NAMESPACE_PREFIX"] == "myns-mydgd"


def test_container_name_only_in_container_discovery_mode() -> None:
    pod_mode = WorkerDefaults().get_base_container(
        _context(dynamo_namespace="ns-dgd", component_type="worker",
                 discovery=DiscoveryContext("kubernetes", "pod"))
    )  # fmt: skip
    assert "CONTAINER_NAME" not in _env_map(pod_mode)
    assert "DYN_KUBE_DISCOVERY_MODE" not in _env_map(pod_mode)
    container_mode = WorkerDefaults().get_base_container(
        _context(dynamo_namespace="ns-dgd", component_type="worker",
                 discovery=DiscoveryContext("kubernetes", "container"))
    )  # fmt: skip
    assert _env_map(container_mode)["CONTAINER_NAME"] == "main"
    assert _env_map(container_mode)["DYN_KUBE_DISCOVERY_MODE"] == "container"


# --- component_planner_test.go: TestPlannerDefaults_GetBaseContainer ---------------------


def _field_ref(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def test_planner_defaults_get_base_container() -> None:
    got = PlannerDefaults().get_base_container(
        _context(number_of_nodes=1, parent_graph_deployment_name="name",
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
            _field_ref("POD_NAME", "metadata.name"),
            _field_ref("POD_NAMESPACE", "metadata.namespace"),
            _field_ref("POD_UID", "metadata.uid"),
            {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
            {"name": "PLANNER_PROMETHEUS_PORT", "value": "9085"},
            {"name": "DYN_SYSTEM_PORT", "value": "9090"},
        ],
    }  # fmt: skip


def test_base_component_defaults_pod_spec() -> None:
    assert BaseComponentDefaults().get_base_pod_spec(_context()) == {
        "terminationGracePeriodSeconds": 60,
        "restartPolicy": "Always",
    }


# --- TestGenerateBasePodSpec_Frontend / _PlannerServiceAccount / _DiscoverBackend ----------


@pytest.mark.parametrize(
    ("main", "want_command", "want_args", "want_http_port"),
    [
        pytest.param(None, ["python3"], ["-m", "dynamo.frontend"], "8000", id="default command"),
        pytest.param(
            _main(env=[{"name": "DYN_HTTP_PORT", "value": "3000"}]),
            ["python3"], ["-m", "dynamo.frontend"], "3000", id="overriding env var",
        ),
        pytest.param(
            _main(command=["python3"], args=["-m", "dynamo.frontend", "--router-mode", "kv"]),
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
        component["podTemplate"] = _template({"containers": [main]})
    pod_spec = _base_pod_spec(component, backend="vllm")
    container = pod_spec["containers"][0]
    assert container["command"] == want_command
    assert container["args"] == want_args
    assert _env_map(container)["DYN_HTTP_PORT"] == want_http_port


@pytest.mark.parametrize(
    ("component_type", "want"), [("planner", "planner-serviceaccount"), ("worker", "")]
)
def test_generate_base_pod_spec_planner_service_account(component_type: str, want: str) -> None:
    pod_spec = _base_pod_spec({"type": component_type}, backend="sglang")
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
        component["podTemplate"] = _template(annotations=annotations)
    pod_spec = _base_pod_spec(component, "sglang", OperatorConfig(discovery_backend=config_backend))
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
        "podTemplate": _template(
            {"containers": [_main(image="test-registry/test-image:latest")]}, **metadata
        ),
    }
    pod_spec = _base_pod_spec(component, retriever=retriever)
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
def test_generate_base_pod_spec_security_context(
    user: dict[str, Any] | None, want: dict[str, Any]
) -> None:
    component: dict[str, Any] = {"type": "frontend"}
    if user is not None:
        component["podTemplate"] = _template({"securityContext": user})
    assert _base_pod_spec(component)["securityContext"] == want


# --- TestGenerateBasePodSpec_UseAsCompilationCache_BackendSupport -------------------------


@pytest.mark.parametrize(
    ("mount_point", "cache", "backend", "want_mount"),
    [
        pytest.param("/custom/cache", True, "vllm", "/custom/cache", id="custom mount point"),
        pytest.param("", True, "vllm", "/root/.cache/vllm", id="default mount point for VLLM"),
        pytest.param("", True, "sglang", None, id="SGLang without mount point errors"),
        pytest.param("/custom/sglang/cache", True, "sglang", "/custom/sglang/cache",
                     id="SGLang explicit mount point"),
        pytest.param("", True, "trtllm", None, id="TensorRT-LLM without mount point errors"),
        pytest.param("/custom/trtllm/cache", True, "trtllm", "/custom/trtllm/cache",
                     id="TensorRT-LLM explicit mount point"),
        pytest.param("/data", False, "vllm", "", id="no compilation cache volumes"),
    ],
)  # fmt: skip
def test_compilation_cache_backend_support(
    mount_point: str, cache: bool, backend: str, want_mount: str | None
) -> None:
    name = "cache-pvc" if cache else "regular-pvc"
    mount: dict[str, Any] = {"name": name}
    if mount_point:
        mount["mountPath"] = mount_point
    component: dict[str, Any] = {
        "type": "frontend",
        "podTemplate": _template({"containers": [_main(volumeMounts=[mount])]}),
    }
    if cache:
        component["compilationCache"] = {"pvcName": name, "mountPath": mount_point}
    if want_mount is None:
        with pytest.raises(PodSpecError, match=r"compilationCache\.mountPath is required"):
            _base_pod_spec(component, backend=backend)
        return
    pod_spec = _base_pod_spec(component, backend=backend)
    if want_mount:
        assert {"name": name, "persistentVolumeClaim": {"claimName": name}} in pod_spec["volumes"]
        mounts = pod_spec["containers"][0]["volumeMounts"]
        assert any(m["name"] == name and m["mountPath"] == want_mount for m in mounts)


def test_apply_compilation_cache_repairs_legacy_mounts() -> None:
    container = {
        "volumeMounts": [
            {"name": "model-cache", "mountPath": "/models"},
            {"name": "compilation-cache"},
            {"name": "compilation-cache"},
        ]
    }
    component: dict[str, Any] = {"compilationCache": {"pvcName": "compilation-cache"}}
    apply_compilation_cache(container, component, "vllm")
    assert container["volumeMounts"] == [
        {"name": "model-cache", "mountPath": "/models"},
        {"name": "compilation-cache", "mountPath": "/root/.cache/vllm"},
    ]
    assert component["compilationCache"]["mountPath"] == "/root/.cache/vllm"


_PVC = {"name": "compilation-cache", "persistentVolumeClaim": {"claimName": "compilation-cache"}}


@pytest.mark.parametrize(
    ("volumes", "want", "error"),
    [
        pytest.param(None, [_PVC], "", id="missing volume is added"),
        pytest.param([_PVC], [_PVC], "", id="matching PVC volume is preserved"),
        pytest.param([{"name": "compilation-cache", "emptyDir": {}}], None,
                     'compilation cache volume "compilation-cache" must reference PVC'
                     ' "compilation-cache"', id="non-PVC volume is rejected"),
        pytest.param([{"name": "compilation-cache",
                       "persistentVolumeClaim": {"claimName": "other-pvc"}}],
                     None, 'compilation cache volume "compilation-cache" references PVC "other-pvc"'
                     ' instead of "compilation-cache"', id="different PVC is rejected"),
        pytest.param([{"name": "compilation-cache",
                       "persistentVolumeClaim": {"claimName": "compilation-cache",
                                                 "readOnly": True}}],
                     None, 'compilation cache PVC "compilation-cache" must be writable',
                     id="read-only PVC is rejected"),
        pytest.param([_PVC, _PVC], None,
                     'compilation cache volume "compilation-cache" is defined more than once',
                     id="duplicate matching PVC volumes are rejected"),
        pytest.param([_PVC, {"name": "compilation-cache", "emptyDir": {}}], None,
                     'compilation cache volume "compilation-cache" must reference PVC'
                     ' "compilation-cache"', id="conflicting duplicate volume is rejected"),
    ],
)  # fmt: skip
def test_apply_compilation_cache_volume(
    volumes: list[Any] | None, want: list[Any] | None, error: str
) -> None:
    pod_spec: dict[str, Any] = {"volumes": copy.deepcopy(volumes)}
    cache = {"pvcName": "compilation-cache"}
    if error:
        with pytest.raises(ValueError) as info:
            apply_compilation_cache_volume(pod_spec, cache)
        assert str(info.value) == error
        assert pod_spec["volumes"] == volumes
        return
    apply_compilation_cache_volume(pod_spec, cache)
    assert pod_spec["volumes"] == want


_CACHE_PATH = "/home/dynamo/.cache/vllm"


@pytest.mark.parametrize(
    ("mounts", "want", "error"),
    [
        pytest.param([{"name": "compilation-cache", "mountPath": _CACHE_PATH, "subPath": "model"}],
                     [{"name": "compilation-cache", "mountPath": _CACHE_PATH, "subPath": "model"}],
                     "", id="matching writable mount is preserved"),
        pytest.param([{"name": "other-volume", "mountPath": _CACHE_PATH}], None,
                     'compilationCache.mountPath "/home/dynamo/.cache/vllm" is already used by'
                     ' volume "other-volume"', id="different volume at mount path is rejected"),
        pytest.param([{"name": "compilation-cache", "mountPath": _CACHE_PATH, "readOnly": True}],
                     None, 'compilation cache volume "compilation-cache" at'
                     ' "/home/dynamo/.cache/vllm" must be writable',
                     id="read-only cache mount is rejected"),
        pytest.param([{"name": "compilation-cache", "mountPath": "/other-path"}],
                     [{"name": "compilation-cache", "mountPath": "/other-path"},
                      {"name": "compilation-cache", "mountPath": _CACHE_PATH}],
                     "", id="same volume at another path does not satisfy cache mount"),
    ],
)  # fmt: skip
def test_apply_compilation_cache_existing_mount(
    mounts: list[Any], want: list[Any] | None, error: str
) -> None:
    container: dict[str, Any] = {"volumeMounts": copy.deepcopy(mounts)}
    component = {"compilationCache": {"pvcName": "compilation-cache", "mountPath": _CACHE_PATH}}
    if error:
        with pytest.raises(ValueError) as info:
            apply_compilation_cache(container, component, "vllm")
        assert str(info.value) == error
        assert container["volumeMounts"] == mounts
        return
    apply_compilation_cache(container, component, "vllm")
    assert container["volumeMounts"] == want


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
        component["podTemplate"] = _template(annotations=dict(service))
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
        component["podTemplate"] = _template(**metadata)
    propagate_dgd_spec_metadata(dgd_annotations, dgd_labels, component)
    annotations = get_pod_template_annotations(component)
    labels = get_pod_template_labels(component)
    assert (annotations or None) == want_a
    assert (labels or None) == want_l


# --- TestGeneratePodSpecForComponent_KvTransferPolicyEnvVars / _WorkerTopologyEnvVars ----


def _kv_dgd(
    component: dict[str, Any], policy: dict[str, Any] | None, env: list[Any] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"backendFramework": "vllm", "components": [component]}
    if policy is not None:
        spec["experimental"] = {"kvTransferPolicy": policy} if policy else {}
    if env is not None:
        spec["env"] = env
    return {"metadata": {"name": "test-dgd", "namespace": "default"}, "spec": spec}


def _for_component(dgd: dict[str, Any], backend: str = "vllm") -> dict[str, Any]:
    component = dgd["spec"]["components"][0]
    return generate_pod_spec_for_component(
        copy.deepcopy(component), backend, None, dgd, "main", 1, EMPTY_CONFIG, "grove",
        component["name"], None, None, None, lambda: 0,
    )  # fmt: skip


_REQUIRED_ZONE = {"labelKey": TOPOLOGY_LABEL_KEY, "domain": "zone", "enforcement": "required"}
_KV_NAMES = (
    "DYN_KV_TRANSFER_DOMAIN",
    "DYN_KV_TRANSFER_ENFORCEMENT",
    "DYN_KV_TRANSFER_PREFERRED_WEIGHT",
)


def test_kv_transfer_required_policy() -> None:
    env = _env_map(
        _for_component(_kv_dgd({"name": "worker", "type": "worker"}, _REQUIRED_ZONE))["containers"][
            0
        ]
    )
    assert env["DYN_KV_TRANSFER_DOMAIN"] == "zone"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "required"
    assert "DYN_KV_TRANSFER_PREFERRED_WEIGHT" not in env


def test_kv_transfer_preferred_policy() -> None:
    policy = {"labelKey": "nvidia.com/rack", "domain": "rack", "enforcement": "preferred",
              "preferredWeight": 0.85}  # fmt: skip
    env = _env_map(
        _for_component(_kv_dgd({"name": "worker", "type": "worker"}, policy))["containers"][0]
    )
    assert env["DYN_KV_TRANSFER_DOMAIN"] == "rack"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "preferred"
    assert env["DYN_KV_TRANSFER_PREFERRED_WEIGHT"] == "0.85"


def test_kv_transfer_policy_overrides_user_env() -> None:
    component = {
        "name": "worker",
        "type": "worker",
        "podTemplate": _template({"containers": [_main(env=[
            {"name": "DYN_KV_TRANSFER_DOMAIN", "value": "wrong-domain"},
            {"name": "DYN_KV_TRANSFER_ENFORCEMENT", "value": "preferred"},
            {"name": "DYN_TOPOLOGY_MOUNT_PATH", "value": "/tmp/wrong-topology"},
            {"name": "USER_ENV", "value": "user"},
        ])]}),
    }  # fmt: skip
    dgd_env = [
        {"name": "DYN_KV_TRANSFER_PREFERRED_WEIGHT", "value": "1"},
        {"name": "DYN_TOPOLOGY_ENABLED", "value": "false"},
        {"name": "GLOBAL_ENV", "value": "global"},
    ]
    env = _env_map(_for_component(_kv_dgd(component, _REQUIRED_ZONE, dgd_env))["containers"][0])
    assert env["DYN_KV_TRANSFER_DOMAIN"] == "zone"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "required"
    assert "DYN_KV_TRANSFER_PREFERRED_WEIGHT" not in env
    assert env["DYN_TOPOLOGY_ENABLED"] == "true"
    assert env["DYN_TOPOLOGY_MOUNT_PATH"] == "/etc/dynamo/topology"
    assert env["GLOBAL_ENV"] == "global"
    assert env["USER_ENV"] == "user"


@pytest.mark.parametrize(
    ("component", "policy", "backend"),
    [
        pytest.param({"name": "frontend", "type": "frontend"}, _REQUIRED_ZONE, "sglang",
                     id="frontend"),
        pytest.param({"name": "worker", "type": "worker"}, None, "vllm",
                     id="worker without policy"),
        pytest.param({"name": "worker", "type": "worker"}, {}, "vllm",
                     id="worker with experimental but without policy"),
    ],
)  # fmt: skip
def test_kv_transfer_policy_absent(component: dict[str, Any], policy: Any, backend: str) -> None:
    env = _env_map(_for_component(_kv_dgd(component, policy), backend)["containers"][0])
    for name in _KV_NAMES:
        assert name not in env


def test_kv_transfer_enforcement_defaults_to_required() -> None:
    policy = {"labelKey": TOPOLOGY_LABEL_KEY, "domain": "zone"}
    env = _env_map(
        _for_component(_kv_dgd({"name": "worker", "type": "worker"}, policy))["containers"][0]
    )
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "required"


def test_worker_gets_topology_env_vars_and_volume() -> None:
    component = {
        "name": "worker",
        "type": "worker",
        "podTemplate": _template({
            "volumes": [{"name": "topology-labels", "emptyDir": {}},
                        {"name": "keep-me", "emptyDir": {}}],
            "containers": [_main(volumeMounts=[
                {"name": "topology-labels", "mountPath": "/tmp/wrong-topology"},
                {"name": "wrong-volume", "mountPath": "/etc/dynamo/topology"},
                {"name": "keep-me", "mountPath": "/mnt/keep-me"},
            ])],
        }),
    }  # fmt: skip
    pod_spec = _for_component(_kv_dgd(component, _REQUIRED_ZONE))
    env = _env_map(pod_spec["containers"][0])
    assert env["DYN_TOPOLOGY_ENABLED"] == "true"
    assert env["DYN_TOPOLOGY_MOUNT_PATH"] == "/etc/dynamo/topology"
    assert "DYN_TOPOLOGY_DOMAIN" not in env
    assert any(v["name"] == "keep-me" for v in pod_spec["volumes"])
    topology = [v for v in pod_spec["volumes"] if v["name"] == "topology-labels"]
    assert len(topology) == 1
    assert topology[0]["downwardAPI"]["items"] == [
        {"path": "zone", "fieldRef": {"fieldPath": f"metadata.labels['{TOPOLOGY_LABEL_KEY}']"}}
    ]


# --- TestGenerateBasePodSpec_GPUMemoryServiceRejectsMissingExtraClientContainers ----------


def test_gms_rejects_missing_extra_client_containers() -> None:
    component = {
        "type": "worker",
        "experimental": {
            "gpuMemoryService": {
                "enabled": True,
                "mode": "IntraPod",
                "extraClientContainers": ["missing-b", "missing-a"],
            }
        },
        "podTemplate": _template(
            {"containers": [_main(resources={"limits": {"nvidia.com/gpu": "1"}})]}
        ),
    }
    with pytest.raises(PodSpecError) as info:
        _base_pod_spec(component, backend="vllm", service="worker")
    message = info.value.message
    assert "gpuMemoryService.extraClientContainers" in message
    assert "missing-a" in message
    assert "missing-b" in message


# --- Tests whose v1alpha1 inputs go through the emulated conversion (betaComponent) --------


def _beta_component(alpha: dict[str, Any]) -> dict[str, Any]:
    """betaComponent (test_beta_helpers_test.go): ConvertTo plus the alpha metadata."""
    from renderer.operator.admission.conversion_spec import (
        convert_from_dynamo_component_deployment_shared_spec,
    )
    from renderer.operator.v1beta1_helpers import ensure_pod_template

    beta: dict[str, Any] = convert_from_dynamo_component_deployment_shared_spec(
        copy.deepcopy(alpha), None, False
    )
    annotations, labels = alpha.get("annotations") or {}, alpha.get("labels") or {}
    if annotations or labels:
        metadata = ensure_pod_template(beta)["metadata"]
        metadata["annotations"].update(annotations)
        metadata["labels"].update(labels)
    return beta


_PVC_DATA = {"name": "test-pvc", "mountPoint": "/data"}
_DATA_MOUNT = {"name": "test-pvc", "mountPath": "/data"}


def _system_probe(path: str, **timing: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": "system"}, **timing}


def test_generate_base_pod_spec_worker_full() -> None:
    component = _beta_component(
        {
            "envs": [{"name": "ANOTHER_COMPONENTENV", "value": "true"}],
            "componentType": "worker",
            "dynamoNamespace": "default-test-deployment",
            "extraPodSpec": {
                "mainContainer": {
                    "command": ["python3"],
                    "args": ["-m", "dynamo.worker"],
                    "env": [{"name": "ANOTHER_CONTAINER_ENV", "value": "true"}],
                }
            },
        }
    )
    pod_spec = _base_pod_spec(component, backend="sglang")
    assert pod_spec == {
        "containers": [
            {
                "name": "main",
                "command": ["python3"],
                "args": ["-m", "dynamo.worker"],
                "env": [
                    {"name": "ANOTHER_COMPONENTENV", "value": "true"},
                    {"name": "ANOTHER_CONTAINER_ENV", "value": "true"},
                    {"name": "DYN_COMPONENT", "value": "worker"},
                    {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
                    {"name": "DYN_FORWARDPASS_METRIC_PORT", "value": "20380"},
                    {"name": "DYN_HEALTH_CHECK_ENABLED", "value": "false"},
                    {"name": "DYN_NAMESPACE", "value": "default-test-deployment"},
                    {"name": "DYN_PARENT_DGD_K8S_NAME", "value": "test-deployment"},
                    {"name": "DYN_PARENT_DGD_K8S_NAMESPACE", "value": "default"},
                    {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
                    {"name": "DYN_SYSTEM_PORT", "value": "9090"},
                    {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": '["generate"]'},
                    {"name": "NIXL_TELEMETRY_ENABLE", "value": "n"},
                    {"name": "NIXL_TELEMETRY_EXPORTER", "value": "prometheus"},
                    {"name": "NIXL_TELEMETRY_PROMETHEUS_PORT", "value": "19090"},
                    _field_ref("POD_NAME", "metadata.name"),
                    _field_ref("POD_NAMESPACE", "metadata.namespace"),
                    _field_ref("POD_UID", "metadata.uid"),
                ],
                "volumeMounts": [{"name": "shared-memory", "mountPath": "/dev/shm"}],
                "livenessProbe": _system_probe(
                    "/live", periodSeconds=5, timeoutSeconds=4, failureThreshold=1
                ),
                "readinessProbe": _system_probe(
                    "/health", periodSeconds=10, timeoutSeconds=4, failureThreshold=3
                ),
                "startupProbe": _system_probe(
                    "/live", periodSeconds=10, timeoutSeconds=5, failureThreshold=720
                ),
                "ports": [
                    {"name": "system", "containerPort": 9090, "protocol": "TCP"},
                    {"name": "nixl", "containerPort": 19090, "protocol": "TCP"},
                ],
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 60,
        "securityContext": {"fsGroup": 1000},
        "volumes": [
            {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}
        ],
    }


@pytest.mark.parametrize(
    ("alpha", "want_pvcs", "want_mounts", "want_init"),
    [
        pytest.param(
            {"componentType": "frontend", "volumeMounts": [_PVC_DATA]},
            ["test-pvc"],
            [("test-pvc", "/data"), ("shared-memory", "/dev/shm")],
            None,
            id="valid volumeMounts",
        ),
        pytest.param(
            {
                "componentType": "frontend",
                "volumeMounts": [{"name": "test-pvc", "mountPoint": "/data"}],
                "extraPodSpec": {
                    "initContainers": [
                        {"name": "init", "volumeMounts": [_DATA_MOUNT]}
                    ],
                    "volumes": [{"name": "config", "configMap": {"name": "config"}}],
                    "mainContainer": {"volumeMounts": [{"name": "config", "mountPath": "/config"}]},
                },
            },
            ["test-pvc"],
            [("config", "/config"), ("test-pvc", "/data"), ("shared-memory", "/dev/shm")],
            [{"name": "test-pvc", "mountPath": "/data"}],
            id="volumeMounts compose with extra main container mounts",
        ),
        pytest.param(
            {
                "componentType": "frontend",
                "volumeMounts": [
                    {"name": "pvc1", "mountPoint": "/data1"},
                    {"name": "pvc2", "mountPoint": "/data2"},
                ],
            },
            ["pvc1", "pvc2"],
            [("pvc1", "/data1"), ("pvc2", "/data2"), ("shared-memory", "/dev/shm")],
            None,
            id="multiple volumeMounts",
        ),
        pytest.param(
            {"componentType": "frontend", "volumeMounts": [{"name": "", "mountPoint": "/data"}]},
            None, None, None, id="empty volumeMount name",
        ),
        pytest.param(
            {"componentType": "frontend", "volumeMounts": [{"name": "test-pvc", "mountPoint": ""}]},
            None, None, None, id="empty volumeMount mountPoint",
        ),
    ],
)  # fmt: skip
def test_generate_base_pod_spec_volume_mounts(
    alpha: dict[str, Any], want_pvcs: Any, want_mounts: Any, want_init: Any
) -> None:
    component = _beta_component(alpha)
    if want_pvcs is None:
        with pytest.raises(PodSpecError, match="volumeMount"):
            _base_pod_spec(component, backend="vllm")
        return
    pod_spec = _base_pod_spec(component, backend="vllm")
    for name in want_pvcs:
        assert {"name": name, "persistentVolumeClaim": {"claimName": name}} in pod_spec["volumes"]
    mounts = [(m["name"], m["mountPath"]) for m in pod_spec["containers"][0]["volumeMounts"]]
    for mount in want_mounts:
        assert mount in mounts
    if want_init is not None:
        assert pod_spec["initContainers"][0]["volumeMounts"] == want_init


# --- TestGeneratePodSpecForComponent_UnsupportedBackend -----------------------------------


@pytest.mark.parametrize(
    ("backend", "error"),
    [pytest.param("trtllm", "", id="TRTLLM backend implemented"),
     pytest.param("unknown", "unsupported backend framework", id="unknown backend")],
)  # fmt: skip
def test_generate_pod_spec_for_component_unsupported_backend(backend: str, error: str) -> None:
    dgd = {"metadata": {"name": "test-deployment", "namespace": "default"}, "spec": {}}
    component = _beta_component({"componentType": "worker"})

    def call() -> None:
        generate_pod_spec_for_component(
            component, backend, None, dgd, "main", 1, EMPTY_CONFIG, "grove", "worker",
            None, None, None, lambda: 0,
        )  # fmt: skip

    if error:
        with pytest.raises(PodSpecError, match=error):
            call()
    else:
        call()
