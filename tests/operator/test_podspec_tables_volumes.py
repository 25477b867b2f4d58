"""The operator's own table tests for the pod-spec functions, transcribed as data (2 of 2:
compilation cache, volume mounts, kv-transfer policy, GMS, whole worker pod, backends).

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

import copy
from typing import Any

import pytest
from podspec_support import (
    EMPTY_CONFIG,
    TOPOLOGY_LABEL_KEY,
    base_pod_spec,
    beta_component,
    env_map,
    field_ref,
    main_container,
    system_probe,
    template,
)

from renderer.operator.graph_podspec import (
    PodSpecError,
    generate_base_pod_spec,
    generate_pod_spec_for_component,
)
from renderer.operator.podspec_volumes import (
    apply_compilation_cache,
    apply_compilation_cache_volume,
)

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
        "podTemplate": template({"containers": [main_container(volumeMounts=[mount])]}),
    }
    if cache:
        component["compilationCache"] = {"pvcName": name, "mountPath": mount_point}
    if want_mount is None:
        with pytest.raises(PodSpecError, match=r"compilationCache\.mountPath is required"):
            base_pod_spec(component, backend=backend)
        return
    pod_spec = base_pod_spec(component, backend=backend)
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
    env = env_map(
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
    env = env_map(
        _for_component(_kv_dgd({"name": "worker", "type": "worker"}, policy))["containers"][0]
    )
    assert env["DYN_KV_TRANSFER_DOMAIN"] == "rack"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "preferred"
    assert env["DYN_KV_TRANSFER_PREFERRED_WEIGHT"] == "0.85"


def test_kv_transfer_policy_overrides_user_env() -> None:
    component = {
        "name": "worker",
        "type": "worker",
        "podTemplate": template({"containers": [main_container(env=[
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
    env = env_map(_for_component(_kv_dgd(component, _REQUIRED_ZONE, dgd_env))["containers"][0])
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
    env = env_map(_for_component(_kv_dgd(component, policy), backend)["containers"][0])
    for name in _KV_NAMES:
        assert name not in env


def test_kv_transfer_enforcement_defaults_to_required() -> None:
    policy = {"labelKey": TOPOLOGY_LABEL_KEY, "domain": "zone"}
    env = env_map(
        _for_component(_kv_dgd({"name": "worker", "type": "worker"}, policy))["containers"][0]
    )
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "required"


def test_worker_gets_topology_env_vars_and_volume() -> None:
    component = {
        "name": "worker",
        "type": "worker",
        "podTemplate": template({
            "volumes": [{"name": "topology-labels", "emptyDir": {}},
                        {"name": "keep-me", "emptyDir": {}}],
            "containers": [main_container(volumeMounts=[
                {"name": "topology-labels", "mountPath": "/tmp/wrong-topology"},
                {"name": "wrong-volume", "mountPath": "/etc/dynamo/topology"},
                {"name": "keep-me", "mountPath": "/mnt/keep-me"},
            ])],
        }),
    }  # fmt: skip
    pod_spec = _for_component(_kv_dgd(component, _REQUIRED_ZONE))
    env = env_map(pod_spec["containers"][0])
    assert env["DYN_TOPOLOGY_ENABLED"] == "true"
    assert env["DYN_TOPOLOGY_MOUNT_PATH"] == "/etc/dynamo/topology"
    assert "DYN_TOPOLOGY_DOMAIN" not in env
    assert any(v["name"] == "keep-me" for v in pod_spec["volumes"])
    topology = [v for v in pod_spec["volumes"] if v["name"] == "topology-labels"]
    assert len(topology) == 1
    assert topology[0]["downwardAPI"]["items"] == [
        {"path": "zone", "fieldRef": {"fieldPath": f"metadata.labels['{TOPOLOGY_LABEL_KEY}']"}}
    ]
    mounts = pod_spec["containers"][0]["volumeMounts"]
    assert any(m["name"] == "keep-me" for m in mounts)
    assert [m for m in mounts if m["name"] == "topology-labels"] == [
        {"name": "topology-labels", "mountPath": "/etc/dynamo/topology", "readOnly": True}
    ]
    assert all(m["name"] != "wrong-volume" for m in mounts)


@pytest.mark.parametrize(
    ("component", "policy", "backend"),
    [
        pytest.param({"name": "frontend", "type": "frontend"}, _REQUIRED_ZONE, "sglang",
                     id="frontend does NOT get topology env vars"),
        pytest.param({"name": "worker", "type": "worker"}, None, "vllm",
                     id="worker without policy has no topology"),
        pytest.param({"name": "worker", "type": "worker"}, {}, "vllm",
                     id="worker with experimental but without policy has no topology"),
        pytest.param({"name": "worker", "type": "worker"},
                     {"domain": "zone", "enforcement": "required"}, "vllm",
                     id="worker with empty label key has no topology"),
    ],
)  # fmt: skip
def test_no_topology(component: dict[str, Any], policy: Any, backend: str) -> None:
    pod_spec = _for_component(_kv_dgd(component, policy), backend)
    env = env_map(pod_spec["containers"][0])
    assert "DYN_TOPOLOGY_ENABLED" not in env
    assert "DYN_KV_TRANSFER_DOMAIN" not in env
    assert all(v["name"] != "topology-labels" for v in pod_spec.get("volumes") or [])
    mounts = pod_spec["containers"][0].get("volumeMounts") or []
    assert all(m["name"] != "topology-labels" for m in mounts)


# --- Tests whose v1alpha1 inputs go through the emulated conversion (betaComponent) --------


_PVC_DATA = {"name": "test-pvc", "mountPoint": "/data"}
_DATA_MOUNT = {"name": "test-pvc", "mountPath": "/data"}


def test_generate_base_pod_spec_worker_full() -> None:
    component = beta_component(
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
    pod_spec = base_pod_spec(component, backend="sglang")
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
                    field_ref("POD_NAME", "metadata.name"),
                    field_ref("POD_NAMESPACE", "metadata.namespace"),
                    field_ref("POD_UID", "metadata.uid"),
                ],
                "volumeMounts": [{"name": "shared-memory", "mountPath": "/dev/shm"}],
                "livenessProbe": system_probe(
                    "/live", periodSeconds=5, timeoutSeconds=4, failureThreshold=1
                ),
                "readinessProbe": system_probe(
                    "/health", periodSeconds=10, timeoutSeconds=4, failureThreshold=3
                ),
                "startupProbe": system_probe(
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
    component = beta_component(alpha)
    if want_pvcs is None:
        with pytest.raises(PodSpecError, match="volumeMount"):
            base_pod_spec(component, backend="vllm")
        return
    pod_spec = base_pod_spec(component, backend="vllm")
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
    component = beta_component({"componentType": "worker"})

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


# --- TestGenerateBasePodSpec_ConvertedCompilationCache* ------------------------------------


@pytest.mark.parametrize("deployment_type", ["grove", "lws"])
def test_converted_compilation_cache_mount_is_not_duplicated(deployment_type: str) -> None:
    component = beta_component(
        {
            "componentType": "frontend",
            "volumeMounts": [
                {"name": "model-cache", "mountPoint": "/models"},
                {"name": "compilation-cache", "mountPoint": "/home/dynamo/.cache/vllm",
                 "useAsCompilationCache": True},
            ],
        }
    )  # fmt: skip
    pod_spec = generate_base_pod_spec(
        component, "vllm", None, "test-deployment", "default", "main", 1, EMPTY_CONFIG,
        deployment_type, "test-service", None, None, lambda: 0,
    )  # fmt: skip
    cache_mounts = [
        m
        for m in pod_spec["containers"][0]["volumeMounts"]
        if m["mountPath"] == "/home/dynamo/.cache/vllm"
    ]
    assert cache_mounts == [{"name": "compilation-cache", "mountPath": "/home/dynamo/.cache/vllm"}]


def test_converted_compilation_cache_uses_default_mount() -> None:
    component = beta_component(
        {
            "componentType": "frontend",
            "volumeMounts": [
                {"name": "model-cache", "mountPoint": "/models"},
                {"name": "compilation-cache", "useAsCompilationCache": True},
            ],
        }
    )
    pod_spec = base_pod_spec(component, backend="vllm")
    assert {"name": "compilation-cache", "mountPath": "/root/.cache/vllm"} in pod_spec[
        "containers"
    ][0]["volumeMounts"]
