"""`render -o DIR --kustomization`: DIR/kustomization.yaml listing the files render owns.

A DCD's file name carries the worker hash, so a hand-kept kustomization breaks whenever a
worker spec changes while every hook passes. Render writes this one with the folder,
from the same plan: its `resources` are exactly the files this render writes there (in
file-name order), and it starts with the same `# Source:` line as they do, so it is owned
like them: rewritten when the list changes, listed by `--check` when stale, and removed
as a leftover by a render without `--kustomization`. A `kustomization.yaml` that render
did not write (another first line) is never touched: rendering over it is an error.

Pure: the caller reads the folder.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from renderer.yamlout import dump_object, source_comment

FILE_NAME: Final = "kustomization.yaml"
API_VERSION: Final = "kustomize.config.k8s.io/v1beta1"
KIND: Final = "Kustomization"


def kustomization(source: str, file_names: Iterable[str]) -> bytes:
    """The kustomization.yaml of a folder of rendered files (`file_names` in it)."""
    document = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "resources": sorted(file_names),
    }
    return (source_comment(source) + dump_object(document)).encode("utf-8")
