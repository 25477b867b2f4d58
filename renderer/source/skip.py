"""Which YAML files of a repository are not Kubernetes objects, for `lint` to skip.

A GitOps repository holds YAML that is not a Kubernetes object: Helm `values.yaml`, chart
templates (`{{ ... }}` directives, which are not YAML until Helm renders them), kustomize
patches (a list of operations, or a mapping without `kind`), CI configs. `kubectl apply`
is never run on those, so lint counts them as skipped instead of stopping. A file that
looks like a Kubernetes object (a top-level `apiVersion:` and `kind:`) but does not read
as one is still an error, with its place.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path as FsPath

from renderer.errors import InputError

# What the reader says about YAML that is not a Kubernetes object (its other errors, such
# as a file too large or not UTF-8, are errors whatever the file holds).
_NOT_AN_OBJECT = (
    "invalid YAML",
    "object has no apiVersion",
    "object has no kind",
    "document ",  # "document N is a list/scalar, not a Kubernetes object"
    "apiVersion must be",
    "kind must be",
)
# `apiVersion:` / `kind:` as keys of a top-level mapping, or of the items of a top-level
# list (`- apiVersion: v1` then `  kind: ConfigMap`).


@cache
def _top_level() -> re.Pattern[bytes]:
    return re.compile(rb"^(?:- |  )?(apiVersion|kind)[ \t]*:", re.MULTILINE)


def is_chart_template(path: str) -> bool:
    """A file in a Helm chart's `templates/` folder (the chart's Chart.yaml beside it)."""
    parent = FsPath(path).parent
    for folder in (parent, *parent.parents):
        if folder.name == "templates":
            return (folder.parent / "Chart.yaml").is_file()
    return False


def looks_like_object(data: bytes) -> bool:
    """A top-level `apiVersion:` and `kind:` (in some document, or list item)."""
    found = {m.group(1) for m in _top_level().finditer(data)}
    return found == {b"apiVersion", b"kind"}


def not_kubernetes(data: bytes, error: InputError) -> bool:
    """True when `error`, raised reading `data`, means the file is YAML of another kind
    (skip it), False when it is a broken Kubernetes object (report it)."""
    if not error.message.startswith(_NOT_AN_OBJECT):
        return False
    if b"{{" in data and error.message.startswith("invalid YAML"):
        return True  # a template (Helm, or another `{{ }}` tool): not YAML before rendering
    return not looks_like_object(data)
