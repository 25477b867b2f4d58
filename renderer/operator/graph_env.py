"""graph.go's env and DGD-template pieces: MergeEnvs, AddStandardEnvVars,
applyDGDTemplateDefaults (DGD env, kv-transfer policy, propagated DGD metadata).

All functions follow the Go ones; those taking a component modify it in place (the caller,
generatePodSpecForComponent, works on a deep copy).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from renderer.operator import consts
from renderer.operator.component_worker import (
    TOPOLOGY_MOUNT_PATH,
    topology_label_volume,
    topology_label_volume_mount,
)
from renderer.operator.config import OperatorConfig
from renderer.operator.v1beta1_helpers import (
    ensure_main_container,
    ensure_pod_template,
    merge_low_priority_metadata,
)

JSON = dict[str, Any]

#: dgdPropagatedAnnotationKeys: DGD metadata annotations copied onto each component.
DGD_PROPAGATED_ANNOTATION_KEYS = (
    consts.KUBE_ANNOTATION_ENABLE_METRICS,
    consts.KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND,
    consts.KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    consts.KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    consts.KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
)

_KV_TRANSFER_ENV_NAMES = frozenset(
    {
        consts.ENV_KV_TRANSFER_DOMAIN,
        consts.ENV_KV_TRANSFER_ENFORCEMENT,
        consts.ENV_KV_TRANSFER_PREFERRED_WEIGHT,
        consts.ENV_TOPOLOGY_ENABLED,
        consts.ENV_TOPOLOGY_MOUNT_PATH,
    }
)


def merge_envs(common: Sequence[JSON] | None, specific: Sequence[JSON] | None) -> list[JSON]:
    """MergeEnvs: one entry per name (the later one wins), sorted by name.

    Go sorts by byte order of the UTF-8 names; Python's code-point order is the same.
    """
    by_name: dict[str, JSON] = {}
    for env in [*(common or ()), *(specific or ())]:
        by_name[env.get("name", "")] = env
    return [by_name[name] for name in sorted(by_name)]


def add_standard_env_vars(container: JSON, operator_config: OperatorConfig) -> None:
    """AddStandardEnvVars: infrastructure addresses as env; the container's env wins."""
    infra = operator_config.infrastructure
    standard: list[JSON] = []
    for name, value in (
        ("NATS_SERVER", infra.nats_address),
        ("ETCD_ENDPOINTS", infra.etcd_address),
        ("MODEL_EXPRESS_URL", infra.model_express_url),
        ("PROMETHEUS_ENDPOINT", infra.prometheus_endpoint),
    ):
        if value:
            standard.append({"name": name, "value": value})
    container["env"] = merge_envs(standard, container.get("env"))


def is_worker_component(component_type: str) -> bool:
    """IsWorkerComponent: worker, prefill or decode."""
    return component_type in {
        consts.COMPONENT_TYPE_WORKER,
        consts.COMPONENT_TYPE_PREFILL,
        consts.COMPONENT_TYPE_DECODE,
    }


def apply_dgd_template_defaults(
    component: JSON | None,
    dynamo_deployment: JSON | None,
    grove_cluster_topology_domains: Sequence[str] | None,
) -> None:
    """applyDGDTemplateDefaults (in place on ``component``)."""
    if component is None or dynamo_deployment is None:
        return
    spec = dynamo_deployment.get("spec") or {}
    if spec.get("env"):
        main = ensure_main_container(ensure_pod_template(component))
        main["env"] = merge_envs(spec["env"], main.get("env"))
    if should_apply_kv_transfer_policy_to_worker_component(component, dynamo_deployment):
        apply_kv_transfer_policy_to_worker_component(
            component, spec["experimental"]["kvTransferPolicy"], grove_cluster_topology_domains
        )
    metadata = dynamo_deployment.get("metadata") or {}
    propagate_dgd_annotations(metadata.get("annotations"), component)
    propagate_dgd_spec_metadata(spec.get("annotations"), spec.get("labels"), component)


def should_apply_kv_transfer_policy_to_worker_component(
    component: JSON | None, dynamo_deployment: JSON | None
) -> bool:
    """shouldApplyKvTransferPolicyToWorkerComponent."""
    if component is None or dynamo_deployment is None:
        return False
    experimental = (dynamo_deployment.get("spec") or {}).get("experimental")
    kvt = experimental.get("kvTransferPolicy") if experimental is not None else None
    if kvt is None:
        return False
    if not (kvt.get("labelKey", "") or kvt.get("clusterTopologyName", "")):
        return False
    return is_worker_component(component.get("type", ""))


