"""Differential test of the backend layer: generated worker components, this tool vs the oracle.

Hypothesis (derandomized, bounded) builds DGDs whose worker components vary what the
backends read: framework, node count, GPU count (limits or requests), the command's shape
(``python3 -m``, an absolute interpreter, ``sh -c`` pipelines, args only), tensor /
pipeline / data parallel sizes, elastic EP with the Ray data-parallel backend, JSON and
shell-special args, the executor annotation, compilation caches and (vLLM) intra- and
inter-pod GPU Memory Service with and without failover. The oracle (the pinned operator) admits
and renders each; the admitted DGD it prints is rendered here and the PodCliqueSet must be
equal both ways, or both must refuse with the same message. Skipped without the oracle at
``../shared/operator-oracle/oracle`` (or $DYNAMO_OPERATOR_ORACLE).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from example_budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_corpus import diff_paths
from ruamel.yaml import YAML

from renderer.operator.config import OperatorConfig
from renderer.operator.graph_grove import GroveError, generate_grove_pod_clique_set

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(
    os.environ.get("DYNAMO_OPERATOR_ORACLE")
    or ROOT.parent / "shared" / "operator-oracle" / "oracle"
)
GROVE_PREFIX = "failed to reconcile Grove workloads: failed to generate the Grove GangSet: "
IMAGES = {
    "vllm": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
    "sglang": "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.5.0",
    "trtllm": "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.5.0",
}
pytestmark = pytest.mark.skipif(not ORACLE.exists(), reason="operator oracle not available")


@st.composite
def worker(draw: st.DrawFn, framework: str, name: str, kind: str) -> dict[str, Any]:
    """One worker component exercising the backend's inputs."""
    flags: list[str] = ["--model", "Qwen/Qwen3-0.6B"]
    for flag in ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"):
        size = draw(st.sampled_from([None, "1", "2", "4", "8", "16"]))
        if size is not None:
            flags += [flag, size]
    if framework == "vllm" and draw(st.booleans()):
        flags += [draw(st.sampled_from(["--data-parallel-backend", "-dpb"])), "ray"]
        flags.append("--enable-elastic-ep")
    if draw(st.booleans()):
        flags += ["--extra", draw(st.sampled_from(['{"a": "b c"}', "a$b", "it's", "x|y"]))]
    module = f"dynamo.{framework}"
    shape = draw(st.sampled_from(["python", "abs-python", "shell", "pipeline"]))
    if shape == "python":
        command, args = ["python3", "-m", module], flags
    elif shape == "abs-python":
        command, args = ["/usr/bin/python3.12"], ["-m", module, *flags]
    else:
        line = f"python3 -m {module} " + " ".join(
            f + (" " if f.startswith("-") else "") for f in flags
        ).replace("  ", " ")
        if shape == "pipeline":
            line = f"echo start && {line.strip()} | tee /tmp/log"
        command, args = ["sh", "-c"], [line.strip()]
    container: dict[str, Any] = {
        "name": "main",
        "image": IMAGES[framework],
        "command": command,
        "args": args,
    }
    gpus = draw(st.sampled_from([None, "1", "2", "4", "8"]))
    if gpus is not None:
        side = draw(st.sampled_from(["limits", "requests"]))
        container["resources"] = {side: {"nvidia.com/gpu": gpus}}
    component: dict[str, Any] = {
        "name": name,
        "type": kind,
        "podTemplate": {"spec": {"containers": [container]}},
    }
    nodes = draw(st.sampled_from([1, 2, 3]))
    if nodes > 1:
        component["multinode"] = {"nodeCount": nodes}
    if framework == "vllm":
        # GPU Memory Service layouts: intra-pod (failover clones the engine) and inter-pod.
        gms = draw(st.sampled_from([None, None, "IntraPod", "InterPod"]))
        if gms is not None:
            experimental: dict[str, Any] = {"gpuMemoryService": {"mode": gms}}
            if draw(st.booleans()):
                experimental["failover"] = {"mode": gms}
            component["experimental"] = experimental
            # GMS takes its GPUs from the main container's limits
            container["resources"] = {"limits": {"nvidia.com/gpu": gpus or "2"}}
    if draw(st.booleans()):
        cache: dict[str, Any] = {"pvcName": f"{name}-cache"}
        if framework != "vllm" or draw(st.booleans()):
            cache["mountPath"] = f"/cache/{name}"
        component["compilationCache"] = cache
    executor = draw(st.sampled_from([None, "mp", "ray", "Ray"]))
    if executor is not None:
        component["podTemplate"]["metadata"] = {
            "annotations": {"nvidia.com/vllm-distributed-executor-backend": executor}
        }
    return component


@st.composite
def dgds(draw: st.DrawFn) -> dict[str, Any]:
    """A DGD with a frontend and one or two workers of one framework."""
    framework = draw(st.sampled_from(sorted(IMAGES)))
    components = [
        {
            "name": "Frontend",
            "type": "frontend",
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGES[framework]}]}},
        },
        draw(worker(framework, "decode", "decode")),
    ]
    if draw(st.booleans()):
        components.append(draw(worker(framework, "prefill", "prefill")))
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {
            "name": "diff",
            "namespace": "dynamo",
            # failover needs container-mode discovery; harmless for the other cases
            "annotations": {"nvidia.com/dynamo-kube-discovery-mode": "container"},
        },
        "spec": {"backendFramework": framework, "components": components},
    }


def _oracle(dgd: dict[str, Any]) -> tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dgd.yaml"
        with path.open("w", encoding="utf-8") as handle:
            yaml = YAML(typ="safe", pure=True)
            yaml.default_flow_style = False  # the oracle adds the namespace to a block mapping
            yaml.dump(dgd, handle)
        proc = subprocess.run(
            [str(ORACLE), "render", str(path), "--namespace", "dynamo", "--emit-rendered-dgd"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    return proc.returncode, proc.stdout, proc.stderr


def _go_yaml_documents(text: str) -> list[Any]:
    """The oracle's YAML (go-yaml v2 via sigs.k8s.io/yaml), read as YAML 1.1 as it was
    written: a hash such as ``4e841146`` is left unquoted there and is a string in 1.1."""
    import yaml

    return list(yaml.safe_load_all(text))


def _admitted(stderr: str) -> Any:
    body = [
        line
        for line in stderr.splitlines(keepends=True)
        if not line.startswith(("warning:", "admission warning:", "refused:"))
    ]
    return _go_yaml_documents("".join(body))[0]


@settings(
    max_examples=examples(50),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(dgds())
def test_backends_equal_oracle(dgd: dict[str, Any]) -> None:
    status, stdout, stderr = _oracle(dgd)
    assert status in (0, 3), stderr
    refusal = next(
        (ln[len("refused: ") :] for ln in stderr.splitlines() if ln.startswith("refused: ")), ""
    )
    if status == 3 and not refusal.startswith(GROVE_PREFIX):
        return  # refused before rendering (admission): not this layer's concern
    admitted = _admitted(stderr)
    config = OperatorConfig.for_oracle("dynamo")
    if status == 3:
        with pytest.raises(GroveError) as info:
            generate_grove_pod_clique_set(admitted, config, None)
        assert str(info.value) == refusal.removeprefix(GROVE_PREFIX)
        return
    docs = _go_yaml_documents(stdout)
    worker_hash = stdout.splitlines()[0].removeprefix("# worker-hash: ").strip()
    expected = docs[0]
    assert expected is not None and expected["kind"] == "PodCliqueSet"
    actual = generate_grove_pod_clique_set(admitted, config, worker_hash)
    assert diff_paths(actual, expected) == []
