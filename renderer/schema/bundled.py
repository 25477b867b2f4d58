"""The schemas shipped with the tool (`schemas/*.json`), looked up by apiVersion and kind."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from renderer.constants import CHECKPOINT_KIND, DCD_KIND, DGD_KIND, PCS_KIND
from renderer.operator import consts
from renderer.packagedata import package_text

SchemaKey = tuple[str, str]  # (apiVersion, kind)

# apiVersion, kind -> file in renderer/schemas (the repository's schemas/ directory).
BUNDLED: dict[SchemaKey, str] = {
    (consts.API_VERSION_V1ALPHA1, DGD_KIND): "dgd-v1alpha1.json",
    (consts.API_VERSION_V1BETA1, DGD_KIND): "dgd-v1beta1.json",
    (consts.API_VERSION_V1ALPHA1, DCD_KIND): "dcd-v1alpha1.json",
    (consts.API_VERSION_V1BETA1, DCD_KIND): "dcd-v1beta1.json",
    (consts.API_VERSION_V1ALPHA1, CHECKPOINT_KIND): "dynamocheckpoint-v1alpha1.json",
    (consts.GROVE_API_VERSION, PCS_KIND): "podcliqueset-v1alpha1.json",
}


@cache
def _load(file_name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(package_text("schemas", file_name))
    return schema


def bundled_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The shipped schema for this apiVersion and kind, or None when none is shipped."""
    file_name = BUNDLED.get((api_version, kind))
    return None if file_name is None else _load(file_name)
