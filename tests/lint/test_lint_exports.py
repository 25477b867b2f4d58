"""render-drift on what `kubectl get dcd,pcs -o yaml` exports: the fields the API server and
the controllers populate are not drift (as `kubectl diff` and Argo CD treat them), so an
up-to-date workload lints clean against its DGD; a real spec change still is drift, at its
line in the export."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from render_support import EXAMPLES

from renderer.cli import main

DGD = EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml"
COMMITTED = EXAMPLES / "rendered" / "llama-disagg-v1beta1"
SNAPSHOTS = EXAMPLES / "snapshots"
DGD_UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"


def _live(obj: dict[str, Any], number: int, *, managed_fields: bool) -> dict[str, Any]:
    """`obj` as the cluster returns it after `kubectl apply` and the operator's reconcile."""
    live = copy.deepcopy(obj)
    meta = live["metadata"]
    applied = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    meta.setdefault("annotations", {}).update(
        {
            "kubectl.kubernetes.io/last-applied-configuration": applied + "\n",
            "nvidia.com/last-applied-hash": "b4c1d0e2f3a4",
            "nvidia.com/last-applied-generation": "3",
        }
    )
    meta.update(
        {
            "uid": f"5e0c6c2a-1b7d-4c55-9a0e-00000000000{number}",
            "resourceVersion": str(48213 + number),
            "generation": 3,
            "creationTimestamp": "2025-06-01T12:00:00Z",
            "ownerReferences": [
                {
                    "apiVersion": "nvidia.com/v1beta1",
                    "kind": "DynamoGraphDeployment",
                    "name": "llama-disagg",
                    "uid": DGD_UID,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        }
    )
    if managed_fields:
        meta["managedFields"] = [
            {
                "apiVersion": live["apiVersion"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {".": {}}},
                "manager": "dynamo-operator",
                "operation": "Update",
                "time": "2025-06-01T12:00:00Z",
            }
        ]
        meta["selfLink"] = f"/apis/{live['apiVersion']}/namespaces/dynamo-prod/x/{number}"
    live["status"] = {"conditions": [{"type": "Available", "status": "True"}]}
    return live


class _KubectlDumper(yaml.SafeDumper):
    """PyYAML quotes what YAML 1.1 reads as a boolean, except `y`/`n`, which kubectl's YAML
    (go-yaml) also reads as one and so quotes: an env value `"n"` stays a string."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = '"' if value in {"y", "Y", "n", "N"} else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_KubectlDumper.add_representer(str, _represent_str)


def _dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_KubectlDumper, sort_keys=True)


def _committed(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((COMMITTED / name).read_text()) if d]


def _export(objects: list[dict[str, Any]], *, as_list: bool, managed_fields: bool) -> str:
    live = [_live(o, n, managed_fields=managed_fields) for n, o in enumerate(objects)]
    if as_list:  # one `kind: List`, keys sorted as kubectl prints them
        listed = {"apiVersion": "v1", "items": live, "kind": "List", "metadata": {}}
        return _dump(listed)
    return "---\n".join(_dump(o) for o in live)


def _lint(path: Path, capsys: pytest.CaptureFixture[str], *dgd: str) -> tuple[int, Any]:
    code = main(
        [
            "--no-config",
            "lint",
            str(path),
            "--checkpoint",
            str(SNAPSHOTS),
            "--dgd",
            *dgd,
            "--format",
            "json",
        ]
    )
    return code, json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.parametrize("as_list", [False, True], ids=["documents", "list"])
@pytest.mark.parametrize("managed_fields", [False, True], ids=["plain", "managed-fields"])
@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_export_of_an_up_to_date_workload_lints_clean(
    target: str,
    as_list: bool,
    managed_fields: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    export = tmp_path / "live.yaml"
    export.write_text(
        _export(_committed(f"{target}.yaml"), as_list=as_list, managed_fields=managed_fields)
    )
    code, findings = _lint(export, capsys, str(DGD))
    assert (code, findings) == (0, [])


def test_a_real_spec_change_in_an_export_is_drift_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    objects = _committed("dcd.yaml")
    decode = next(o for o in objects if "vllmdecodeworker" in o["metadata"]["name"])
    assert decode["spec"]["replicas"] == 2
    decode["spec"]["replicas"] = 7
    export = tmp_path / "live.yaml"
    text = _export(objects, as_list=True, managed_fields=True)
    export.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.strip() == "replicas: 7")
    code, findings = _lint(export, capsys, str(DGD))
    assert code == 1
    assert [(f["rule"], f["line"]) for f in findings] == [("render-drift", line)]
    assert "\n-  replicas: 7\n+  replicas: 2" in findings[0]["message"]


def test_server_fields_in_the_spec_still_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the server's own places are left out: a `uid` written into a pod template's
    labels is a change like any other."""
    objects = _committed("dcd.yaml")
    frontend = objects[0]
    frontend["spec"].setdefault("podTemplate", {}).setdefault("metadata", {}).setdefault(
        "labels", {}
    )["uid"] = "x"
    export = tmp_path / "live.yaml"
    export.write_text(_export(objects, as_list=False, managed_fields=False))
    code, findings = _lint(export, capsys, str(DGD))
    assert code == 1
    assert {f["rule"] for f in findings} == {"render-drift"}
