"""internal/dynamo/graph_test.go's DCD tests, transcribed as data.

Each test names the Go test it follows; the expected values are the Go test's assertions.
Where the Go test builds a v1alpha1 DGD and converts it (``betaDGD``), the DGD here is the
converted v1beta1 form.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from renderer.operator.dyn_deployment_config import (
    apply_dyn_deployment_config,
    update_dyn_deployment_config_bytes,
)
from renderer.operator.graph_dcd import (
    DCDGenerationError,
    RestartState,
    RollingUpdateContext,
    generate_dynamo_components_deployments,
    get_dcd_resource_name,
    get_pod_template_labels,
    is_worker_component,
    normalize_kube_resource_name,
)

JSON = dict[str, Any]
WORKER_HASH = "nvidia.com/dynamo-worker-hash"
NAMESPACE = "nvidia.com/dynamo-namespace"
COMPONENT_CLASS = "nvidia.com/dynamo-component-class"
DDC = "DYN_DEPLOYMENT_CONFIG"


def dgd(name: str, namespace: str, *components: JSON, **spec: Any) -> JSON:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {**spec, "components": list(components)},
    }


def comp(name: str, ctype: str = "", **fields: Any) -> JSON:
    out: JSON = {"name": name, **fields}
    if ctype:
        out["type"] = ctype
    return out


def test_is_worker_component() -> None:
    """TestIsWorkerComponent."""
    for ct in ("worker", "prefill", "decode"):
        assert is_worker_component(ct)
    for ct in ("frontend", "planner", "epp", "custom", ""):
        assert not is_worker_component(ct)


def test_rolling_update_context_in_progress() -> None:
    """TestRollingUpdateContext_InProgress."""
    assert not RollingUpdateContext().in_progress()
    assert not RollingUpdateContext(new_worker_hash="abc").in_progress()
    assert RollingUpdateContext(old_worker_replica_targets_by_component={"w": 1}).in_progress()


def test_get_dcd_resource_name() -> None:
    """TestGetDCDResourceName."""
    beta = dgd(
        "my-dgd",
        "",
        comp("prefill", "prefill"),
        comp("decode", "decode"),
        comp("worker", "worker"),
        comp("frontend", "frontend"),
    )
    assert get_dcd_resource_name(beta, "prefill", "abc12345") == "my-dgd-prefill-abc12345"
    assert get_dcd_resource_name(beta, "decode", "abc12345") == "my-dgd-decode-abc12345"
    assert get_dcd_resource_name(beta, "worker", "abc12345") == "my-dgd-worker-abc12345"
    assert get_dcd_resource_name(beta, "frontend", "abc12345") == "my-dgd-frontend"
    assert get_dcd_resource_name(beta, "prefill", "") == "my-dgd-prefill"


def test_normalize_kube_resource_name() -> None:
    """TestGenerateComponentIngressResources_NormalizeBackendServiceName's name."""
    assert normalize_kube_resource_name("model.Qwen3-0.6B") == "model-qwen3-0-6b"


def test_global_namespace() -> None:
    """Test_GetDynamoComponentDeploymentsGlobalNamespace."""
    parent = dgd(
        "test-dynamographdeployment",
        "default",
        comp("service1", "frontend", globalDynamoNamespace=True, replicas=3),
        comp("service2", "worker", replicas=3),
        backendFramework="sglang",
    )
    got = generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    assert len(got) == 2
    assert got["service1"]["metadata"]["labels"][NAMESPACE] == "dynamo"
    assert got["service2"]["metadata"]["labels"][NAMESPACE] == "default-test-dynamographdeployment"


@pytest.mark.parametrize(("replicas", "want"), [(None, 2), (3, 3)])
def test_uses_dyn_deployment_workers(replicas: int | None, want: int) -> None:
    """TestGenerateDynamoComponentsDeployments_UsesDynDeploymentWorkers."""
    component = comp("service1", "frontend")
    if replicas is not None:
        component["replicas"] = replicas
    parent = dgd(
        "test-dgd",
        "default",
        component,
        env=[{"name": DDC, "value": '{"service1":{"ServiceArgs":{"workers":2}}}'}],
    )
    dcds = generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    assert dcds["service1"]["spec"]["replicas"] == want


