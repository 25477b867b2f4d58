"""Differential test of the DCDs and the worker hash against the oracle on generated DGDs.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). The DGD variations are the conversion
differential's generators (v1alpha1 and v1beta1, the fields conversion and defaulting
touch); for each DGD the oracle renders, the emulation starts from the admitted DGD the
oracle printed and must reproduce its worker hash and every DCD (the ``nvidia.com/dcd-spec``
v1alpha1 record included). A case the emulation declines names its field
(NotReproducedError) and is not compared. Derandomized or seeded, about a minute.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from example_budget import examples
from hypothesis import HealthCheck, given, settings
from oracle_corpus import diff_paths
from ruamel.yaml import YAML
from test_admission_conversion_differential import ORACLE, alpha_dgds, beta_dgds

from renderer.operator.errors import NotReproducedError
from renderer.operator.graph_dcd import (
    RollingUpdateContext,
    generate_dynamo_components_deployments,
    printed_dcds,
)
from renderer.operator.hash import compute_dgd_workers_spec_hash

pytestmark = pytest.mark.skipif(
    not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"
)
NAMESPACE = "diff-ns"
WARNING_PREFIXES = ("warning:", "admission warning:")


# The oracle writes YAML 1.1 (sigs.k8s.io/yaml): a hex hash such as 313e0843 is a string
# there (a 1.1 float needs a dot) but a float to a 1.2 reader, so such scalars are quoted
# before reading.
_HEX = re.compile(r"^(\s*(?:- )?[^:#]+: )([0-9a-f]*e[0-9a-f]*)$", re.MULTILINE)


def _yaml_text(text: str) -> str:
    return _HEX.sub(r'\1"\2"', text)


def _reader() -> YAML:
    return YAML(typ="safe", pure=True)


def _oracle(doc: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dgd.yaml"
        writer = YAML(typ="safe", pure=True)
        writer.default_flow_style = False
        with path.open("w", encoding="utf-8") as handle:
            writer.dump(doc, handle)
        return subprocess.run(
            [str(ORACLE), "render", str(path), "--namespace", NAMESPACE, "--emit-rendered-dgd"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )


def _check(doc: dict[str, Any]) -> str:
    """Compare one DGD; "compared", "refused" (by the oracle) or "declined" (by us)."""
    proc = _oracle(doc)
    if proc.returncode == 3:  # refused before rendering: the admission tests cover it
        return "refused"
    assert proc.returncode == 0, proc.stderr
    reader = _reader()
    admitted = reader.load(
        "".join(
            line for line in proc.stderr.splitlines(True) if not line.startswith(WARNING_PREFIXES)
        )
    )
    head, _, rest = proc.stdout.partition("\n---\n")
    want_hash = head.splitlines()[0].removeprefix("# worker-hash: ").strip()
    _pcs, _, dcd_text = rest.partition("\n---\n")
    expected = [d for d in reader.load_all(_yaml_text(dcd_text)) if d]
    try:
        got_hash = compute_dgd_workers_spec_hash(admitted)
        dcds = generate_dynamo_components_deployments(
            admitted, None, None, RollingUpdateContext(new_worker_hash=want_hash)
        )
    except NotReproducedError:
        return "declined"
    assert got_hash == want_hash
    assert diff_paths(printed_dcds(dcds), expected) == []
    return "compared"


_SETTINGS = settings(
    derandomize=True,
    max_examples=examples(60),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(alpha_dgds)
def test_alpha_variations_render_as_the_oracle(doc: dict[str, Any]) -> None:
    _check(doc)


@settings(_SETTINGS, max_examples=examples(25))
@given(beta_dgds)
def test_beta_variations_render_as_the_oracle(doc: dict[str, Any]) -> None:
    _check(doc)


# A broader seeded generator for v1beta1 DGDs: images with and without semver tags (the
# runtime version), env with HTML-escaped and non-ASCII values, quantities in several
# spellings, sidecars, volumes, probes, shared memory, modelRef, compilation cache,
# multinode, scaling adapters, DGD env/labels/annotations and propagated metadata
# annotations, DYN_DEPLOYMENT_CONFIG, kv-transfer policy, GMS and failover.
IMAGES = (
    "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
    "img:1.4.0",
    "img:v1.6.0-rc1",
    "reg:5000/img:2.0.0@sha256:abc",
)


def _container(rnd: random.Random) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "main", "image": rnd.choice(IMAGES)}
    if rnd.random() < 0.6:
        c["command"] = [
            "python3",
            "-m",
            rnd.choice(["dynamo.vllm", "dynamo.vllm", "dynamo.sglang"]),
        ]
    if rnd.random() < 0.5:
        c["args"] = ["--model", "Qwen/Qwen3-0.6B"]
    if rnd.random() < 0.5:
        c["env"] = [
            {"name": rnd.choice("BAC"), "value": rnd.choice(["1", "<&>", "\u2028x", "é"])}
            for _ in range(rnd.randint(1, 3))
        ]
    if rnd.random() < 0.5:
        limits = {"nvidia.com/gpu": rnd.choice(["1", "2"])}
        if rnd.random() < 0.5:
            limits["cpu"] = rnd.choice(["1500m", "2", "0.5"])
        c["resources"] = {"limits": limits}
        if rnd.random() < 0.4:
            c["resources"]["requests"] = {"memory": rnd.choice(["1Gi", "1024Mi", "1e9"])}
    if rnd.random() < 0.3:
        c["volumeMounts"] = [{"name": "data", "mountPath": "/data", "readOnly": rnd.random() < 0.5}]
    if rnd.random() < 0.2:
        c["livenessProbe"] = {"httpGet": {"path": "/l", "port": rnd.choice([8000, "http"])}}
    return c


def _component(rnd: random.Random, name: str, ctype: str) -> dict[str, Any]:
    worker = ctype in ("worker", "prefill", "decode")
    template: dict[str, Any] = {"spec": {"containers": [_container(rnd)]}}
    if rnd.random() < 0.3:
        template["metadata"] = {"labels": {"l": rnd.choice("ab")}}
    if rnd.random() < 0.3:
        template["spec"]["containers"].append({"name": "side", "image": "busybox:1.36"})
    if rnd.random() < 0.2:
        template["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
    c: dict[str, Any] = {"name": name, "podTemplate": template}
    if ctype:
        c["type"] = ctype
    options: list[tuple[float, str, Any]] = [
        (0.5, "replicas", rnd.randint(0, 3)),
        (0.2, "globalDynamoNamespace", True),
        (0.2, "sharedMemorySize", rnd.choice(["0", "1Gi", "512Mi"])),
        (0.2, "modelRef", {"name": "Qwen/Qwen3-0.6B"}),
        (0.15, "runtimeVersionOverride", rnd.choice(["1.5.0", "1.5.2", "1.4.1"])),
        (0.1, "scalingAdapter", {}),
    ]
    if worker:
        options += [
            (0.15, "compilationCache", {"pvcName": "cache", "mountPath": "/cache"}),
            (0.1, "multinode", {"nodeCount": 2}),
            (
                0.15,
                "experimental",
                {"gpuMemoryService": {"mode": rnd.choice(["IntraPod", "InterPod"])}},
            ),
            (0.1, "experimental", {"failover": {"mode": "IntraPod"}}),
        ]
    for chance, key, value in options:
        if rnd.random() < chance:
            c[key] = value
    return c


def _broad_dgd(rnd: random.Random) -> dict[str, Any]:
    components = [_component(rnd, "Frontend", "frontend")]
    for name in rnd.sample(["w", "pre", "dec", "plan", "x.y"], rnd.randint(1, 3)):
        components.append(
            _component(rnd, name, rnd.choice(["worker", "prefill", "decode", "planner", ""]))
        )
    metadata: dict[str, Any] = {"name": rnd.choice(["d", "d.x", "a-b"]), "namespace": "ns"}
    if rnd.random() < 0.5:
        metadata["annotations"] = {
            "nvidia.com/vllm-distributed-executor-backend": rnd.choice(["mp", "ray"]),
            "other": "x",
        }
    spec: dict[str, Any] = {"components": components}
    if rnd.random() < 0.6:
        spec["backendFramework"] = rnd.choice(["vllm", "sglang", "trtllm"])
    if rnd.random() < 0.4:
        spec["env"] = [{"name": rnd.choice(["A", "Z"]), "value": "d"}]
    if rnd.random() < 0.3:
        spec["labels"] = {"team": "t"}
    if rnd.random() < 0.3:
        spec["annotations"] = {"owner": "o"}
    if rnd.random() < 0.15:
        config = {"Frontend": {"port": 1, "ServiceArgs": {"workers": 2, "resources": {"cpu": "2"}}}}
        spec.setdefault("env", []).append(
            {"name": "DYN_DEPLOYMENT_CONFIG", "value": json.dumps(config)}
        )
    if rnd.random() < 0.4:
        policy: dict[str, Any] = {"domain": rnd.choice(["zone", "rack"])}
        if rnd.random() < 0.7:
            policy["labelKey"] = "topology.kubernetes.io/zone"
        if rnd.random() < 0.4:
            policy["preferredWeight"] = rnd.choice([0.5, 1, 0.3333])
        spec["experimental"] = {"kvTransferPolicy": policy}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": metadata,
        "spec": spec,
    }


def test_broad_beta_variations_render_as_the_oracle() -> None:
    rnd = random.Random(13450)
    count = examples(70)
    outcomes = [_check(_broad_dgd(rnd)) for _ in range(count)]
    assert outcomes.count("compared") >= count * 25 // 70, outcomes
