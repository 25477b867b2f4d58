"""Which files `lint` may skip: only those kubectl refuses too, and plainly not manifests.

A GitOps repository holds YAML and JSON that are not Kubernetes objects: Helm `values.yaml`
and chart templates (`{{ ... }}` directives, which are not YAML until Helm renders them),
kustomize patches, CI configs, `package.json`. `kubectl apply -f` refuses every one of
them, so lint counts them as skipped instead of stopping. The rule is that of reading:
a file is skipped only when (1) reading it failed with an error kubectl raises too (a
YAML or JSON syntax error, a bad `---` line, a document that is not a mapping, an object
without a kind, items that are not a list), never one only this tool raises (a duplicate
key, a budget), and (2) it is plainly not a manifest: no top-level `apiVersion` and
`kind`, or a template (`{{` outside a comment, or a file in a Helm chart's `templates/`
folder found by walking a folder, not named on the command line). Anything else that does
not read is an error with its place.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path as FsPath

from renderer.errors import InputError
from renderer.source.text import decode_as_kubectl

# The reader's messages for what kubectl refuses as well (its YAML and JSON decoders, its
# separator check, its unstructured decoding).
_KUBECTL_REFUSES = (
    "invalid YAML",  # syntax errors, and "invalid YAML document separator"
    "invalid JSON",
    "document ",  # "document N is a list/scalar, not a Kubernetes object"
    "object has no kind",
    "kind must be",
    "item ",  # an item of a list that is no object, or itself a list
    "json: ",  # a number Go cannot decode, NaN or an infinity
    # go-yaml's and sigs.k8s.io/yaml's own refusals (`{{ .Values.x }}` is a map as a key)
    "invalid map key",
    "unsupported map key",
    "unknown anchor",
    "anchor '",
    "cannot decode",
    "map merge requires",
    "!!binary value",
    "found incompatible YAML document",
)
_PARSE_ERRORS = ("invalid YAML", "invalid JSON")


@cache
def _top_level() -> re.Pattern[str]:
    # `apiVersion:` / `kind:` as keys of a top-level mapping, or of the items of a
    # top-level list (`- apiVersion: v1` then `  kind: ConfigMap`), or as JSON keys
    return re.compile(r'^(?:- |  )?(apiVersion|kind)[ \t]*:|"(apiVersion|kind)"[ \t]*:', re.M)


@cache
def _directive() -> re.Pattern[str]:
    return re.compile(r"^(?![ \t]*#).*?\{\{", re.M)


def is_chart_template(path: str) -> bool:
    """A file in a Helm chart's `templates/` folder (the chart's Chart.yaml beside it)."""
    parent = FsPath(path).parent
    for folder in (parent, *parent.parents):
        if folder.name == "templates":
            return (folder.parent / "Chart.yaml").is_file()
    return False


def _text(data: bytes) -> str:
    try:
        return decode_as_kubectl(data, "", len(data))[0]
    except InputError:  # UTF-32: nothing kubectl reads
        return ""


def looks_like_object(data: bytes) -> bool:
    """A top-level `apiVersion:` and `kind:` (in some document, or list item)."""
    found = {m.group(1) or m.group(2) for m in _top_level().finditer(_text(data))}
    return found == {"apiVersion", "kind"}


def skippable(data: bytes, error: InputError, *, chart_template: bool = False) -> bool:
    """True when a file whose read raised `error` may be skipped and counted: kubectl
    refuses it too, and it is plainly not a manifest (see the module docstring).
    `chart_template`: the file was found in a chart's `templates/` folder."""
    if not error.message.startswith(_KUBECTL_REFUSES):
        return False
    if chart_template:
        return True
    if error.message.startswith(_PARSE_ERRORS) and _directive().search(_text(data)):
        return True  # a template (Helm, or another `{{ }}` tool): not YAML before rendering
    return not looks_like_object(data)
