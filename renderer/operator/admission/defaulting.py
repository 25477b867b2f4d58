"""internal/webhook/defaulting/dynamographdeployment_handler.go: DGDDefaulter.Default on CREATE.

On a v1beta1 DGD JSON dict (after conversion and CRD defaults), in the operator's order:

1. the workload provider, derived from routing intent and written to
   ``nvidia.com/workload-provider`` (any value the user wrote is replaced): ``grove`` when the
   Grove gate is on and ``nvidia.com/enable-grove`` is not ``false`` (case-insensitive), else
   ``component``;
2. the root provider-override target (provideroverride.DefaultTarget);
3. per component: ``replicas: 1`` when unset, ``minAvailable: 1`` when unset on Grove, the
   component and multinode leader/worker override targets;
4. ``nvidia.com/dynamo-operator-origin-version`` = the operator version, unless present.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.strings import to_lower
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission import provideroverride as po
from renderer.operator.config import OperatorConfig

ANNOTATION_WORKLOAD_PROVIDER = consts.KUBE_ANNOTATION_WORKLOAD_PROVIDER
ANNOTATION_ENABLE_GROVE = consts.KUBE_ANNOTATION_ENABLE_GROVE
ANNOTATION_ORIGIN_VERSION = consts.KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION
WORKLOAD_PROVIDER_GROVE = consts.WORKLOAD_PROVIDER_GROVE
WORKLOAD_PROVIDER_COMPONENT = consts.WORKLOAD_PROVIDER_COMPONENT


def default_workload_provider(dgd: dict[str, Any], grove_enabled: bool) -> str:
    """defaultWorkloadProvider for CREATE: choose and record the provider (mutates ``dgd``)."""
    metadata = dgd.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    provider = WORKLOAD_PROVIDER_COMPONENT
    if grove_enabled and to_lower(str(annotations.get(ANNOTATION_ENABLE_GROVE, ""))) != "false":
        provider = WORKLOAD_PROVIDER_GROVE
    annotations[ANNOTATION_WORKLOAD_PROVIDER] = provider
    metadata["annotations"] = annotations
    return provider


def default(dgd: dict[str, Any], config: OperatorConfig | None = None) -> dict[str, Any]:
    """DGDDefaulter.Default for a CREATE request: a defaulted copy of the v1beta1 ``dgd``.

    Reads the Grove feature gate and the operator version the webhook stamps from ``config``
    (default: the pinned configuration, Grove on, version 1.5.0).
    """
    cfg = config if config is not None else OperatorConfig()
    out = deep_copy(dgd)
    provider = default_workload_provider(out, cfg.gates.grove)
    spec = out.setdefault("spec", {})
    if spec.get("providerOverride") is not None:
        po.default_target(spec["providerOverride"], provider, po.SCOPE_ROOT, None)
    for component in spec.get("components") or []:
        if component.get("replicas") is None:
            component["replicas"] = 1
        if provider == WORKLOAD_PROVIDER_GROVE and component.get("minAvailable") is None:
            component["minAvailable"] = 1
        if component.get("providerOverride") is not None:
            po.default_target(
                component["providerOverride"], provider, po.SCOPE_COMPONENT, component
            )
        multinode = component.get("multinode")
        if multinode is not None:
            for role, scope in (
                ("leader", po.SCOPE_MULTINODE_LEADER),
                ("worker", po.SCOPE_MULTINODE_WORKER),
            ):
                spec_role = multinode.get(role)
                if spec_role is not None and spec_role.get("providerOverride") is not None:
                    po.default_target(spec_role["providerOverride"], provider, scope, component)
    annotations = out["metadata"]["annotations"]
    if ANNOTATION_ORIGIN_VERSION not in annotations:
        annotations[ANNOTATION_ORIGIN_VERSION] = cfg.operator_version
    return out
