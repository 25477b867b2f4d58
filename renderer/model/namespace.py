"""The namespace a DGD is rendered for: its own, or the one given with `-n/--namespace`.

`kubectl apply -n NS` and `helm template -n NS` put an object without `metadata.namespace`
into NS and refuse one whose own namespace is another; `with_namespace` does the same for
a DGD before it is rendered, so upstream's example DGDs (which carry no namespace) render
as they are. Pure: no I/O.
"""

from __future__ import annotations

import re

from renderer.constants import NAMESPACE_OPTION
from renderer.errors import InputError, UsageError
from renderer.record import replace
from renderer.source.model import SourceObject

# A namespace is a DNS-1123 label (the API server's rule).
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")


def check_namespace(namespace: str, option: str = NAMESPACE_OPTION) -> str:
    """`namespace` when it is a valid Kubernetes namespace, else a UsageError."""
    if len(namespace) > 63 or not _DNS1123_LABEL.match(namespace):
        raise UsageError(
            f"{option} {namespace!r} is not a valid Kubernetes namespace (lower-case letters,"
            " digits and '-', at most 63 characters)"
        )
    return namespace


def with_namespace(
    dgd: SourceObject, namespace: str | None, option: str = NAMESPACE_OPTION
) -> SourceObject:
    """`dgd` placed in `namespace` (None: as it is).

    A DGD without `metadata.namespace` (or with an empty one) gets it; one that names the
    same namespace is unchanged; one that names another is an InputError at its
    `metadata.namespace`, as kubectl refuses it.
    """
    if namespace is None:
        return dgd
    metadata = dgd.data.get("metadata")
    if not isinstance(metadata, dict):
        return dgd  # the model reports a missing or malformed metadata at its place
    own = metadata.get("namespace")
    if own == namespace:
        return dgd
    if own not in (None, ""):
        mark = dgd.mark(("metadata", "namespace"), key=False)
        shown = own if isinstance(own, str) else repr(own)
        name = metadata.get("name")
        named = "(unnamed)" if name in (None, "") else name if isinstance(name, str) else repr(name)
        raise InputError(
            f"DGD {named} is in namespace {shown!r}, which does not match"
            f" the namespace {namespace!r} given with {option} (kubectl refuses this too):"
            " drop the option, or make the two agree",
            dgd.file,
            mark.line,
            mark.column,
        )
    data = dict(dgd.data)
    data["metadata"] = {**metadata, "namespace": namespace}
    return replace(dgd, data=data)
