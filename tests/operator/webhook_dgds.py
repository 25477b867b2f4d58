"""Random DGDs over the inputs the DGD admission webhooks read (both API versions).

Each field is drawn from a small pool of values on both sides of a webhook rule (images with
and without a semantic-version tag, GMS/failover modes, checkpoint settings, provider
overrides, restart orders, topology, annotations), so a generated DGD is often refused for
one or several reasons. Used by the differential test against the operator oracle.
"""

from __future__ import annotations

import random
from typing import Any

JSON = dict[str, Any]


IMAGES = [
    "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
    "img:v1.2.3-rc.1",
    "img:latest",
    "img",
    "",
    "reg:5000/img",
    "img@sha256:" + "a" * 64,
    "img:1.0",
    "img:01.0.0",
    "img:1.0.0+build",
    "img:V2.0.0",
    "img:1.0.0-01",
    "a/b:c/d:1.0.0",
    " img:1.0.0 ",
    "img:1.0.0@sha256:" + "b" * 64,
]
SEMVERS = ["1.5.0", "v1.5", "1", "01.2.3", "1.2.3-01", "not", "", "1.2.3.4", "1.2.3-rc.1+b", "v"]
# EPP is refused wherever the InferencePool API cannot be detected (the oracle's cluster).
CLEAN_TYPES = ["frontend", "worker", "prefill", "decode", "planner", None]
ALPHA_TYPES = ["frontend", "worker", "planner", "epp", "main"]
TYPES = ["frontend", "worker", "prefill", "decode", "planner", "epp", None, "main"]
GPUS = [None, "1", "0", "2", "1500m", "1k"]
MODES = [None, "", "IntraPod", "InterPod", "Other"]


# In "clean" draws the optional features are rarer and images carry a semantic version, so
# about half the DGDs are admitted and the accepting side of each rule is exercised too.
_CLEAN = [False]


def maybe(r: random.Random, p: float = 0.3) -> bool:
    """True with probability p (a rare feature rarer still in a clean draw)."""
    if _CLEAN[0] and p < 0.5:
        p *= 0.25
    return r.random() < p


def image(r: random.Random) -> str:
    """A main-container image from the pool (a tagged release in a clean draw)."""
    return IMAGES[0] if _CLEAN[0] and r.random() < 0.9 else r.choice(IMAGES)