def test_rolling_update_context_names_and_replicas() -> None:
    """TestGenerateSingleDCD_RollingUpdateContext."""
    parent = dgd(
        "my-dgd",
        "ns",
        comp("frontend", "frontend", replicas=1),
        comp("prefill", "prefill", replicas=4),
    )
    ctx = RollingUpdateContext(
        new_worker_hash="aabb1122",
        old_worker_replica_targets_by_component={"prefill": 2},
        new_worker_replica_targets_by_component={"prefill": 2},
    )
    dcds = generate_dynamo_components_deployments(parent, RestartState(), None, ctx)
    prefill, frontend = dcds["prefill"], dcds["frontend"]
    assert prefill["metadata"]["name"] == "my-dgd-prefill-aabb1122"
    assert prefill["metadata"]["labels"][WORKER_HASH] == "aabb1122"
    assert prefill["spec"]["replicas"] == 2
    assert frontend["metadata"]["name"] == "my-dgd-frontend"
    assert WORKER_HASH not in frontend["metadata"]["labels"]
    assert frontend["spec"]["replicas"] == 1


def test_does_not_mutate_parent_dgd() -> None:
    """TestGenerateDynamoComponentsDeploymentsDoesNotMutateParentDGD."""
    parent = dgd(
        "my-dgd",
        "ns",
        comp(
            "prefill",
            "prefill",
            podTemplate={
                "metadata": {
                    "annotations": {"component-annotation": "value"},
                    "labels": {"component-label": "value"},
                },
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "env": [{"name": "COMPONENT_ENV", "value": "from-component"}],
                        }
                    ]
                },
            },
        ),
        annotations={"dgd-annotation": "value"},
        labels={"dgd-label": "value"},
        env=[{"name": "GLOBAL_ENV", "value": "from-dgd"}],
    )
    parent["metadata"]["annotations"] = {"nvidia.com/vllm-distributed-executor-backend": "ray"}
    original = copy.deepcopy(parent)
    dcds = generate_dynamo_components_deployments(
        parent,
        RestartState(),
        {"prefill": "2026-05-12T13:00:00Z"},
        RollingUpdateContext(
            new_worker_hash="aabb1122",
            old_worker_replica_targets_by_component={"prefill": 1},
            new_worker_replica_targets_by_component={"prefill": 2},
        ),
    )
    assert parent == original
    assert get_pod_template_labels(dcds["prefill"]["spec"])[WORKER_HASH] == "aabb1122"  # type: ignore[index]
    # The existing restart annotation is carried when no restart is in progress.
    annotations = dcds["prefill"]["spec"]["podTemplate"]["metadata"]["annotations"]
    assert annotations["nvidia.com/restartAt"] == "2026-05-12T13:00:00Z"


def test_adds_worker_class_for_epp() -> None:
    """TestGenerateDynamoComponentsDeploymentsAddsWorkerClassForEPP."""
    parent = dgd("my-dgd", "ns", comp("epp", "epp"), comp("prefill", "prefill"))
    dcds = generate_dynamo_components_deployments(
        parent, RestartState(), None, RollingUpdateContext(new_worker_hash="aabb1122")
    )
    prefill = dcds["prefill"]
    assert prefill["metadata"]["labels"][COMPONENT_CLASS] == "worker"
    assert get_pod_template_labels(prefill["spec"])[COMPONENT_CLASS] == "worker"  # type: ignore[index]
    # EPP pod templates opt out of the Istio sidecar (generateSingleDCD's comment).
    epp_annotations = dcds["epp"]["spec"]["podTemplate"]["metadata"]["annotations"]
    assert epp_annotations["sidecar.istio.io/inject"] == "false"


