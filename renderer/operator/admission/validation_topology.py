"""Topology rules of the DGD webhook that need more than the spec: provider-override
composition (groveTopologyOverrideCompositionErrors) and component constraints checked
against a ClusterTopologyBinding (sharedValidation.validateTopologyConstraint).

A topology is ``(name, domains in level order)``; the reference oracle's cluster has none, so
the per-domain checks run only when a caller supplies one.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator.admission import provideroverride as po
from renderer.operator.admission.fielderrors import FieldError, Path, forbidden, invalid

_COMPOSITION_DETAIL = (
    "cannot be combined with spec.topologyConstraint or components[].topologyConstraint; use "
    "either the typed topology API or provider-native Grove topology overrides"
)


def _writes_topology(
    override: dict[str, Any] | None, provider: str, scope: str, component: dict[str, Any] | None
) -> bool:
    """providerOverrideWritesGroveTopology."""
    if override is None:
        return False
    target = override.get("target") or ""
    if not target:
        try:
            target = po.expected_target(
                provider, override.get("apiVersion") or "", scope, component
            )
        except po.TargetError:
            return False
    return po.writes_grove_topology(target, override.get("value"))


def override_composition_errors(
    spec: dict[str, Any], provider: str, path: Path
) -> list[FieldError]:
    """groveTopologyOverrideCompositionErrors."""
    if provider != po.WORKLOAD_PROVIDER_GROVE:
        return []
    errs: list[FieldError] = []
    if _writes_topology(spec.get("providerOverride"), provider, po.SCOPE_ROOT, None):
        errs.append(forbidden(path.child("providerOverride", "value"), _COMPOSITION_DETAIL))
    for i, component in enumerate(spec.get("components") or []):
        cpath = path.child("components").index(i)
        if _writes_topology(
            component.get("providerOverride"), provider, po.SCOPE_COMPONENT, component
        ):
            errs.append(forbidden(cpath.child("providerOverride", "value"), _COMPOSITION_DETAIL))
        multinode = component.get("multinode")
        if multinode is None:
            continue
        for role, scope in (
            ("leader", po.SCOPE_MULTINODE_LEADER),
            ("worker", po.SCOPE_MULTINODE_WORKER),
        ):
            role_spec = multinode.get(role)
            if role_spec is not None and _writes_topology(
                role_spec.get("providerOverride"), provider, scope, component
            ):
                errs.append(
                    forbidden(
                        cpath.child("multinode", role, "providerOverride", "value"),
                        _COMPOSITION_DETAIL,
                    )
                )
    return errs


def component_constraint_errors(
    constraint: dict[str, Any], path: Path, spec_pack: str, info: tuple[str, list[str]] | None
) -> list[FieldError]:
    """validateTopologyConstraint: the component's domain exists and is not wider."""
    if info is None:
        return []
    name, levels = info
    pack = str(constraint.get("packDomain") or "")
    pack_path = path.child("packDomain")
    index = {domain: i for i, domain in enumerate(levels)}
    if pack not in index:
        return [
            invalid(
                pack_path,
                pack,
                f"does not exist in ClusterTopology {go_quote(name)}; available domains: "
                "[" + " ".join(sorted(levels)) + "]",
            )
        ]
    if spec_pack and spec_pack in index and index[pack] < index[spec_pack]:
        return [
            invalid(
                pack_path,
                pack,
                "must be equal to or narrower than the deployment-level domain "
                + go_quote(spec_pack),
            )
        ]
    return []
