#!/usr/bin/env python3
"""Generate renderer/data/dgd-crd-defaults.json from the pinned DGD CRD.

Reads ``deploy/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml`` of
ai-dynamo/dynamo at the pinned commit (from a git mirror, or a file given with --crd) and
keeps, per served version, only the schema skeleton that leads to a ``default:`` value:
``properties``, ``additionalProperties`` and ``items`` nodes, with ``default`` and
``nullable`` where the schema sets them. That is all apiextensions structural defaulting
reads, so renderer/operator/admission/crd_defaults.py needs nothing else.

    python scripts/gen_dgd_crd_defaults.py --dynamo DYNAMO_GIT_DIR
    python scripts/gen_dgd_crd_defaults.py --crd path/to/crd.yaml
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

REV = "2a6da14c83617f5412caba5777dbf0e2399e9c5f"
CRD_PATH = "deploy/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml"


def skeleton(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The part of one schema node that defaulting reads, or None when it has no default."""
    out: dict[str, Any] = {}
    if "default" in schema:
        out["default"] = schema["default"]
        if schema.get("nullable"):
            out["nullable"] = True
    props = {}
    for key, sub in (schema.get("properties") or {}).items():
        kept = skeleton(sub)
        if kept is not None:
            props[key] = kept
    if props:
        out["properties"] = dict(sorted(props.items()))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        kept = skeleton(extra)
        if kept is not None:
            out["additionalProperties"] = kept
    items = schema.get("items")
    if isinstance(items, dict):
        kept = skeleton(items)
        if kept is not None:
            out["items"] = kept
    return out or None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--dynamo", help="git dir of an ai-dynamo/dynamo mirror")
    src.add_argument("--crd", help="the CRD file itself")
    ap.add_argument("-o", "--output", default="renderer/data/dgd-crd-defaults.json")
    args = ap.parse_args()
    if args.crd:
        text = Path(args.crd).read_text("utf-8")
    else:
        text = subprocess.run(
            ["git", f"--git-dir={args.dynamo}", "show", f"{REV}:{CRD_PATH}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    crd = YAML(typ="safe").load(text)
    versions = {}
    for version in crd["spec"]["versions"]:
        kept = skeleton(version["schema"]["openAPIV3Schema"])
        versions[version["name"]] = kept or {}
    out = {
        "source": f"ai-dynamo/dynamo {REV}:{CRD_PATH}",
        "generator": "scripts/gen_dgd_crd_defaults.py",
        "versions": versions,
    }
    Path(args.output).write_text(json.dumps(out, indent=1, sort_keys=False) + "\n")
    print(f"{args.output}: versions {sorted(versions)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