def test_infers_backend_framework_for_generated_dcds() -> None:
    """TestGenerateDynamoComponentsDeployments_InferBackendFrameworkForGeneratedDCDs."""
    decode = comp(
        "decode",
        "decode",
        replicas=1,
        podTemplate={
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "command": ["python3"],
                        "args": ["-m", "dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"],
                        "env": [{"name": "MY_NEW_ENV", "value": "enabled"}],
                    }
                ]
            }
        },
    )
    parent = dgd("my-dgd", "ns", comp("frontend", "frontend", replicas=1), decode)
    dcds = generate_dynamo_components_deployments(
        parent, RestartState(), None, RollingUpdateContext(new_worker_hash="2dad72b9")
    )
    assert dcds["decode"]["spec"]["backendFramework"] == "vllm"
    assert dcds["frontend"]["spec"]["backendFramework"] == "vllm"


def test_no_rolling_update() -> None:
    """TestGenerateSingleDCD_NoRollingUpdate."""
    parent = dgd("my-dgd", "ns", comp("worker", "worker", replicas=3))
    dcd = generate_dynamo_components_deployments(
        parent, RestartState(), None, RollingUpdateContext()
    )["worker"]
    assert dcd["metadata"]["name"] == "my-dgd-worker"
    assert not dcd["metadata"]["labels"].get(WORKER_HASH)
    assert dcd["spec"]["replicas"] == 3


def test_rolling_update_zero_replicas() -> None:
    """TestGenerateSingleDCD_RollingUpdateZeroReplicas."""
    parent = dgd("my-dgd", "ns", comp("decode", "decode", replicas=4))
    ctx = RollingUpdateContext(
        new_worker_hash="aabb1122",
        old_worker_replica_targets_by_component={"decode": 3},
        new_worker_replica_targets_by_component={"decode": 0},
    )
    dcd = generate_dynamo_components_deployments(parent, RestartState(), None, ctx)["decode"]
    assert dcd["metadata"]["name"] == "my-dgd-decode-aabb1122"
    assert dcd["spec"]["replicas"] == 0


def _topology_dgd(**kvt: Any) -> JSON:
    return dgd(
        "test-dgd",
        "default",
        comp("frontend", "frontend"),
        comp("worker", "worker"),
        backendFramework="vllm",
        experimental={"kvTransferPolicy": kvt},
    )


def test_adds_topology_label_annotation_to_workers() -> None:
    """TestGenerateDynamoComponentsDeployments_AddsTopologyLabelAnnotationToWorkers."""
    parent = _topology_dgd(labelKey="topology.kubernetes.io/zone", domain="zone")
    dcds = generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    worker = dcds["worker"]["metadata"].get("annotations") or {}
    frontend = dcds["frontend"]["metadata"].get("annotations") or {}
    assert worker["nvidia.com/topology-label-key"] == "topology.kubernetes.io/zone"
    assert "nvidia.com/topology-label-key" not in frontend


def test_adds_cluster_topology_annotation_to_workers() -> None:
    """TestGenerateDynamoComponentsDeployments_AddsClusterTopologyAnnotationToWorkers."""
    parent = _topology_dgd(clusterTopologyName="my-topology", domain="zone")
    dcds = generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    worker = dcds["worker"]["metadata"].get("annotations") or {}
    assert worker["nvidia.com/topology-cluster-topology-name"] == "my-topology"
    assert "nvidia.com/topology-label-key" not in worker


def test_skips_topology_label_annotation_without_label_key() -> None:
    """TestGenerateDynamoComponentsDeployments_SkipsTopologyLabelAnnotationWithoutLabelKey."""
    parent = _topology_dgd(domain="zone")
    dcds = generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    worker = dcds["worker"]["metadata"].get("annotations") or {}
    assert "nvidia.com/topology-label-key" not in worker


def test_update_dyn_deployment_config_rewrites_the_frontend_port() -> None:
    """Test_updateDynDeploymentConfig "main component": Go's sorted re-marshal, new port."""
    raw = '{"Frontend":{"port":8080},"Planner":{"environment":"kubernetes"}}'
    assert (
        update_dyn_deployment_config_bytes(raw, "Frontend", 8000)
        == '{"Frontend":{"port":8000},"Planner":{"environment":"kubernetes"}}'
    )


