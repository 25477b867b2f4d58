"""Facts about rendered workloads that render (which writes bindings) and lint (which reads
them) must agree on: kinds, worker types, where a DCD's pod template keeps its annotations,
and which PodCliqueSet cliques belong to which component and which are GMS cliques.

One module, so the two sides cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from renderer.keys import COMPONENT_LABEL

#: Component types the operator checkpoints (and hashes as workers).
WORKER_TYPES = frozenset({"worker", "prefill", "decode"})

# `<component>-gms-<rank>`: the GPU memory service cliques of an inter-pod GMS component.


@cache
def _gms_clique() -> re.Pattern[str]:
    return re.compile(r"\A(?P<component>.+)-gms-(?P<rank>0|[1-9][0-9]*)\Z")


_MULTINODE_SUFFIXES = ("-ldr", "-wkr")


@cache
def _rank() -> re.Pattern[str]:
    return re.compile(r"0|[1-9][0-9]*")


def is_worker_type(component_type: str | None) -> bool:
    """worker, prefill or decode (any case, as the operator compares them)."""
    return isinstance(component_type, str) and component_type.lower() in WORKER_TYPES


def dcd_template_annotations(api_version: str) -> tuple[str, ...]:
    """Pod template annotations of a DCD: v1beta1 `spec.podTemplate.metadata.annotations`,
    v1alpha1 `spec.extraPodMetadata.annotations`."""
    if api_version.endswith("/v1beta1"):
        return ("spec", "podTemplate", "metadata", "annotations")
    return ("spec", "extraPodMetadata", "annotations")


def clique_component(name: str, labels: Mapping[str, Any] | None = None) -> tuple[str, bool]:
    """(component, is_gms) of a clique: `c`, `c-ldr`, `c-wkr`, `c-wkr-<rank>` or
    `c-gms-<rank>`, where `c` is the lower-cased component name.

    The clique's `nvidia.com/dynamo-component` label (the operator writes it on every
    clique) names the component, so a component whose own name ends like a role
    (`Decode-gms-0`, `Prefill-ldr`) is not taken for a GMS clique or for another
    component's leader. The name alone decides only for a clique without that label (or
    one whose name does not follow from it).
    """
    component = labels.get(COMPONENT_LABEL) if labels is not None else None
    if isinstance(component, str) and component:
        c = component.lower()
        if name in (c, f"{c}-ldr", f"{c}-wkr") or _is_rank(name, f"{c}-wkr-"):
            return c, False
        if _is_rank(name, f"{c}-gms-"):
            return c, True
    gms = _gms_clique().match(name)
    if gms is not None:
        return gms.group("component"), True
    for suffix in _MULTINODE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], False
    return name, False


def _is_rank(name: str, prefix: str) -> bool:
    rank = name.removeprefix(prefix)
    return rank != name and _rank().fullmatch(rank) is not None