def apply_kv_transfer_policy_to_worker_component(
    component: JSON | None,
    kvt: JSON | None,
    grove_cluster_topology_domains: Sequence[str] | None,
) -> None:
    """applyKvTransferPolicyToWorkerComponent: policy env, topology mount and volume."""
    if component is None or kvt is None:
        return
    pod_template = ensure_pod_template(component)
    main = ensure_main_container(pod_template)
    main["env"] = merge_envs(
        remove_worker_kv_transfer_policy_env_vars(main.get("env")),
        worker_kv_transfer_policy_env_vars(kvt),
    )
    main["volumeMounts"] = append_topology_label_volume_mount(
        main.get("volumeMounts"), topology_label_volume_mount()
    )
    spec = pod_template.setdefault("spec", {})
    spec["volumes"] = append_topology_label_volume(
        spec.get("volumes"), topology_label_volume(kvt, grove_cluster_topology_domains)
    )


def apply_kv_transfer_policy_topology_annotations(
    annotations: dict[str, str] | None, kvt: JSON | None
) -> None:
    """applyKvTransferPolicyTopologyAnnotations (in place; used on clique metadata)."""
    if annotations is None:
        return
    for key in consts.kube_topology_source_annotation_keys():
        annotations.pop(key, None)
    if kvt is None:
        return
    if kvt.get("labelKey", ""):
        annotations[consts.KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY] = kvt["labelKey"]
    if kvt.get("clusterTopologyName", ""):
        annotations[consts.KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = kvt[
            "clusterTopologyName"
        ]


def format_float32(value: float) -> str:
    """strconv.FormatFloat(float64(float32(v)), 'f', -1, 32): shortest round-trip digits."""
    f32 = struct.unpack("<f", struct.pack("<f", value))[0]
    text = repr(f32)
    for precision in range(1, 10):
        candidate = f"{f32:.{precision}g}"
        if struct.unpack("<f", struct.pack("<f", float(candidate)))[0] == f32:
            text = candidate
            break
    return format(Decimal(text), "f")


def worker_kv_transfer_policy_env_vars(kvt: JSON) -> list[JSON]:
    """workerKvTransferPolicyEnvVars."""
    enforcement = kvt.get("enforcement", "") or "required"
    envs: list[JSON] = [
        {"name": consts.ENV_KV_TRANSFER_DOMAIN, "value": kvt.get("domain", "")},
        {"name": consts.ENV_KV_TRANSFER_ENFORCEMENT, "value": enforcement},
        {"name": consts.ENV_TOPOLOGY_ENABLED, "value": "true"},
        {"name": consts.ENV_TOPOLOGY_MOUNT_PATH, "value": TOPOLOGY_MOUNT_PATH},
    ]
    if kvt.get("preferredWeight") is not None:
        envs.append(
            {
                "name": consts.ENV_KV_TRANSFER_PREFERRED_WEIGHT,
                "value": format_float32(float(kvt["preferredWeight"])),
            }
        )
    return envs


def remove_worker_kv_transfer_policy_env_vars(envs: list[JSON] | None) -> list[JSON] | None:
    """removeWorkerKvTransferPolicyEnvVars."""
    if not envs:
        return envs
    return [env for env in envs if env.get("name", "") not in _KV_TRANSFER_ENV_NAMES]


def append_topology_label_volume_mount(mounts: list[JSON] | None, mount: JSON) -> list[JSON]:
    """appendTopologyLabelVolumeMount: drop same-name or same-path mounts, append."""
    kept = [
        m
        for m in mounts or []
        if m.get("name", "") != mount["name"] and m.get("mountPath", "") != mount["mountPath"]
    ]
    return [*kept, mount]


def append_topology_label_volume(volumes: list[JSON] | None, volume: JSON) -> list[JSON]:
    """appendTopologyLabelVolume: drop same-name volumes, append."""
    return [*(v for v in volumes or [] if v.get("name", "") != volume["name"]), volume]


def propagate_dgd_annotations(dgd_annotations: dict[str, str] | None, component: JSON) -> None:
    """propagateDGDAnnotations: the five DGD annotations, unless the component has them."""
    annotations = ensure_pod_template(component)["metadata"]["annotations"]
    for key in DGD_PROPAGATED_ANNOTATION_KEYS:
        if dgd_annotations and key in dgd_annotations and key not in annotations:
            annotations[key] = dgd_annotations[key]


def propagate_dgd_spec_metadata(
    annotations: dict[str, str] | None, labels: dict[str, str] | None, component: JSON
) -> None:
    """propagateDGDSpecMetadata: DGD spec annotations/labels as low-priority defaults."""
    metadata = ensure_pod_template(component)["metadata"]
    metadata["annotations"] = merge_low_priority_metadata(metadata.get("annotations"), annotations)
    metadata["labels"] = merge_low_priority_metadata(metadata.get("labels"), labels)