def _dcd_with_config(name: str, ctype: str, config: str, **spec: Any) -> JSON:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "backendFramework": "vllm",
            "name": name,
            "type": ctype,
            **spec,
            "podTemplate": {
                "spec": {"containers": [{"name": "main", "env": [{"name": DDC, "value": config}]}]}
            },
        },
    }


def test_falls_back_to_frontend_config_key_for_renamed_frontend() -> None:
    """TestApplyDynDeploymentConfig_FallsBackToFrontendConfigKeyForRenamedFrontend."""
    config = '{"Frontend":{"ServiceArgs":{"Resources":{"CPU":"2","Memory":"2Gi","GPU":"1"}}}}'
    dcd = _dcd_with_config("router", "frontend", config)
    apply_dyn_deployment_config(dcd, 8000)
    requests = dcd["spec"]["podTemplate"]["spec"]["containers"][0]["resources"]["requests"]
    assert requests == {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}


def test_override_subset_of_resources() -> None:
    """Test_overrideWithDynDeploymentConfig "override subset of resources" (unset replicas)."""
    config = (
        '{"Frontend":{"port":8080,"ServiceArgs":{"Workers":3, "Resources":{"GPU":"2"}}},'
        '"Planner":{"environment":"kubernetes"}}'
    )
    dcd = _dcd_with_config("Frontend", "frontend", config)
    main = dcd["spec"]["podTemplate"]["spec"]["containers"][0]
    main["resources"] = {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}}
    apply_dyn_deployment_config(dcd, 8000)
    assert dcd["spec"]["replicas"] == 3
    assert main["resources"] == {
        "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2"},
        "limits": {"nvidia.com/gpu": "2"},
    }
    # The frontend entry's port is rewritten to the Dynamo service port, keys sorted.
    assert json.loads(main["env"][0]["value"])["Frontend"]["port"] == 8000


def test_gms_extra_client_container_errors() -> None:
    """gmsExtraClientContainersError's message (sorted, Go %q lists), duplicates first."""
    parent = dgd(
        "d",
        "ns",
        comp(
            "w",
            "worker",
            experimental={"gpuMemoryService": {"extraClientContainers": ["b", "a", "b"]}},
            podTemplate={"spec": {"containers": [{"name": "main"}, {"name": "b"}]}},
        ),
        backendFramework="vllm",
    )
    with pytest.raises(DCDGenerationError) as err:
        generate_dynamo_components_deployments(parent, None, None, RollingUpdateContext())
    assert str(err.value) == (
        'component "w": gpuMemoryService.extraClientContainers contains duplicate names ["b"];'
        ' references missing pod containers ["a"]'
    )


def test_table_cases_keep_the_go_assertions() -> None:
    """TestGenerateDynamoComponentsDeployments's wanted names, labels and replicas, on the
    oracle-admitted forms of its DGDs (goldens/dcd/table-*)."""
    from oracle_corpus import OracleCase
    from test_dcd import DCD_CORPUS

    for case in ("table-basic", "table-extra-pod-spec", "table-metrics-annotations"):
        dgd = OracleCase(case, DCD_CORPUS / case).admitted_dgd()
        dcds = generate_dynamo_components_deployments(dgd, None, None, RollingUpdateContext())
        for name, dcd in dcds.items():
            assert dcd["metadata"]["name"] == f"test-dynamographdeployment-{name}"
            assert dcd["metadata"]["namespace"] == "default"
            labels = dcd["metadata"]["labels"]
            assert labels["nvidia.com/dynamo-component"] == name
            assert labels[NAMESPACE] == "default-test-dynamographdeployment"
            assert labels["nvidia.com/dynamo-graph-deployment-name"] == "test-dynamographdeployment"
            assert dcd["spec"]["replicas"] == 3
