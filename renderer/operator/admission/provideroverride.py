"""internal/provideroverride/registry.go: provider-override targets and ownership boundaries.

Shared by defaulting (``default_target``) and validation (``expected_target``,
``validate_value``, ``writes_grove_topology``). Components are v1beta1
``DynamoComponentDeploymentSharedSpec`` JSON dicts.

``validate_value`` first checks the value against the Grove Go type of its target (see
grove_shape: the fields a topology override uses are modelled; any other field is refused
with ``NotReproducedError`` rather than judged differently from the operator), then the
Dynamo ownership boundary.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

from renderer.goruntime.strconv import quote as _q
from renderer.operator import consts
from renderer.operator.errors import OperatorError
from renderer.operator.v1beta1_helpers import (
    is_inter_pod_gms_enabled,
    is_multinode,
    uses_pcsg,
)

SCOPE_ROOT = "root"
SCOPE_COMPONENT = "component"
SCOPE_MULTINODE_LEADER = "multinode.leader"
SCOPE_MULTINODE_WORKER = "multinode.worker"

TARGET_POD_CLIQUE_SET = consts.PCS_KIND
TARGET_POD_CLIQUE_TEMPLATE_SPEC = "PodCliqueTemplateSpec"
TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG = "PodCliqueScalingGroupConfig"

GROVE_API_VERSION = consts.GROVE_API_VERSION
WORKLOAD_PROVIDER_GROVE = consts.WORKLOAD_PROVIDER_GROVE


class TargetError(OperatorError):
    """ExpectedTarget's error (its text becomes a Forbidden detail)."""


class ValueError_(NamedTuple):
    """provideroverride.ValueError: a dotted path inside override.value and its detail."""

    path: str
    detail: str
    ownership_violation: bool = False


def expected_target(
    provider: str, api_version: str, scope: str, component: dict[str, Any] | None
) -> str:
    """ExpectedTarget: the one target of this provider context, or TargetError."""
    if provider != WORKLOAD_PROVIDER_GROVE:
        raise TargetError(f"workload provider {_q(provider)} does not support provider overrides")
    if api_version != GROVE_API_VERSION:
        raise TargetError(
            f"unsupported Grove apiVersion {_q(api_version)}; "
            f"supported value is {_q(GROVE_API_VERSION)}"
        )
    if scope == SCOPE_ROOT:
        return TARGET_POD_CLIQUE_SET
    if scope == SCOPE_COMPONENT:
        if component is None:
            raise TargetError(f"component context is required for scope {_q(scope)}")
        if uses_pcsg(component):
            return TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG
        return TARGET_POD_CLIQUE_TEMPLATE_SPEC
    if scope in (SCOPE_MULTINODE_LEADER, SCOPE_MULTINODE_WORKER):
        if component is None or not is_multinode(component):
            raise TargetError(f"scope {_q(scope)} requires a multinode component")
        if is_inter_pod_gms_enabled(component):
            raise TargetError(f"scope {_q(scope)} is not supported for inter-pod GMS components")
        return TARGET_POD_CLIQUE_TEMPLATE_SPEC
    raise TargetError(f"unsupported provider override scope {_q(scope)}")


def default_target(
    override: dict[str, Any], provider: str, scope: str, component: dict[str, Any] | None
) -> None:
    """DefaultTarget: set ``target`` in place when unset and the context resolves."""
    if override.get("target"):
        return
    with contextlib.suppress(TargetError):
        override["target"] = expected_target(
            provider, override.get("apiVersion") or "", scope, component
        )


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def validate_value(target: str, value: Any) -> list[ValueError_]:
    """ValidateValue over the decoded ``override.value`` (None when absent)."""
    if not _is_object(value):
        return [ValueError_("", _not_object_detail(value))]
    from renderer.operator.admission.grove_shape import known_shape_error  # noqa: PLC0415 - the Grove shape checks only for a DGD with a provider override

    shape = known_shape_error(target, value)
    if shape is not None:
        return [ValueError_("", f"does not match the registered {target} schema: {shape}")]
    if target == TARGET_POD_CLIQUE_SET:
        return _validate_pod_clique_set_value(value)
    if target in (TARGET_POD_CLIQUE_TEMPLATE_SPEC, TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG):
        return _validate_topology_owner(value, "")
    return [ValueError_("", f"target {_q(target)} has no registered ownership policy")]


def _not_object_detail(value: Any) -> str:
    """decodeObject's detail for a value that is not a JSON object."""
    if value is None:
        # An absent RawExtension has empty bytes; a JSON null decodes to a nil map.
        return "must be a JSON object"
    kind = "array" if isinstance(value, list) else "bool" if isinstance(value, bool) else None
    if kind is None:
        kind = "string" if isinstance(value, str) else "number"
    # The Go type as the reference oracle's Go (1.27, encoding/json over json/v2) names it;
    # Go 1.26 would write map[string]json.RawMessage (see grove_shape).
    return (
        f"must be a JSON object: json: cannot unmarshal {kind} into Go value of type "
        "map[string]jsontext.Value"
    )


def writes_grove_topology(target: str, value: Any) -> bool:
    """WritesGroveTopology: does the value carry a topologyConstraint at the target's place."""
    if not _is_object(value):
        return False
    if target == TARGET_POD_CLIQUE_SET:
        spec = value.get("spec")
        if not _is_object(spec):
            return False
        template = spec.get("template")
        if not _is_object(template):
            return False
        return "topologyConstraint" in template
    if target in (TARGET_POD_CLIQUE_TEMPLATE_SPEC, TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG):
        return "topologyConstraint" in value
    return False


def _validate_pod_clique_set_value(root: dict[str, Any]) -> list[ValueError_]:
    errs = _reject_unknown(root, "", ("spec",))
    spec, err = _required_object(root, "spec", "spec")
    if err is not None:
        return [*errs, err]
    assert spec is not None
    errs += _reject_unknown(spec, "spec", ("template",))
    template, err = _required_object(spec, "template", "spec.template")
    if err is not None:
        return [*errs, err]
    assert template is not None
    return errs + _validate_topology_owner(template, "spec.template")


def _validate_topology_owner(root: dict[str, Any], path: str) -> list[ValueError_]:
    errs = _reject_unknown(root, path, ("topologyConstraint",))
    _, err = _required_object(root, "topologyConstraint", _join(path, "topologyConstraint"))
    if err is not None:
        errs.append(err)
    return errs


def _required_object(
    root: dict[str, Any], key: str, path: str
) -> tuple[dict[str, Any] | None, ValueError_ | None]:
    if key not in root:
        return None, ValueError_(path, "is required")
    value = root[key]
    if not _is_object(value):
        return None, ValueError_(path, _not_object_detail(value))
    return value, None


def _reject_unknown(root: dict[str, Any], path: str, allowed: tuple[str, ...]) -> list[ValueError_]:
    return [
        ValueError_(_join(path, key), "is Dynamo-owned or not enabled for provider override", True)
        for key in sorted(k for k in root if k not in allowed)
    ]


def _join(parent: str, child: str) -> str:
    return child if not parent else parent + "." + child
