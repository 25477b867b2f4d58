"""The operator's DGD admission table, CREATE rows, transcribed as data.

Source: deploy/operator/internal/webhook/validation/dynamographdeployment_validation_envtest_test.go
(TestDynamoGraphDeploymentValidator_Validate) at the pinned commit, with its fixtures
(betaDGDForAdmission, alphaDGDForAdmission, enableBetaIntraPodGMS, setBetaWorkerPowerInputs,
...) rewritten as the DGD documents they build. The table runs each DGD through a real API
server with the operator's webhooks; here it goes through the admission pipeline, with the
table's environment: Checkpoint and Grove gates on unless the row turns one off, the
ClusterTopologyBinding ``grove-topology`` (levels zone, rack) unless the row omits it, and
the InferencePool API installed.

Every row with ``wantWebhookErrs`` asserts those causes exactly (``field: body``, in order);
rows without expectations must be admitted; ``wantWarnings`` rows compare the warnings. Rows
that only exercise the CRD's OpenAPI schema or CEL rules (not emulated), UPDATE rows and the
ones needing an old object are left out.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from renderer.operator.admission.errors import AdmissionError
from renderer.operator.config import FeatureGates, OperatorConfig

JSON = dict[str, Any]
IMAGE = "registry.example/runtime:1.1.0"
CUSTOM_IMAGE = "registry.example/runtime:custom"
TOPOLOGY = {"grove-topology": ["zone", "rack"]}
POWER = "dynamo.nvidia.com/gpu-power-limit"
DRA_DETAIL = (
    f'Forbidden: cannot be combined with annotation "{POWER}": power-aware planning does not '
    "support DRA-backed device allocation"
)
LONG_DGD = "test-graph-" + "x" * 50
BOUNDARY = "w" + "x" * 36
TOO_LONG = BOUNDARY + "x"


def beta() -> JSON:
    """newBetaDGDForValidation."""

    def component(name: str, type_: str, replicas: int) -> JSON:
        return {
            "name": name,
            "type": type_,
            "runtimeVersionOverride": "1.1.0",
            "replicas": replicas,
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}},
        }

    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "test-graph", "namespace": "default"},
        "spec": {
            "backendFramework": "vllm",
            "components": [component("frontend", "frontend", 1), component("worker", "worker", 2)],
        },
    }


def alpha() -> JSON:
    """newAlphaDGDForCompatibilityValidation."""
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "test-graph", "namespace": "default"},
        "spec": {
            "backendFramework": "vllm",
            "services": {
                "worker": {
                    "componentType": "worker",
                    "runtimeVersionOverride": "1.1.0",
                    "replicas": 1,
                    "extraPodSpec": {"mainContainer": {"image": IMAGE}},
                }
            },
        },
    }


def worker(dgd: JSON) -> JSON:
    found: JSON = next(c for c in dgd["spec"]["components"] if c["name"] == "worker")
    return found


def frontend(dgd: JSON) -> JSON:
    first: JSON = dgd["spec"]["components"][0]
    return first


def alpha_worker(dgd: JSON) -> JSON:
    service: JSON = dgd["spec"]["services"]["worker"]
    return service


def _alpha_custom_image(s: JSON) -> None:
    s["runtimeVersionOverride"] = ""
    s["extraPodSpec"]["mainContainer"]["image"] = CUSTOM_IMAGE


def _intra_pod_with(**experimental: Any) -> Callable[[JSON], None]:
    """enableBetaIntraPodGMS, then more experimental fields."""

    def apply(w: JSON) -> None:
        intra_pod_gms(w)
        w["experimental"].update(experimental)

    return apply


def gpu_main(image: str = IMAGE) -> JSON:
    return {"name": "main", "image": image, "resources": {"limits": {"nvidia.com/gpu": "1"}}}


def intra_pod_gms(component: JSON) -> None:
    """enableBetaIntraPodGMS."""
    component["experimental"] = {"gpuMemoryService": {"mode": "IntraPod"}}
    component["podTemplate"] = {"spec": {"containers": [gpu_main()]}}


def inter_pod_gms(component: JSON) -> None:
    """enableBetaInterPodGMS."""
    component["experimental"] = {"gpuMemoryService": {"mode": "InterPod"}}
    component["podTemplate"] = {"spec": {"containers": [gpu_main()]}}


def power(dgd: JSON, watts: str, gpus: str, nodes: int) -> None:
    """setBetaWorkerPowerInputs."""
    w = worker(dgd)
    w["podTemplate"].setdefault("metadata", {})["annotations"] = {POWER: watts}
    w["podTemplate"]["spec"]["containers"][0].setdefault("resources", {})["limits"] = {
        "nvidia.com/gpu": gpus
    }
    w["multinode"] = {"nodeCount": nodes}


def claim(dgd: JSON, pod_claim: JSON) -> None:
    """setBetaWorkerResourceClaim."""
    w = worker(dgd)
    w["podTemplate"]["spec"]["containers"][0].setdefault("resources", {})["claims"] = [
        {"name": pod_claim["name"]}
    ]
    w["podTemplate"]["spec"]["resourceClaims"] = [pod_claim]


def grove_override(target: str, value: JSON) -> JSON:
    override: JSON = {"apiVersion": "grove.io/v1alpha1", "value": value}
    if target:
        override["target"] = target
    return override


def pcs_topology(required: str) -> JSON:
    return {
        "spec": {
            "template": {
                "topologyConstraint": {
                    "topologyName": "grove-topology",
                    "pack": {"required": required},
                }
            }
        }
    }


def clique_topology(required: str) -> JSON:
    return {
        "topologyConstraint": {"topologyName": "grove-topology", "pack": {"required": required}}
    }


Mutate = Callable[[JSON], None]


def b(mutate: Mutate | None = None) -> JSON:
    """betaDGDForAdmission(mutate)."""
    dgd = beta()
    if mutate is not None:
        mutate(dgd)
    return dgd


def a(mutate: Mutate | None = None) -> JSON:
    """alphaDGDForAdmission(mutate)."""
    dgd = alpha()
    if mutate is not None:
        mutate(dgd)
    return dgd


def set_(path: list[str | int], value: Any) -> Mutate:
    """A mutation that sets one field (creating the dicts on the way)."""

    def apply(dgd: JSON) -> None:
        node: Any = dgd
        for seg in path[:-1]:
            node = node[seg] if isinstance(seg, int) else node.setdefault(seg, {})
        node[path[-1]] = value

    return apply


def steps(*mutations: Mutate) -> Mutate:
    def apply(dgd: JSON) -> None:
        for m in mutations:
            m(dgd)

    return apply


def on_worker(fn: Callable[[JSON], None]) -> Mutate:
    return lambda dgd: fn(worker(dgd))


def on_alpha_worker(fn: Callable[[JSON], None]) -> Mutate:
    return lambda dgd: fn(alpha_worker(dgd))


def with_annotations(values: dict[str, str]) -> Mutate:
    return set_(["metadata", "annotations"], dict(values))


def _services(*names: str) -> Mutate:
    """alphaDGDForAdmissionWithServiceNames."""

    def apply(dgd: JSON) -> None:
        service = alpha_worker(dgd)
        dgd["spec"]["services"] = {n: copy.deepcopy(service) for n in names}

    return apply


def _many_containers(dgd: JSON) -> None:
    pod = worker(dgd)["podTemplate"]["spec"]
    pod["containers"] = [{"name": "main", "image": IMAGE}]
    pod["initContainers"] = []
    for i in range(32):
        pod["containers"].append({"name": f"sidecar-{i}", "image": "sidecar:latest"})
        pod["initContainers"].append({"name": f"init-{i}", "image": "init:latest"})


def _init_claim(dgd: JSON) -> None:
    power(dgd, "300", "1", 2)
    pod = worker(dgd)["podTemplate"]["spec"]
    pod["initContainers"] = [
        {
            "name": "init-gpu",
            "image": "nvcr.io/nvidia/cuda:12.0-base",
            "resources": {"claims": [{"name": "gpu"}]},
        }
    ]
    pod["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


def _alpha_power_gms(dgd: JSON) -> None:
    s = alpha_worker(dgd)
    s["extraPodMetadata"] = {"annotations": {POWER: "300"}}
    s["resources"] = {"limits": {"gpu": "1"}}
    s["multinode"] = {"nodeCount": 2}
    s["gpuMemoryService"] = {"enabled": True, "mode": "intraPod"}


def _gms_clients(names: list[str], extra: list[JSON] | None = None) -> Mutate:
    def apply(dgd: JSON) -> None:
        w = worker(dgd)
        intra_pod_gms(w)
        w["podTemplate"]["spec"]["containers"] += extra or []
        w["experimental"]["gpuMemoryService"]["extraClientContainers"] = names

    return apply


def _multinode_overrides(dgd: JSON) -> None:
    frontend(dgd)["providerOverride"] = grove_override("", clique_topology("host"))
    w = worker(dgd)
    w["providerOverride"] = grove_override("", clique_topology("rack"))
    w["multinode"] = {
        "nodeCount": 2,
        "leader": {"providerOverride": grove_override("", clique_topology("host"))},
        "worker": {"providerOverride": grove_override("", clique_topology("host"))},
    }


#: (name, DGD, environment, expected webhook causes or None for admitted, expected warnings)
Row = tuple[str, JSON, dict[str, Any], list[str] | None, list[str]]
GROVE_OFF = {"grove": False}
CKPT_OFF = {"checkpoint": False}
NO_TOPOLOGY = {"topology": False}
RVO = (
    "Required value: is required when the specified main container image has no parseable "
    "semantic-version tag"
)

ROWS: list[Row] = [
    ("valid deployment with components", b(), {}, None, []),
    (
        "beta component main image is required when pod template is absent on create",
        b(on_worker(lambda w: w.pop("podTemplate"))),
        {},
        ["spec.components[1].podTemplate.spec.containers: Required value: is required"],
        [],
    ),
    (
        "alpha service main image is required when extra pod spec is absent on create",
        a(on_alpha_worker(lambda s: s.pop("extraPodSpec"))),
        {},
        ["spec.services[worker].extraPodSpec.mainContainer.image: Required value: is required"],
        [],
    ),
    (
        "component custom image requires runtime version override",
        b(
            on_worker(
                lambda w: w.update(
                    runtimeVersionOverride="",
                    podTemplate={"spec": {"containers": [{"name": "main", "image": CUSTOM_IMAGE}]}},
                )
            )
        ),
        {},
        [f"spec.components[1].runtimeVersionOverride: {RVO}"],
        [],
    ),
    (
        "alpha component custom image uses source-version path",
        a(on_alpha_worker(_alpha_custom_image)),
        {},
        [f"spec.services[worker].runtimeVersionOverride: {RVO}"],
        [],
    ),
    (
        "no components",
        b(lambda d: d["spec"].pop("components")),
        {},
        ["spec.components: Required value: must have at least one component"],
        [],
    ),
    (
        "component minAvailable requires Grove",
        b(on_worker(lambda w: w.update(minAvailable=1))),
        GROVE_OFF,
        [
            "spec.components[1].minAvailable: Forbidden: is currently supported only for "
            "Grove-backed DynamoGraphDeployment components"
        ],
        [],
    ),
    (
        "component topology constraint requires deployment topology",
        b(on_worker(lambda w: w.update(topologyConstraint={"packDomain": "rack"}))),
        {},
        [
            "spec.topologyConstraint: Required value: is required when any component topology "
            "constraint is set"
        ],
        [],
    ),
    (
        "inter-pod GMS requires Grove",
        b(on_worker(inter_pod_gms)),
        GROVE_OFF,
        [
            "spec.components[1].experimental.gpuMemoryService.mode: Forbidden: requires the Grove "
            'pathway, but workload provider "component" is selected'
        ],
        [],
    ),
    (
        "inter-pod GMS requires vLLM backend",
        b(steps(set_(["spec", "backendFramework"], "sglang"), on_worker(inter_pod_gms))),
        {},
        [
            'spec.components[1].experimental.gpuMemoryService.mode: Invalid value: "InterPod": the '
            "inter-pod GMS layout is currently supported only for vLLM (detected backend: sglang)"
        ],
        [],
    ),
    (
        "intra-pod failover requires container discovery",
        b(on_worker(_intra_pod_with(failover={"mode": "IntraPod"}))),
        {},
        [
            'metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Invalid value: "": must '
            'be "container" when intra-pod failover is configured'
        ],
        [],
    ),
    (
        "GMS requires GPU resources on the main container",
        b(on_worker(lambda w: w.update(experimental={"gpuMemoryService": {"mode": "IntraPod"}}))),
        {},
        [
            "spec.components[1].experimental.gpuMemoryService: Forbidden: GPU memory service "
            "requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1"
        ],
        [],
    ),
    ("v1alpha1 converted empty service map key is accepted", a(_services("")), {}, None, []),
    (
        "v1alpha1 converted service names may collide case-insensitively",
        a(_services("worker", "WORKER")),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 converted sidecar without image reaches the webhook",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    extraPodSpec={
                        "mainContainer": {"image": IMAGE},
                        "containers": [{"name": "metrics"}],
                    }
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 frontend sidecar without image reaches the webhook",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    frontendSidecar={},
                    extraPodSpec={
                        "mainContainer": {"image": IMAGE},
                        "containers": [{"name": "metrics"}],
                    },
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 converted init container without image reaches the webhook",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    extraPodSpec={
                        "mainContainer": {"image": IMAGE},
                        "initContainers": [{"name": "prep"}],
                    }
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1beta1 discovery annotation survives the component pod template API server round trip",
        b(
            on_worker(
                lambda w: w.update(
                    podTemplate={
                        "metadata": {
                            "annotations": {
                                "nvidia.com/vllm-distributed-executor-backend": "RaY",
                                "nvidia.com/dynamo-kube-discovery-mode": "container",
                            }
                        },
                        "spec": {"containers": [{"name": "main", "image": IMAGE}]},
                    }
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 converted extraPodMetadata annotation does not receive v1beta1 CEL validation",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    extraPodMetadata={
                        "annotations": {"nvidia.com/vllm-distributed-executor-backend": "typo"}
                    }
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 invalid service annotation remains rejected by the webhook",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    annotations={"nvidia.com/vllm-distributed-executor-backend": "invalid"}
                )
            )
        ),
        {},
        [
            "spec.services[worker].annotations[nvidia.com/vllm-distributed-executor-backend]: "
            'Invalid value: "invalid": must be "mp" or "ray"'
        ],
        [],
    ),
    (
        "v1beta1 frontend sidecar must reference an existing container",
        b(on_worker(lambda w: w.update(frontendSidecar="missing"))),
        {},
        [
            'spec.components[1].frontendSidecar: Invalid value: "missing": must match a '
            "podTemplate.spec.containers name"
        ],
        [],
    ),
    ("valid v1alpha1 deployment reaches the webhook", a(), {}, None, []),
    (
        "v1beta1 pod template container counts are not artificially bounded",
        b(_many_containers),
        {},
        None,
        [],
    ),
    (
        "v1beta1 valid replicas and minAvailable reach the webhook",
        b(on_worker(lambda w: w.update(replicas=2, minAvailable=1))),
        {},
        None,
        [],
    ),
    (
        "v1beta1 power tuple is accepted on create",
        b(lambda d: power(d, "300", "1", 2)),
        {},
        None,
        [],
    ),
    (
        "v1beta1 power annotation with intra-pod GMS DRA is rejected",
        b(steps(on_worker(intra_pod_gms), lambda d: power(d, "300", "1", 2))),
        {},
        [f"spec.components[1].experimental.gpuMemoryService: {DRA_DETAIL}"],
        [],
    ),
    (
        "v1beta1 power annotation with inter-pod GMS DRA is rejected",
        b(steps(on_worker(inter_pod_gms), lambda d: power(d, "300", "1", 2))),
        {},
        [f"spec.components[1].experimental.gpuMemoryService: {DRA_DETAIL}"],
        [],
    ),
    (
        "v1beta1 power annotation with DRA claim template is rejected",
        b(
            steps(
                lambda d: power(d, "300", "1", 2),
                lambda d: claim(d, {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}),
            )
        ),
        {},
        [f"spec.components[1].podTemplate.spec.containers[0].resources.claims: {DRA_DETAIL}"],
        [],
    ),
    (
        "v1beta1 power annotation with direct DRA claim is rejected",
        b(
            steps(
                lambda d: power(d, "300", "1", 2),
                lambda d: claim(d, {"name": "gpu", "resourceClaimName": "gpu-claim"}),
            )
        ),
        {},
        [f"spec.components[1].podTemplate.spec.containers[0].resources.claims: {DRA_DETAIL}"],
        [],
    ),
    (
        "v1beta1 DRA claim without power annotation remains accepted",
        b(lambda d: claim(d, {"name": "device", "resourceClaimTemplateName": "device-template"})),
        {},
        None,
        [],
    ),
    (
        "v1beta1 power annotation with zero value is rejected on create",
        b(lambda d: power(d, "0", "1", 2)),
        {},
        [
            f"spec.components[1].podTemplate.metadata.annotations[{POWER}]: Invalid value: "
            '"0": must be greater than zero'
        ],
        [],
    ),
    (
        "v1beta1 power annotation with negative value is rejected on create",
        b(lambda d: power(d, "-300", "1", 2)),
        {},
        [
            f"spec.components[1].podTemplate.metadata.annotations[{POWER}]: Invalid value: "
            '"-300": must be greater than zero'
        ],
        [],
    ),
    (
        "v1beta1 power annotation with non-integer value is rejected on create",
        b(lambda d: power(d, "300W", "1", 2)),
        {},
        [
            f"spec.components[1].podTemplate.metadata.annotations[{POWER}]: Invalid value: "
            '"300W": must be a decimal integer'
        ],
        [],
    ),
    (
        "v1beta1 power annotation with init-container DRA claim is rejected",
        b(_init_claim),
        {},
        [f"spec.components[1].podTemplate.spec.initContainers[0].resources.claims: {DRA_DETAIL}"],
        [],
    ),
    (
        "v1alpha1 power annotation with GMS DRA is rejected after conversion",
        a(_alpha_power_gms),
        {},
        [f"spec.components[0].experimental.gpuMemoryService: {DRA_DETAIL}"],
        [],
    ),
    (
        "component grove.forceScalingGroup requires Grove",
        b(on_worker(lambda w: w.update(experimental={"grove": {"forceScalingGroup": True}}))),
        GROVE_OFF,
        [
            "spec.components[1].experimental.grove.forceScalingGroup: Forbidden: is currently "
            "supported only for Grove-backed DynamoGraphDeployment components"
        ],
        [],
    ),
    (
        "v1beta1 grove.forceScalingGroup on a single-node component reaches the webhook",
        b(on_worker(lambda w: w.update(experimental={"grove": {"forceScalingGroup": True}}))),
        {},
        None,
        [],
    ),
    (
        "v1beta1 redundant grove.forceScalingGroup on a multinode component reaches the webhook",
        b(
            on_worker(
                lambda w: w.update(
                    multinode={"nodeCount": 2}, experimental={"grove": {"forceScalingGroup": True}}
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1beta1 valid checkpoint configuration reaches the webhook",
        b(on_worker(lambda w: w.update(experimental={"checkpoint": {"enabled": True}}))),
        {},
        None,
        [],
    ),
    (
        "checkpoint configuration requires operator feature gate",
        b(
            on_worker(
                lambda w: w.update(
                    experimental={
                        "checkpoint": {"enabled": True, "job": {"gmsClientContainers": ["main"]}}
                    }
                )
            )
        ),
        CKPT_OFF,
        [
            "spec.components[1].experimental.checkpoint: Forbidden: checkpoint functionality is "
            "disabled in the operator configuration",
            "spec.components[1].experimental.checkpoint.job.gmsClientContainers: Forbidden: "
            "requires gpuMemoryService to be set",
        ],
        [],
    ),
    (
        "v1beta1 label-key KV-transfer policy reaches the webhook",
        b(
            set_(
                ["spec", "experimental"],
                {"kvTransferPolicy": {"labelKey": "topology.kubernetes.io/zone", "domain": "zone"}},
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1beta1 valid preferred KV-transfer enforcement reaches the webhook",
        b(
            set_(
                ["spec", "experimental"],
                {
                    "kvTransferPolicy": {
                        "labelKey": "topology.kubernetes.io/zone",
                        "domain": "zone",
                        "enforcement": "Preferred",
                        "preferredWeight": 1,
                    }
                },
            )
        ),
        {},
        None,
        [],
    ),
    (
        "KV-transfer cluster topology name must be a DNS-1123 subdomain",
        b(
            set_(
                ["spec", "experimental"],
                {"kvTransferPolicy": {"clusterTopologyName": "Bad_Name", "domain": "zone"}},
            )
        ),
        {},
        [
            'spec.experimental.kvTransferPolicy.clusterTopologyName: Invalid value: "Bad_Name": a '
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
            r"regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*"
            r"[a-z0-9])?)*')"
        ],
        [],
    ),
    (
        "KV-transfer cluster topology name requires Grove pathway",
        b(
            steps(
                with_annotations({"nvidia.com/enable-grove": "false"}),
                set_(
                    ["spec", "experimental"],
                    {
                        "kvTransferPolicy": {
                            "clusterTopologyName": "grove-topology",
                            "domain": "zone",
                        }
                    },
                ),
            )
        ),
        {},
        [
            "spec.experimental.kvTransferPolicy.clusterTopologyName: Forbidden: requires the Grove "
            'pathway, but workload provider "component" is selected'
        ],
        [],
    ),
    (
        "KV-transfer cluster topology policy is valid",
        b(
            set_(
                ["spec", "experimental"],
                {"kvTransferPolicy": {"clusterTopologyName": "grove-topology", "domain": "rack"}},
            )
        ),
        {},
        None,
        [],
    ),
    (
        "KV-transfer cluster topology policy rejects missing topology",
        b(
            set_(
                ["spec", "experimental"],
                {"kvTransferPolicy": {"clusterTopologyName": "missing-topology", "domain": "rack"}},
            )
        ),
        NO_TOPOLOGY,
        [
            "spec.experimental.kvTransferPolicy.clusterTopologyName: Invalid value: "
            '"missing-topology": references a ClusterTopologyBinding resource that was not found'
        ],
        [],
    ),
    (
        "KV-transfer cluster topology policy rejects missing domain",
        b(
            set_(
                ["spec", "experimental"],
                {"kvTransferPolicy": {"clusterTopologyName": "grove-topology", "domain": "host"}},
            )
        ),
        {},
        [
            'spec.experimental.kvTransferPolicy.domain: Invalid value: "host": does not exist in '
            'ClusterTopologyBinding "grove-topology"; available domains: [rack zone]'
        ],
        [],
    ),
    (
        "v1beta1 valid GMS configuration reaches the webhook",
        b(on_worker(intra_pod_gms)),
        {},
        None,
        [],
    ),
    (
        "GMS rejects frontend component",
        b(lambda d: intra_pod_gms(frontend(d))),
        {},
        [
            "spec.components[0].experimental.gpuMemoryService: Forbidden: GPU memory service is "
            "only supported for worker, prefill, or decode components"
        ],
        [],
    ),
    (
        "GMS client container references must resolve",
        b(_gms_clients(["missing-b", "missing-a"])),
        {},
        [
            "spec.components[1].experimental.gpuMemoryService.extraClientContainers[0]: Invalid "
            'value: "missing-b": does not name a container in podTemplate.spec.containers',
            "spec.components[1].experimental.gpuMemoryService.extraClientContainers[1]: Invalid "
            'value: "missing-a": does not name a container in podTemplate.spec.containers',
        ],
        [],
    ),
    (
        "GMS accepts multiple declared client containers",
        b(
            _gms_clients(
                ["loader", "metrics-client"],
                [
                    {"name": "loader", "image": "loader:latest"},
                    {"name": "metrics-client", "image": "metrics:latest"},
                ],
            )
        ),
        {},
        None,
        [],
    ),
    (
        "intra-pod failover requires GMS",
        b(
            steps(
                with_annotations({"nvidia.com/dynamo-kube-discovery-mode": "container"}),
                on_worker(lambda w: w.update(experimental={"failover": {"mode": "IntraPod"}})),
            )
        ),
        {},
        [
            "spec.components[1].experimental.failover: Forbidden: gpuMemoryService is required "
            'when failover mode is "IntraPod"'
        ],
        [],
    ),
    (
        "failover mode must match GMS mode",
        b(on_worker(_intra_pod_with(failover={"mode": "InterPod", "numShadows": 1}))),
        {},
        [
            'spec.components[1].experimental.failover.mode: Invalid value: "InterPod": must match '
            'gpuMemoryService.mode "IntraPod"'
        ],
        [],
    ),
    (
        "inter-pod failover requires GMS",
        b(
            on_worker(
                lambda w: w.update(experimental={"failover": {"mode": "InterPod", "numShadows": 1}})
            )
        ),
        {},
        [
            "spec.components[1].experimental.failover: Forbidden: gpuMemoryService is required "
            'when failover mode is "InterPod"',
            "spec.components[1].experimental.failover: Forbidden: GMS failover requires at least 1 "
            "GPU in podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu",
        ],
        [],
    ),
    (
        "inter-pod failover rejects frontend component",
        b(
            lambda d: frontend(d).update(
                experimental={"failover": {"mode": "InterPod", "numShadows": 1}}
            )
        ),
        {},
        [
            "spec.components[0].experimental.failover: Forbidden: gpuMemoryService is required "
            'when failover mode is "InterPod"',
            "spec.components[0].experimental.failover: Forbidden: GMS failover requires at least 1 "
            "GPU in podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu",
            "spec.components[0].experimental.failover: Forbidden: GMS failover is not supported "
            'for component type "frontend"',
        ],
        [],
    ),
    (
        "ordinary GMS snapshot combination is accepted",
        b(on_worker(_intra_pod_with(checkpoint={"enabled": True}))),
        {},
        None,
        [],
    ),
    (
        "alpha PVC empty name requirement is preserved structurally",
        a(set_(["spec", "pvcs"], [{"name": "", "create": False}])),
        {},
        ["spec.pvcs[0].name: Required value: is required"],
        [],
    ),
    (
        "alpha ingress requires host",
        a(
            set_(
                ["spec", "services", "frontend"],
                {
                    "componentType": "frontend",
                    "runtimeVersionOverride": "1.1.0",
                    "extraPodSpec": {"mainContainer": {"image": IMAGE}},
                    "ingress": {"enabled": True, "ingressControllerClassName": "nginx"},
                },
            )
        ),
        {},
        [
            "spec.services[frontend].ingress.host: Required value: is required when ingress is "
            "enabled"
        ],
        [],
    ),
    (
        "alpha volume mounts require mount point unless used as compilation cache",
        a(on_alpha_worker(lambda s: s.update(volumeMounts=[{"name": "cache"}]))),
        {},
        [
            "spec.services[worker].volumeMounts[0].mountPoint: Required value: is required when "
            "useAsCompilationCache is false"
        ],
        [],
    ),
    (
        "alpha EPP config sources are mutually exclusive",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    componentType="epp",
                    eppConfig={
                        "configMapRef": {"name": "epp"},
                        "config": {"plugins": [], "schedulingProfiles": []},
                    },
                )
            )
        ),
        {},
        [
            "spec.services[worker].eppConfig: Forbidden: exactly one of configMapRef or config is "
            "required"
        ],
        [],
    ),
    (
        "alpha intra-pod failover shadow maximum is preserved structurally",
        a(
            on_alpha_worker(
                lambda s: s.update(failover={"enabled": True, "mode": "intraPod", "numShadows": 2})
            )
        ),
        {},
        [
            'metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Invalid value: "": must '
            'be "container" when intra-pod failover is configured',
            "spec.components[0].experimental.failover: Forbidden: gpuMemoryService is required "
            'when failover mode is "IntraPod"',
            "spec.services[worker].failover.numShadows: Invalid value: 2: is invalid for "
            'mode="intraPod": '
            'intraPod uses a fixed 1 primary + 1 shadow sidecar; use failover.mode="interPod" to '
            "configure numShadows",
        ],
        [],
    ),
    (
        "alpha frontend sidecar rejects generated container name conflict",
        a(
            set_(
                ["spec", "services", "frontend"],
                {
                    "componentType": "frontend",
                    "runtimeVersionOverride": "1.1.0",
                    "frontendSidecar": {"image": "custom/frontend:latest"},
                    "extraPodSpec": {
                        "mainContainer": {"image": IMAGE},
                        "containers": [
                            {"name": "sidecar-frontend", "image": "custom/frontend:latest"}
                        ],
                    },
                },
            )
        ),
        {},
        [
            "spec.services[frontend].frontendSidecar: Forbidden: cannot inject frontend sidecar: a "
            'container named "sidecar-frontend" already exists in extraPodSpec.containers'
        ],
        [],
    ),
    (
        "valid preserved alpha-only fields are accepted",
        a(
            steps(
                set_(["spec", "pvcs"], [{"name": "cache", "create": False}]),
                on_alpha_worker(
                    lambda s: s.update(
                        ingress={"enabled": True, "host": "worker.example.com"},
                        annotations={"nvidia.com/vllm-distributed-executor-backend": "ray"},
                        volumeMounts=[{"name": "cache", "useAsCompilationCache": True}],
                        sharedMemory={"disabled": True},
                        gpuMemoryService={
                            "enabled": False,
                            "mode": "intraPod",
                            "extraClientContainers": ["metrics"],
                        },
                    )
                ),
            )
        ),
        {},
        None,
        [],
    ),
    (
        "alpha compatibility warnings are preserved",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    dynamoNamespace="legacy-namespace", autoscaling={"enabled": True}
                )
            )
        ),
        {},
        None,
        [
            "spec.services[worker].dynamoNamespace is deprecated and ignored. Value "
            '"legacy-namespace" '
            'will be replaced with "default-test-graph". Remove this field from your configuration',
            "spec.services[worker].autoscaling is deprecated and ignored. Use "
            "DynamoGraphDeploymentScalingAdapter with HPA, KEDA, or Planner for autoscaling "
            "instead. See docs/kubernetes/autoscaling.md",
        ],
    ),
    (
        "GMS accepts GPU from alpha dedicated resources",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    resources={"limits": {"gpu": "1"}},
                    gpuMemoryService={"enabled": True, "mode": "intraPod"},
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "GMS accepts GPU from alpha extraPodSpec main container resources",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    extraPodSpec={
                        "mainContainer": {
                            "image": IMAGE,
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    },
                    gpuMemoryService={"enabled": True, "mode": "intraPod"},
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "GMS accepts alpha GPUType resource after conversion",
        a(
            on_alpha_worker(
                lambda s: s.update(
                    resources={"limits": {"gpu": "1", "gpuType": "example.com/gpu"}},
                    gpuMemoryService={"enabled": True, "mode": "intraPod"},
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 valid shared memory reaches the webhook",
        a(on_alpha_worker(lambda s: s.update(sharedMemory={"size": "1Gi"}))),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 EPP config without a source reaches the webhook without v1beta1 CEL",
        a(on_alpha_worker(lambda s: s.update(componentType="epp", eppConfig={}))),
        {},
        [
            "spec.services[worker].eppConfig: Forbidden: exactly one of configMapRef or config is "
            "required"
        ],
        [],
    ),
    (
        "v1beta1 valid EPP config reaches the webhook",
        b(
            on_worker(
                lambda w: w.update(
                    type="epp", replicas=1, eppConfig={"configMapRef": {"name": "epp"}}
                )
            )
        ),
        {},
        None,
        [],
    ),
    (
        "priority class requires Grove",
        b(set_(["spec", "priorityClassName"], "high-priority")),
        GROVE_OFF,
        [
            "spec.priorityClassName: Forbidden: requires the Grove pathway, but workload provider "
            '"component" is selected'
        ],
        [],
    ),
    (
        "priority class is allowed with Grove",
        b(set_(["spec", "priorityClassName"], "high-priority")),
        {},
        None,
        [],
    ),
    (
        "replicas zero can keep minAvailable for scale-up intent",
        b(on_worker(lambda w: w.update(replicas=0, minAvailable=2))),
        {},
        None,
        [],
    ),
    (
        "rendered Grove resource name length accepts boundary",
        b(
            steps(
                set_(["metadata", "name"], LONG_DGD), on_worker(lambda w: w.update(name=BOUNDARY))
            )
        ),
        {},
        None,
        [],
    ),
    (
        "rendered Grove resource name length rejects overflow",
        b(
            steps(
                set_(["metadata", "name"], LONG_DGD), on_worker(lambda w: w.update(name=TOO_LONG))
            )
        ),
        {},
        [
            f'spec.components[1].name: Invalid value: "{TOO_LONG}": combined resource name length '
            "46 exceeds the 45-character pod-name limit (PCS name + component name); shorten "
            f'DynamoGraphDeployment name "{LONG_DGD}" or component name "{TOO_LONG}"'
        ],
        [],
    ),
    (
        "rendered Grove resource name length is skipped outside Grove",
        b(
            steps(
                set_(["metadata", "name"], LONG_DGD), on_worker(lambda w: w.update(name=TOO_LONG))
            )
        ),
        GROVE_OFF,
        None,
        [],
    ),
    (
        "deployment topology without pack domain allows unconstrained components",
        b(
            steps(
                set_(["metadata", "generation"], 2),
                set_(["spec", "topologyConstraint"], {"clusterTopologyName": "grove-topology"}),
                on_worker(lambda w: w.update(topologyConstraint={"packDomain": "rack"})),
            )
        ),
        {},
        None,
        [],
    ),
    (
        "deployment topology without pack domain requires a component topology",
        b(
            steps(
                set_(["metadata", "generation"], 2),
                set_(["spec", "topologyConstraint"], {"clusterTopologyName": "grove-topology"}),
            )
        ),
        {},
        [
            "spec.topologyConstraint.packDomain: Required value: is required when no component "
            "topologyConstraint is set"
        ],
        [],
    ),
    (
        "deployment pack domain can be inherited",
        b(
            set_(
                ["spec", "topologyConstraint"],
                {"clusterTopologyName": "grove-topology", "packDomain": "rack"},
            )
        ),
        {},
        None,
        [],
    ),
    (
        "deployment pack domain can be mixed with narrower component topology",
        b(
            steps(
                set_(
                    ["spec", "topologyConstraint"],
                    {"clusterTopologyName": "grove-topology", "packDomain": "zone"},
                ),
                on_worker(lambda w: w.update(topologyConstraint={"packDomain": "rack"})),
            )
        ),
        {},
        None,
        [],
    ),
    (
        "component topology with deployment topology is valid",
        b(
            steps(
                set_(["spec", "topologyConstraint"], {"clusterTopologyName": "grove-topology"}),
                lambda d: frontend(d).update(topologyConstraint={"packDomain": "zone"}),
                on_worker(lambda w: w.update(topologyConstraint={"packDomain": "rack"})),
            )
        ),
        {},
        None,
        [],
    ),
    (
        "missing cluster topology is rejected",
        b(
            set_(
                ["spec", "topologyConstraint"],
                {"clusterTopologyName": "missing-topology", "packDomain": "rack"},
            )
        ),
        NO_TOPOLOGY,
        [
            'spec.topologyConstraint.clusterTopologyName: Invalid value: "missing-topology": '
            "references a ClusterTopologyBinding resource that was not found"
        ],
        [],
    ),
    (
        "independent topology errors aggregate",
        b(set_(["spec", "topologyConstraint"], {"clusterTopologyName": "missing-topology"})),
        NO_TOPOLOGY,
        [
            "spec.topologyConstraint.packDomain: Required value: is required when no component "
            "topologyConstraint is set",
            'spec.topologyConstraint.clusterTopologyName: Invalid value: "missing-topology": '
            "references a ClusterTopologyBinding resource that was not found",
        ],
        [],
    ),
    (
        "pack domain must exist in cluster topology",
        b(
            set_(
                ["spec", "topologyConstraint"],
                {"clusterTopologyName": "grove-topology", "packDomain": "host"},
            )
        ),
        {},
        [
            'spec.topologyConstraint.packDomain: Invalid value: "host": does not exist in '
            'ClusterTopologyBinding "grove-topology"; available domains: [rack zone]'
        ],
        [],
    ),
    (
        "component topology cannot be broader than spec topology",
        b(
            steps(
                set_(
                    ["spec", "topologyConstraint"],
                    {"clusterTopologyName": "grove-topology", "packDomain": "rack"},
                ),
                on_worker(lambda w: w.update(topologyConstraint={"packDomain": "zone"})),
            )
        ),
        {},
        [
            'spec.components[1].topologyConstraint.packDomain: Invalid value: "zone": must be '
            'equal to or narrower than the deployment-level domain "rack"'
        ],
        [],
    ),
    (
        "valid Grove root provider override is admitted and defaulted",
        b(set_(["spec", "providerOverride"], grove_override("", pcs_topology("rack")))),
        {},
        None,
        [],
    ),
    (
        "v1alpha1 Grove root provider override converts and defaults",
        a(set_(["spec", "providerOverride"], grove_override("", pcs_topology("rack")))),
        {},
        None,
        [],
    ),
    (
        "valid Grove component and multinode role overrides are admitted and defaulted",
        b(_multinode_overrides),
        {},
        None,
        [],
    ),
    (
        "provider override target must match its DGD context",
        b(
            set_(
                ["spec", "providerOverride"],
                grove_override("PodCliqueTemplateSpec", pcs_topology("rack")),
            )
        ),
        {},
        [
            'spec.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": must match the '
            'provider-context target "PodCliqueSet"'
        ],
        [],
    ),
    (
        "provider override rejects Dynamo-owned fields",
        b(
            set_(
                ["spec", "providerOverride"],
                grove_override(
                    "PodCliqueSet",
                    {
                        "spec": {
                            "replicas": 3,
                            "template": pcs_topology("rack")["spec"]["template"],
                        }
                    },
                ),
            )
        ),
        {},
        [
            "spec.providerOverride.value.spec.replicas: Forbidden: is Dynamo-owned or not enabled "
            "for provider override"
        ],
        [],
    ),
    (
        # The operator's test expects "Go struct field TopologyConstraint.spec..." (older Go);
        # the Go release of the reference oracle names the root type: see grove_shape.
        "malformed provider override field is invalid without echoing its value",
        b(
            set_(
                ["spec", "providerOverride"],
                grove_override(
                    "PodCliqueSet", {"spec": {"template": {"topologyConstraint": {"pack": "rack"}}}}
                ),
            )
        ),
        {},
        [
            "spec.providerOverride.value: Invalid value: null: does not match the registered "
            "PodCliqueSet schema: json: cannot unmarshal string into Go struct field PodCliqueSet."
            "spec.template.topologyConstraint.pack of type v1alpha1.TopologyPackConstraint"
        ],
        [],
    ),
    (
        "typed and provider-native Grove topology cannot be combined",
        b(
            steps(
                set_(
                    ["spec", "providerOverride"],
                    grove_override("PodCliqueSet", pcs_topology("rack")),
                ),
                set_(
                    ["spec", "topologyConstraint"],
                    {"clusterTopologyName": "grove-topology", "packDomain": "rack"},
                ),
            )
        ),
        {},
        [
            "spec.providerOverride.value: Forbidden: cannot be combined with "
            "spec.topologyConstraint or components[].topologyConstraint; use either the typed "
            "topology API or provider-native Grove topology overrides"
        ],
        [],
    ),
    (
        "component workload provider rejects provider overrides",
        b(
            steps(
                with_annotations(
                    {
                        "nvidia.com/workload-provider": "component",
                        "nvidia.com/enable-grove": "false",
                    }
                ),
                set_(
                    ["spec", "providerOverride"],
                    grove_override("PodCliqueSet", pcs_topology("rack")),
                ),
            )
        ),
        {},
        [
            'spec.providerOverride: Forbidden: requires workload provider "grove", but "component" '
            "is selected"
        ],
        [],
    ),
    (
        "workload provider input is normalized from routing intent on create",
        b(with_annotations({"nvidia.com/workload-provider": "component"})),
        {},
        None,
        [],
    ),
    (
        "origin version accepts semver",
        b(with_annotations({"nvidia.com/dynamo-operator-origin-version": "1.2.3"})),
        {},
        None,
        [],
    ),
    (
        "origin version rejects non-semver",
        b(with_annotations({"nvidia.com/dynamo-operator-origin-version": "not-semver"})),
        {},
        [
            "metadata.annotations[nvidia.com/dynamo-operator-origin-version]: Invalid value: "
            '"not-semver": must be valid semver'
        ],
        [],
    ),
    (
        "vLLM backend annotation accepts mp",
        b(with_annotations({"nvidia.com/vllm-distributed-executor-backend": "mp"})),
        {},
        None,
        [],
    ),
    (
        "vLLM backend annotation accepts ray case-insensitively",
        b(with_annotations({"nvidia.com/vllm-distributed-executor-backend": "RAY"})),
        {},
        None,
        [],
    ),
    (
        "vLLM backend annotation rejects unknown value",
        b(with_annotations({"nvidia.com/vllm-distributed-executor-backend": "typo"})),
        {},
        [
            "metadata.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "
            '"typo": must be "mp" or "ray"'
        ],
        [],
    ),
    *[
        (
            f"Grove update strategy annotation accepts {value}",
            b(with_annotations({"nvidia.com/grove-update-strategy": value})),
            {},
            None,
            [],
        )
        for value in ("RollingRecreate", "OnDelete")
    ],
    *[
        (
            f"Grove update strategy annotation rejects {what}",
            b(with_annotations({"nvidia.com/grove-update-strategy": value})),
            {},
            [
                "metadata.annotations[nvidia.com/grove-update-strategy]: Unsupported value: "
                f'"{value}": supported values: "RollingRecreate", "OnDelete"'
            ],
            [],
        )
        for what, value in (
            ("lowercase value", "ondelete"),
            ("whitespace", " OnDelete "),
            ("unknown value", "BlueGreen"),
        )
    ],
    *[
        (
            f"discovery mode accepts {value}",
            b(with_annotations({"nvidia.com/dynamo-kube-discovery-mode": value})),
            {},
            None,
            [],
        )
        for value in ("pod", "container")
    ],
    (
        "discovery mode rejects unknown value",
        b(with_annotations({"nvidia.com/dynamo-kube-discovery-mode": "endpoint"})),
        {},
        [
            "metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Unsupported value: "
            '"endpoint": supported values: "pod", "container"'
        ],
        [],
    ),
    (
        "independent root errors aggregate with exact field paths",
        b(
            steps(
                lambda d: d["spec"].pop("components"),
                with_annotations(
                    {
                        "nvidia.com/dynamo-operator-origin-version": "not-semver",
                        "nvidia.com/vllm-distributed-executor-backend": "invalid",
                        "nvidia.com/dynamo-kube-discovery-mode": "invalid",
                    }
                ),
            )
        ),
        {},
        [
            "metadata.annotations[nvidia.com/dynamo-operator-origin-version]: Invalid value: "
            '"not-semver": must be valid semver',
            "metadata.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "
            '"invalid": must be "mp" or "ray"',
            "metadata.annotations[nvidia.com/dynamo-kube-discovery-mode]: Unsupported value: "
            '"invalid": supported values: "pod", "container"',
            "spec.components: Required value: must have at least one component",
        ],
        [],
    ),
]


def _admit(
    dgd: JSON, env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[JSON, list[str]]:
    """The admission pipeline in the table's environment (topology, InferencePool, gates)."""
    from renderer.operator.admission import pipeline, validation

    original = validation.validate
    topologies = TOPOLOGY if env.get("topology", True) else {}

    def validate(*args: Any, **kwargs: Any) -> list[str]:
        return original(*args, **kwargs, inference_pool_error=None, cluster_topologies=topologies)

    monkeypatch.setattr(validation, "validate", validate)
    config = OperatorConfig(
        gates=FeatureGates(grove=env.get("grove", True), checkpoint=env.get("checkpoint", True)),
        namespace_restricted="default",
    )
    return pipeline.admit_with_warnings(
        copy.deepcopy(dgd),
        namespace="default",
        config=config,
        allow_checkpoint_with_interpod_gms=False,
    )


