"""Differential check of the Grove PodCliqueSet against the operator oracle.

Seeded random DGDs (component types, replicas, minAvailable, multinode, inter-pod GMS and
failover, forced scaling groups, labels/annotations, update strategy, discovery and
metrics annotations, vLLM executor backend, kv-transfer labelKey, modelRef, global
namespace, priority class, DGD env, long names; every third one a v1alpha1 DGD with
service types, subComponentTypes, service labels/annotations and extraPodMetadata) are
rendered by the oracle; its admitted DGD is the input here and its PodCliqueSet the
expected value. Needs ``../shared/operator-oracle/oracle`` (skipped without it); about
half a minute on a shared 2-core machine. ``$DYNAMO_OPERATOR_ORACLE`` names another
location; ``$GROVE_DIFFERENTIAL_CASES`` and ``$GROVE_DIFFERENTIAL_SEED`` widen a local run.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import diff_paths, load_yaml

from renderer.operator.config import OperatorConfig
from renderer.operator.graph_grove import generate_grove_pod_clique_set

JSON = dict[str, Any]
REPO = Path(__file__).resolve().parents[2]
#: ``$DYNAMO_OPERATOR_ORACLE`` overrides the location (as scripts/regen-oracle-goldens does).
ORACLE = Path(
    os.environ.get("DYNAMO_OPERATOR_ORACLE")
    or REPO.parent / "shared" / "operator-oracle" / "oracle"
)
SEED = int(os.environ.get("GROVE_DIFFERENTIAL_SEED", "20260821"))
CASES = int(os.environ.get("GROVE_DIFFERENTIAL_CASES", "30"))
NAMESPACE = "fz"

IMAGES = {
    "vllm": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
    "sglang": "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.5.0",
    "trtllm": "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.5.0",
}

pytestmark = pytest.mark.skipif(not ORACLE.exists(), reason=f"the oracle is absent ({ORACLE})")


def _component(rng: random.Random, index: int, backend: str) -> JSON:
    kind = rng.choice(["worker", "prefill", "decode", "frontend", "planner", None])
    component: JSON = {"name": rng.choice(["w", "Worker", "VllmWorker", "dec", "x-y"]) + str(index)}
    if kind:
        component["type"] = kind
    if rng.random() < 0.7:
        component["replicas"] = rng.randint(0, 3)
    if rng.random() < 0.3:
        component["minAvailable"] = rng.randint(1, 2)
    main: JSON = {"name": "main", "image": IMAGES[backend]}
    if kind in ("worker", "prefill", "decode"):
        main["command"] = ["python3", "-m", f"dynamo.{backend}"]
        main["args"] = ["--model", "Qwen/Qwen3-0.6B"]
        main["resources"] = {"limits": {"nvidia.com/gpu": str(rng.randint(1, 2))}}
        if rng.random() < 0.4:
            component["multinode"] = {"nodeCount": rng.randint(2, 3)}
        experimental: JSON = {}
        if backend == "vllm" and rng.random() < 0.3:
            experimental["gpuMemoryService"] = {"mode": "InterPod"}
            if rng.random() < 0.5:
                experimental["failover"] = {"mode": "InterPod", "numShadows": rng.randint(0, 2)}
        if rng.random() < 0.2:
            experimental["grove"] = {"forceScalingGroup": True}
        if experimental:
            component["experimental"] = experimental
    if rng.random() < 0.15:
        component["globalDynamoNamespace"] = True
    if rng.random() < 0.15:
        component["modelRef"] = {"name": "Qwen/Qwen3-0.6B"}
    template: JSON = {"spec": {"containers": [main]}}
    if rng.random() < 0.3:
        template["metadata"] = {"labels": {f"l{index}": "v"}, "annotations": {f"a{index}": "v"}}
    component["podTemplate"] = template
    return component


def _dgd(rng: random.Random, index: int) -> JSON:
    backend = rng.choice(sorted(IMAGES))
    frontend = {
        "name": "Frontend",
        "type": "frontend",
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGES[backend]}]}},
    }
    components = [frontend] + [_component(rng, i, backend) for i in range(rng.randint(1, 3))]
    name = f"fz{index}" + rng.choice(["", "-a-rather-long-name-to-hit-the-budget"])
    dgd: JSON = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"backendFramework": backend, "components": components},
    }
    if rng.random() < 0.3:
        dgd["spec"]["labels"] = {"sl": "x"}
    if rng.random() < 0.3:
        dgd["spec"]["annotations"] = {"sa": "x"}
    annotations: JSON = {}
    if rng.random() < 0.2:
        annotations["nvidia.com/grove-update-strategy"] = rng.choice(
            ["OnDelete", "RollingRecreate"]
        )
    if rng.random() < 0.15:
        annotations["nvidia.com/dynamo-discovery-backend"] = rng.choice(["etcd", "kubernetes"])
    if rng.random() < 0.15:
        annotations["nvidia.com/enable-metrics"] = rng.choice(["false", "true"])
    if backend == "vllm" and rng.random() < 0.2:
        annotations["nvidia.com/vllm-distributed-executor-backend"] = rng.choice(["mp", "ray"])
    if annotations:
        dgd["metadata"]["annotations"] = annotations
    if rng.random() < 0.15:
        dgd["spec"]["experimental"] = {
            "kvTransferPolicy": {"labelKey": "topology.kubernetes.io/zone", "domain": "zone"}
        }
    if rng.random() < 0.15:
        dgd["spec"]["priorityClassName"] = "high"
    if rng.random() < 0.2:
        dgd["spec"]["env"] = [{"name": "SHARED", "value": "1"}]
    return dgd


def _alpha_service(rng: random.Random, backend: str) -> JSON:
    kind = rng.choice(["worker", "frontend", "planner", "main", ""])
    service: JSON = {"componentType": kind} if kind else {}
    main: JSON = {"image": IMAGES[backend]}
    if kind == "worker":
        service["subComponentType"] = rng.choice(["prefill", "decode", "custom", ""])
        main["command"] = ["python3", "-m", f"dynamo.{backend}"]
        main["args"] = ["--model", "Qwen/Qwen3-0.6B"]
        service["resources"] = {"limits": {"gpu": str(rng.randint(1, 2))}}
        if rng.random() < 0.4:
            service["multinode"] = {"nodeCount": rng.randint(2, 3)}
    if rng.random() < 0.7:
        service["replicas"] = rng.randint(0, 2)
    if rng.random() < 0.4:
        service["labels"] = {"svc": "label", "shared": "service"}
    if rng.random() < 0.4:
        service["annotations"] = {"example.com/svc": "annotation"}
    if rng.random() < 0.3:
        service["extraPodMetadata"] = {"labels": {"pod": "label"}, "annotations": {"p": "a"}}
    if rng.random() < 0.2:
        service["envs"] = [{"name": "SERVICE_ENV", "value": "1"}]
    service["extraPodSpec"] = {"mainContainer": main}
    return service


def _alpha_dgd(rng: random.Random, index: int) -> JSON:
    backend = rng.choice(sorted(IMAGES))
    services: JSON = {
        "Frontend": {
            "componentType": "frontend",
            "extraPodSpec": {"mainContainer": {"image": IMAGES[backend]}},
        }
    }
    for i in range(rng.randint(1, 3)):
        services[rng.choice(["worker", "Decode", "pf"]) + str(i)] = _alpha_service(rng, backend)
    dgd: JSON = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": f"fza{index}", "namespace": NAMESPACE},
        "spec": {"backendFramework": backend, "services": services},
    }
    if rng.random() < 0.4:
        dgd["spec"]["labels"] = {"shared": "spec", "spec": "label"}
    if rng.random() < 0.3:
        dgd["spec"]["annotations"] = {"example.com/spec": "annotation"}
    return dgd


def _inputs() -> list[JSON]:
    rng = random.Random(SEED)
    return [(_alpha_dgd if i % 3 == 2 else _dgd)(rng, i) for i in range(CASES)]


@pytest.mark.parametrize("dgd", _inputs(), ids=lambda d: d["metadata"]["name"])
def test_pcs_equals_oracle_on_random_dgds(dgd: JSON, tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    source = tmp_path / "dgd.yaml"
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False  # the oracle looks for a block "metadata:" line
    with source.open("w", encoding="utf-8") as handle:
        yaml.dump(dgd, handle)
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(ORACLE), "render", str(source), "--namespace", NAMESPACE, "--out", str(out),
         "--emit-rendered-dgd"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    if proc.returncode == 3:
        pytest.skip(f"the operator refuses this DGD: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr
    admitted_text = "".join(
        line + "\n"
        for line in proc.stderr.splitlines()
        if not line.startswith(("warning:", "admission warning:"))
    )
    admitted_path = tmp_path / "admitted.yaml"
    admitted_path.write_text(admitted_text, encoding="utf-8")
    admitted = load_yaml(admitted_path)
    expected = load_yaml(out / "expected-pcs.yaml")
    worker_hash = (out / "worker-hash.txt").read_text(encoding="utf-8").strip()
    got = generate_grove_pod_clique_set(admitted, OperatorConfig.for_oracle(NAMESPACE), worker_hash)
    assert diff_paths(got, expected) == []