def component(r: random.Random, i: int) -> JSON:
    c: JSON = {
        "name": r.choice(
            ["Frontend", "VllmWorker", "decode", "prefill-worker", "w" * r.randint(1, 40), f"c{i}"]
        )
    }
    t = r.choice(CLEAN_TYPES if _CLEAN[0] else TYPES)
    if t:
        c["type"] = t
    if _CLEAN[0] or maybe(r, 0.85):
        containers: list[JSON] = []
        if _CLEAN[0] or maybe(r, 0.9):
            m: JSON = {"name": "main"}
            img = image(r)
            if img or maybe(r):
                m["image"] = img
            if maybe(r, 0.6):
                m["command"] = ["python3", "-m", "dynamo.vllm"]
            if maybe(r, 0.15):
                m["args"] = r.choice(
                    [
                        ["--enable-elastic-ep", "--data-parallel-backend", "ray"],
                        ["--enable-elastic-ep", "-dpb=ray"],
                        ["--model", "x"],
                    ]
                )
            g = r.choice(GPUS)
            if g is not None:
                m["resources"] = {"limits": {"nvidia.com/gpu": g}}
            if maybe(r, 0.08):
                m.setdefault("resources", {})["claims"] = [{"name": "gpu"}]
            containers.append(m)
        if maybe(r, 0.2):
            containers.append({"name": r.choice(["sidecar", "loader"]), "image": "x:1.0.0"})
        pt: JSON = {"spec": {"containers": containers}}
        if maybe(r, 0.1):
            pt["metadata"] = {
                "annotations": {
                    "dynamo.nvidia.com/gpu-power-limit": r.choice(["300", "0", "-1", "3x", "+5"])
                }
            }
        c["podTemplate"] = pt
    if maybe(r, 0.2):
        c["runtimeVersionOverride"] = r.choice(["1.2.0", "bad"])
    if maybe(r, 0.3):
        c["replicas"] = r.randint(0, 3)
    if maybe(r, 0.15):
        c["minAvailable"] = r.randint(0, 2)
    if maybe(r, 0.2):
        c["multinode"] = {"nodeCount": r.randint(1, 3)}
    if maybe(r, 0.1):
        c["sharedMemorySize"] = r.choice(["1Gi", "-1Gi", "0", "-500m"])
    if maybe(r, 0.08):
        c["frontendSidecar"] = r.choice(["", "sidecar", "main", "nope"])
    if maybe(r, 0.08):
        c["eppConfig"] = r.choice(
            [{}, {"configMapRef": {"name": ""}}, {"configMapRef": {"name": "x"}}]
        )
    if maybe(r, 0.08):
        c["topologyConstraint"] = {"packDomain": r.choice(["rack", "zone"])}
    exp: JSON = {}
    if maybe(r, 0.3):
        gms: JSON = {}
        mode = r.choice(MODES)
        if mode is not None:
            gms["mode"] = mode
        if maybe(r, 0.3):
            gms["extraClientContainers"] = r.choice(
                [["main"], ["main", "main"], ["ghost"], ["sidecar"]]
            )
        exp["gpuMemoryService"] = gms
    if maybe(r, 0.2):
        f: JSON = {}
        mode = r.choice(MODES)
        if mode is not None:
            f["mode"] = mode
        if maybe(r):
            f["numShadows"] = r.randint(0, 3)
        exp["failover"] = f
    if maybe(r, 0.25):
        ck: JSON = {"enabled": maybe(r, 0.8)}
        if maybe(r, 0.3):
            ck["job"] = {"gmsClientContainers": ["main"]}
        exp["checkpoint"] = ck
    if maybe(r, 0.1):
        exp["grove"] = {"forceScalingGroup": maybe(r, 0.7)}
    if exp or maybe(r, 0.05):
        c["experimental"] = exp
    if maybe(r, 0.06):
        c["providerOverride"] = r.choice(
            [
                {
                    "apiVersion": "grove.io/v1alpha1",
                    "value": {"topologyConstraint": {"pack": {"required": "rack"}}},
                },
                {
                    "apiVersion": "grove.io/v1alpha1",
                    "target": "PodCliqueSet",
                    "value": {"topologyConstraint": {}},
                },
                {"value": {"topologyConstraint": {}}},
                {
                    "apiVersion": "grove.io/v1alpha1",
                    "value": {"name": "x", "topologyConstraint": {"packDomain": "rack"}},
                },
            ]
        )
    return c


def beta(r: random.Random) -> JSON:
    backend = r.choice(["vllm", "vllm", "sglang", "trtllm", None])
    d: JSON = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {
            "name": r.choice(
                ["demo", "a-very-long-dgd-name-for-grove-limits", "x" * r.randint(1, 60)]
            )
        },
        "spec": {},
    }
    if backend:
        d["spec"]["backendFramework"] = backend
    ann: dict[str, str] = {}
    if maybe(r, 0.15):
        ann["nvidia.com/enable-grove"] = r.choice(["false", "FALSE", "true"])
    if maybe(r, 0.1):
        ann["nvidia.com/dynamo-operator-origin-version"] = r.choice(SEMVERS)
    if maybe(r, 0.08):
        ann["nvidia.com/vllm-distributed-executor-backend"] = r.choice(["mp", "RAY", "x"])
    if maybe(r, 0.08):
        ann["nvidia.com/grove-update-strategy"] = r.choice(["OnDelete", "ondelete", "Coherent"])
    if maybe(r, 0.12):
        ann["nvidia.com/dynamo-kube-discovery-mode"] = r.choice(["pod", "container", "x"])
    if ann:
        d["metadata"]["annotations"] = ann
    n = r.choice([0, 1, 2, 2, 3])
    comps = [component(r, i) for i in range(n)]
    # unique names as the operator's CRD requires (list-map key)
    seen: set[str] = set()
    out: list[JSON] = []
    for c in comps:
        if c["name"] in seen:
            continue
        seen.add(c["name"])
        out.append(c)
    d["spec"]["components"] = out
    if maybe(r, 0.08):
        d["spec"]["priorityClassName"] = "high"
    if maybe(r, 0.1) and out:
        names = [c["name"] for c in out]
        order = r.choice([names, names[::-1], names + names[:1], ["ghost"]])
        d["spec"]["restart"] = {
            "id": "r",
            "strategy": {"type": r.choice(["Sequential", "Parallel"]), "order": order},
        }
    if maybe(r, 0.1):
        d["spec"]["topologyConstraint"] = r.choice(
            [
                {"packDomain": "rack"},
                {"clusterTopologyName": "t"},
                {"clusterTopologyName": "t", "packDomain": "rack"},
            ]
        )
    if maybe(r, 0.06):
        d["spec"]["experimental"] = {
            "kvTransferPolicy": r.choice(
                [
                    {"clusterTopologyName": "Bad_Name"},
                    {"clusterTopologyName": "t", "domain": "rack"},
                    {"labelKey": "k", "domain": "zone"},
                ]
            )
        }
    if maybe(r, 0.05):
        d["spec"]["providerOverride"] = r.choice(
            [
                {
                    "apiVersion": "grove.io/v1alpha1",
                    "value": {
                        "spec": {"template": {"topologyConstraint": {"pack": {"required": "rack"}}}}
                    },
                },
                {"apiVersion": "grove.io/v1alpha1", "value": {"spec": {}}},
            ]
        )
    return d