def test_nil_alpha_service_is_refused_as_not_reproduced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Row "nil alpha service entry is pruned": the API server prunes the null service before
    the webhook (the table admits it); the webhook itself dereferences it (the reference
    oracle, which does not prune, crashes there). Not reproduced: refused, naming the field."""
    from renderer.operator.admission.errors import NotReproducedError

    dgd = a(set_(["spec", "services", "ghost"], None))
    with pytest.raises(NotReproducedError) as err:
        _admit(dgd, {}, monkeypatch)
    assert err.value.path == ("spec", "services", "ghost")


def test_row_count() -> None:
    assert len(ROWS) >= 100


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_envtest_create_row(row: Row, monkeypatch: pytest.MonkeyPatch) -> None:
    name, dgd, env, want_errs, want_warnings = row
    try:
        admitted, warnings = _admit(dgd, env, monkeypatch)
    except AdmissionError as err:
        assert want_errs is not None, f"{name}: refused: {err.message}"
        assert [text for text, _ in err.causes] == want_errs, name
        assert list(err.warnings) == want_warnings, name
        return
    assert want_errs is None, f"{name}: admitted, want {want_errs}"
    assert warnings == want_warnings, name
    if name == "workload provider input is normalized from routing intent on create":
        assert admitted["metadata"]["annotations"]["nvidia.com/workload-provider"] == "grove"
    if name.startswith("v1beta1 discovery annotation survives"):
        pod = worker(admitted)["podTemplate"]["metadata"]["annotations"]
        assert pod == {
            "nvidia.com/vllm-distributed-executor-backend": "RaY",
            "nvidia.com/dynamo-kube-discovery-mode": "container",
        }
