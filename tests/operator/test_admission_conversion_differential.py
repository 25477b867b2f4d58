"""Differential test of admit() against the oracle on generated DGD variations.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). Hypothesis generates v1alpha1 and v1beta1
DGDs from pools of the fields the conversion and the CRD defaults touch; for each, the
oracle's ``--emit-rendered-dgd`` output is the expected admitted DGD (exit 0), or a refusal
(exit 3) that admit() must answer with an AdmissionError too. Derandomized, bounded to
about 30 seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from example_budget import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from oracle_corpus import diff_paths
from ruamel.yaml import YAML

from renderer.operator.admission.errors import AdmissionError
from renderer.operator.admission.pipeline import admit
from renderer.operator.config import OperatorConfig

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(
    os.environ.get("DYNAMO_OPERATOR_ORACLE", ROOT.parent / "shared" / "operator-oracle" / "oracle")
)
NAMESPACE = "diff-ns"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0"

pytestmark = pytest.mark.skipif(
    not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"
)

names = st.sampled_from(["A", "B", "C"])
env_vars = st.lists(
    st.fixed_dictionaries({"name": names, "value": st.sampled_from(["1", "x", ""])}),
    max_size=3,
)
quantities = st.sampled_from(["1", "1000m", "0.5", "2Gi", "1024Mi", "100", "bogus"])
resource_items = st.fixed_dictionaries(
    {},
    optional={
        "cpu": quantities,
        "memory": quantities,
        "gpu": st.sampled_from(["1", "2"]),
        "gpuType": st.sampled_from(["nvidia.com/gpu", "amd.com/gpu"]),
        "custom": st.dictionaries(
            st.sampled_from(["example.com/x", "cpu"]), quantities, max_size=2
        ),
    },
)
resources = st.fixed_dictionaries(
    {}, optional={"requests": resource_items, "limits": resource_items}
)
ports = st.one_of(st.integers(min_value=1, max_value=65535), st.sampled_from(["http", "system"]))
probes = st.fixed_dictionaries(
    {},
    optional={
        "httpGet": st.fixed_dictionaries(
            {"port": ports},
            optional={"path": st.just("/h"), "scheme": st.just("HTTPS"), "host": st.just("")},
        ),
        "exec": st.fixed_dictionaries({}, optional={"command": st.just(["cat", "/r"])}),
        "tcpSocket": st.fixed_dictionaries({"port": ports}),
        "grpc": st.fixed_dictionaries({"port": st.integers(1, 9999)}),
        "periodSeconds": st.integers(min_value=0, max_value=10),
        "timeoutSeconds": st.integers(min_value=1, max_value=5),
        "failureThreshold": st.integers(min_value=0, max_value=5),
        "terminationGracePeriodSeconds": st.integers(min_value=0, max_value=5),
    },
)
volume_mounts = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["v1", "v2"]), "mountPoint": st.sampled_from(["/a", "/b"])},
        optional={"useAsCompilationCache": st.booleans()},
    ),
    max_size=3,
)
string_maps = st.dictionaries(st.sampled_from(["k1", "k2"]), st.sampled_from(["v", ""]), max_size=2)
main_containers = st.fixed_dictionaries(
    {"image": st.just(IMAGE)},
    optional={
        "name": st.sampled_from(["", "engine", "main"]),
        "command": st.just(["python3", "-m", "dynamo.vllm"]),
        "env": env_vars,
        "envFrom": st.just([{"configMapRef": {"name": "cfg"}}]),
        "resources": st.fixed_dictionaries(
            {}, optional={"limits": st.dictionaries(st.sampled_from(["cpu", "memory"]), quantities)}
        ),
        "livenessProbe": probes,
        "startupProbe": probes,
        "volumeMounts": st.lists(
            st.fixed_dictionaries({"name": st.just("v3"), "mountPath": st.just("/c")}), max_size=1
        ),
        "ports": st.just([{"containerPort": 8000, "name": "http"}]),
        "readinessProbe": probes,
        "securityContext": st.fixed_dictionaries(
            {}, optional={"runAsUser": st.integers(0, 9), "privileged": st.booleans()}
        ),
        "workingDir": st.just("/w"),
        "stdin": st.booleans(),
        "imagePullPolicy": st.just("Always"),
    },
)
extra_pod_specs = st.fixed_dictionaries(
    {"mainContainer": main_containers},
    optional={
        "serviceAccountName": st.just("sa"),
        "nodeSelector": string_maps,
        "terminationGracePeriodSeconds": st.integers(min_value=0, max_value=60),
        "containers": st.just([{"name": "helper", "image": "busybox:1.36"}]),
    },
)
services = st.fixed_dictionaries(
    {
        "componentType": st.sampled_from(["frontend", "worker", "planner"]),
        "extraPodSpec": extra_pod_specs,
    },
    optional={
        "subComponentType": st.sampled_from(["prefill", "decode", "custom"]),
        "serviceName": st.sampled_from(["legacy", "A"]),
        "dynamoNamespace": st.just("dn"),
        "replicas": st.integers(min_value=0, max_value=3),
        "labels": string_maps,
        "annotations": string_maps,
        "envs": env_vars,
        "envFromSecret": st.sampled_from(["", "sec"]),
        "resources": resources,
        "livenessProbe": probes,
        "readinessProbe": probes,
        "volumeMounts": volume_mounts,
        "sharedMemory": st.fixed_dictionaries(
            {}, optional={"disabled": st.booleans(), "size": st.sampled_from(["0", "8Gi"])}
        ),
        "extraPodMetadata": st.fixed_dictionaries(
            {}, optional={"labels": string_maps, "annotations": string_maps}
        ),
        "scalingAdapter": st.fixed_dictionaries({"enabled": st.booleans()}),
        # Enabled GMS is refused on most component types; keep it rare.
        "gpuMemoryService": st.sampled_from(
            [{"enabled": False}, {"enabled": False, "mode": "interPod"}, {"enabled": True}]
        ),
        "failover": st.just({"enabled": False}),
        "checkpoint": st.fixed_dictionaries(
            {"enabled": st.just(False)},
            optional={"identity": st.just({"model": "m", "backendFramework": "vllm"})},
        ),
        "frontendSidecar": st.fixed_dictionaries(
            {"image": st.just(IMAGE)},
            optional={"args": st.just(["--x"]), "envs": env_vars, "envFromSecret": st.just("s")},
        ),
        "multinode": st.fixed_dictionaries({}, optional={"nodeCount": st.integers(1, 3)}),
        "modelRef": st.just({"name": "m"}),
        "globalDynamoNamespace": st.booleans(),
        "minAvailable": st.integers(min_value=0, max_value=2),
        "ingress": st.just({"enabled": True, "host": "h"}),
    },
)
alpha_dgds = st.fixed_dictionaries(
    {
        "services": st.dictionaries(
            st.sampled_from(["Frontend", "Worker", "Planner"]), services, min_size=1, max_size=3
        )
    },
    optional={
        "envs": env_vars,
        "labels": string_maps,
        "priorityClassName": st.just("high"),
        "pvcs": st.just([{"name": "p", "create": False}]),
        "backendFramework": st.sampled_from(["vllm", "sglang"]),
        "annotations": string_maps,
        "restart": st.fixed_dictionaries(
            {"id": st.just("r")}, optional={"strategy": st.just({"type": "Parallel"})}
        ),
        "experimental": st.fixed_dictionaries(
            {}, optional={"kvTransferPolicy": st.just({"domain": "rack"})}
        ),
    },
).map(
    lambda spec: {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "diff"},
        "spec": spec,
    }
)
beta_containers = st.fixed_dictionaries(
    {"name": st.just("main"), "image": st.just(IMAGE)},
    optional={
        "ports": st.lists(
            st.fixed_dictionaries(
                {"containerPort": st.integers(1, 9000)},
                optional={"protocol": st.sampled_from(["TCP", "UDP"]), "name": st.just("p")},
            ),
            max_size=2,
        ),
        "env": st.lists(
            st.one_of(
                st.fixed_dictionaries({"name": names, "value": st.sampled_from(["1", ""])}),
                st.fixed_dictionaries(
                    {"name": names, "valueFrom": st.just({"secretKeyRef": {"key": "k"}})}
                ),
            ),
            max_size=2,
        ),
        "envFrom": st.just([{"secretRef": {}}]),
        "stdin": st.booleans(),
        "unknownField": st.just("dropped"),
        "resources": st.fixed_dictionaries(
            {},
            optional={
                "limits": st.dictionaries(
                    st.sampled_from(["cpu", "nvidia.com/gpu"]),
                    st.one_of(quantities.filter(lambda q: q != "bogus"), st.integers(0, 4)),
                )
            },
        ),
        "readinessProbe": st.just({"grpc": {"port": 9000}}),
        "command": st.one_of(st.none(), st.just([]), st.just(["python3"])),
    },
)
beta_components = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["Frontend", "Worker"]),
        "type": st.sampled_from(["frontend", "worker", "decode"]),
        "podTemplate": st.fixed_dictionaries(
            {
                "spec": st.fixed_dictionaries(
                    {"containers": st.lists(beta_containers, min_size=1, max_size=1)},
                    optional={
                        "volumes": st.just([{"name": "c", "configMap": {}}]),
                        "nodeSelector": st.one_of(st.none(), string_maps),
                        "terminationGracePeriodSeconds": st.one_of(st.none(), st.integers(0, 9)),
                    },
                )
            },
            optional={
                "metadata": st.fixed_dictionaries(
                    {}, optional={"labels": string_maps, "annotations": st.none()}
                )
            },
        ),
    },
    optional={
        "replicas": st.one_of(st.none(), st.integers(min_value=0, max_value=2)),
        "multinode": st.fixed_dictionaries({}, optional={"nodeCount": st.integers(1, 3)}),
        "sharedMemorySize": st.sampled_from(["0", "1Gi", "1024Mi"]),
        "scalingAdapter": st.just({}),
        "globalDynamoNamespace": st.booleans(),
        "compilationCache": st.just({"pvcName": "cc", "mountPath": "/cc"}),
    },
)
beta_dgds = st.lists(
    beta_components, min_size=1, max_size=2, unique_by=lambda c: str(c["name"])
).map(
    lambda comps: {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "diff"},
        "spec": {"components": comps},
    }
)


# A v1alpha1 DGD carrying a preserved hub remainder (as the operator's ConvertFrom writes
# it into nvidia.com/dgd-spec): pod-template metadata, sidecars, container order, a missing
# main container, volume-mount fields, the frontend-sidecar name, the grove block.
hub_containers = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["main", "helper", "sidecar-frontend", "extra"])},
        optional={
            "image": st.just("busybox:1.36"),
            "workingDir": st.just("/w"),
            "volumeMounts": st.just([{"name": "v1", "mountPath": "/a", "readOnly": True}]),
            "envFrom": st.just([{"secretRef": {"name": "s"}}]),
        },
    ),
    max_size=3,
    unique_by=lambda c: str(c["name"]),
)
hub_components = st.fixed_dictionaries(
    {"name": st.sampled_from(["Frontend", "Worker", "Planner", "Frontend", "Worker", "Gone"])},
    optional={
        "podTemplate": st.fixed_dictionaries(
            {},
            optional={
                "metadata": st.fixed_dictionaries(
                    {}, optional={"name": st.just("tpl"), "labels": string_maps}
                ),
                "spec": st.fixed_dictionaries({}, optional={"containers": hub_containers}),
            },
        ),
        "frontendSidecar": st.sampled_from(["sidecar-frontend", "extra"]),
        "experimental": st.sampled_from([{}, {"grove": {"forceScalingGroup": True}}]),
    },
)
hub_payloads = st.lists(hub_components, max_size=3, unique_by=lambda c: str(c["name"])).map(
    lambda comps: json.dumps({"version": 1, "spec": {"components": comps}})
)
hub_origin_dgds = st.tuples(alpha_dgds, hub_payloads).map(
    lambda pair: {
        **pair[0],
        "metadata": {"name": "diff", "annotations": {"nvidia.com/dgd-spec": pair[1]}},
    }
)


def _oracle(doc: dict[str, Any]) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dgd.yaml"
        yaml = YAML(typ="safe", pure=True)
        yaml.default_flow_style = False
        with path.open("w", encoding="utf-8") as handle:
            yaml.dump(doc, handle)
        proc = subprocess.run(
            [str(ORACLE), "render", str(path), "--namespace", NAMESPACE, "--emit-rendered-dgd"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    return proc.returncode, proc.stderr


ADMISSION_REFUSALS = (
    "refused: admission webhook denied the request: ",
    "refused: controller rejected the DGD: ",
    "refused: decode DGD: ",
)


def _check(doc: dict[str, Any]) -> None:
    code, stderr = _oracle(doc)
    config = OperatorConfig.for_oracle(NAMESPACE)
    lines = stderr.splitlines(keepends=True)
    if code == 3 and any(line.startswith(ADMISSION_REFUSALS) for line in lines):
        with pytest.raises(AdmissionError):
            admit(doc, namespace=NAMESPACE, config=config, allow_checkpoint_with_interpod_gms=False)
        return
    # Exit 0, or a refusal by the render stage after admission (the DGD is printed first).
    assert code in (0, 3), stderr
    text = "".join(
        line
        for line in lines
        if not line.startswith(("admission warning:", "warning:", "refused:"))
    )
    expected = YAML(typ="safe", pure=True).load(text)
    assert isinstance(expected, dict), stderr
    admitted = admit(
        doc, namespace=NAMESPACE, config=config, allow_checkpoint_with_interpod_gms=False
    )
    assert diff_paths(json.loads(json.dumps(admitted)), expected) == []


_SETTINGS = settings(
    derandomize=True,
    max_examples=examples(40),
    deadline=None,
    database=None,
    # Each example runs the oracle; shrinking a failure would take minutes, and the
    # failing example is reported as generated.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(alpha_dgds)
def test_alpha_variations_match_oracle(doc: dict[str, Any]) -> None:
    _check(doc)


@settings(_SETTINGS, max_examples=examples(15))
@given(beta_dgds)
def test_beta_variations_match_oracle(doc: dict[str, Any]) -> None:
    _check(doc)


@settings(_SETTINGS, max_examples=examples(25))
@given(hub_origin_dgds)
def test_hub_origin_variations_match_oracle(doc: dict[str, Any]) -> None:
    _check(doc)