def alpha(r: random.Random) -> JSON:
    d: JSON = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": r.choice(["demo", "x" * r.randint(1, 50)])},
        "spec": {"backendFramework": r.choice(["vllm", "sglang"]), "services": {}},
    }
    if maybe(r, 0.1):
        d["metadata"]["annotations"] = {
            "nvidia.com/dynamo-kube-discovery-mode": r.choice(["container", "pod"])
        }
    for i in range(r.choice([1, 2, 3])):
        kinds = ["frontend", "worker", "planner"] if _CLEAN[0] else ALPHA_TYPES
        s: JSON = {"componentType": r.choice(kinds)}
        if _CLEAN[0] or maybe(r, 0.9):
            mc: JSON = {}
            img = image(r)
            if img:
                mc["image"] = img
            s["extraPodSpec"] = {"mainContainer": mc}
            if maybe(r, 0.1):
                s["extraPodSpec"]["containers"] = [{"name": "sidecar-frontend", "image": "x:1.0.0"}]
        if maybe(r, 0.3):
            s["resources"] = {"limits": {"gpu": r.choice(["1", "0"])}}
        if maybe(r, 0.15):
            s["runtimeVersionOverride"] = "1.1.0"
        if maybe(r, 0.1):
            s["dynamoNamespace"] = r.choice(["old", ""])
        if maybe(r, 0.1):
            s["autoscaling"] = {"enabled": maybe(r)}
        if maybe(r, 0.1):
            s["annotations"] = {
                "nvidia.com/vllm-distributed-executor-backend": r.choice(["mp", "x"])
            }
        if maybe(r, 0.1):
            s["volumeMounts"] = [
                r.choice(
                    [
                        {"name": "a"},
                        {"name": "a", "mountPoint": "/m"},
                        {"name": "a", "useAsCompilationCache": True},
                    ]
                )
            ]
        if maybe(r, 0.08):
            s["ingress"] = {"enabled": maybe(r, 0.7)}
        if maybe(r, 0.08):
            s["eppConfig"] = r.choice([{}, {"configMapRef": {"name": "x"}}])
        if maybe(r, 0.08):
            s["frontendSidecar"] = {"image": "f:1.0.0"}
        if maybe(r, 0.15):
            s["gpuMemoryService"] = {
                "enabled": maybe(r, 0.8),
                "mode": r.choice(["intraPod", "interPod"]),
            }
        if maybe(r, 0.12):
            s["failover"] = {
                "enabled": True,
                "mode": r.choice(["intraPod", "interPod"]),
                "numShadows": r.randint(0, 3),
            }
        if maybe(r, 0.1):
            s["checkpoint"] = {"enabled": True}
        if maybe(r, 0.1):
            s["sharedMemory"] = r.choice([{"size": "1Gi"}, {"disabled": True}])
        d["spec"]["services"][
            r.choice(["Frontend", "worker", f"svc{i}", "W" * r.randint(1, 30)])
        ] = s
    if maybe(r, 0.08):
        d["spec"]["pvcs"] = [r.choice([{"name": "p"}, {"create": False}])]
    return d


def dgd(r: random.Random) -> tuple[JSON, bool]:
    """One DGD (v1beta1 seven times in ten) and whether checkpointing is on."""
    _CLEAN[0] = r.random() < 0.5
    doc = beta(r) if r.random() < 0.7 else alpha(r)
    return doc, r.random() < 0.3
