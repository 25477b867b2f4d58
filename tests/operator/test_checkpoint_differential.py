"""Differential test of checkpoint mode against the oracle on generated DGDs and checkpoints.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). A seeded generator writes DGDs whose workers
enable checkpoints (startup and deletion policies, checkpointRef, with and without a UID)
and DynamoCheckpoint objects around them: named as the operator looks for them or not, with
the right or a wrong ``status.checkpointID``, the ID in ``identityHash`` or the label only,
Ready or not, owner references and finalizers or not. For each, ``render_operator`` must give
the oracle's refusal message, or its DCDs, checkpoint UID and per-component resolution.
Object names use DGDCheckpointID to hit the operator's name; the oracle alone judges the
outcome. About half a minute.
"""

from __future__ import annotations

import copy
import random
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from example_budget import examples
from oracle_corpus import diff_paths
from ruamel.yaml import YAML
from test_admission_conversion_differential import ORACLE

from renderer.operator.checkpoint_hash import checkpoint_name, dgd_checkpoint_id
from renderer.operator.config import OperatorConfig
from renderer.operator.render import OperatorRenderError, render_operator

pytestmark = pytest.mark.skipif(
    not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"
)
NAMESPACE = "dynamo"
UID = "aaaaaaaa-1111-4222-8333-444444444444"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"
EXAMPLES = examples(60, inner=24)
JSON = dict[str, Any]
# The oracle writes YAML 1.1: a hex hash like 6037e369 is a string there, a float in 1.2.
_HEX = re.compile(r"^(\s*(?:- )?[^:#]+: )([0-9a-f]*e[0-9a-f]*)$", re.MULTILINE)


def _load_all(text: str) -> list[Any]:
    return [d for d in YAML(typ="safe", pure=True).load_all(_HEX.sub(r'\1"\2"', text)) if d]


def _dump(path: Path, docs: list[Any]) -> None:
    writer = YAML(typ="safe", pure=True)
    writer.default_flow_style = False
    with path.open("w", encoding="utf-8") as handle:
        writer.dump_all(docs, handle)


def _dgd(rnd: random.Random) -> JSON:
    main = {"name": "main", "image": IMAGE}
    components: list[JSON] = [
        {"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [main]}}}
    ]
    for name in rnd.sample(["w1", "prefill", "decode"], rnd.randint(1, 2)):
        worker_main = {
            **main,
            "command": ["python3", "-m", "dynamo.vllm"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
        }
        component: JSON = {
            "name": name,
            "type": rnd.choice(["worker", "prefill", "decode"]),
            "replicas": rnd.choice([1, 3]),
            "podTemplate": {"spec": {"containers": [worker_main]}},
        }
        if rnd.random() < 0.85:
            ckpt: JSON = {"enabled": rnd.random() < 0.9}
            if rnd.random() < 0.5:
                ckpt["startupPolicy"] = rnd.choice(["Immediate", "WaitForCheckpoint"])
            if rnd.random() < 0.4:
                ckpt["deletionPolicy"] = rnd.choice(["Delete", "Retain"])
            if rnd.random() < 0.3:
                ckpt["checkpointRef"] = rnd.choice(["my-ckpt", "other"])
            component["experimental"] = {"checkpoint": ckpt}
        components.append(component)
    metadata: JSON = {"name": "ckf"}
    if rnd.random() < 0.7:
        metadata["uid"] = UID
    spec = {"backendFramework": "vllm", "components": components}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": metadata,
        "spec": spec,
    }


def _checkpoints(rnd: random.Random, dgd: JSON, worker_hash: str) -> list[JSON]:
    out: list[JSON] = []
    for component in dgd["spec"]["components"]:
        ckpt = (component.get("experimental") or {}).get("checkpoint")
        if not ckpt or rnd.random() < 0.3:
            continue
        hash_for_id = worker_hash if component["type"] in ("worker", "prefill", "decode") else ""
        uid = UID if rnd.random() < 0.85 else ""
        cid = dgd_checkpoint_id(NAMESPACE, "ckf", uid, component["name"], hash_for_id)
        name = ckpt.get("checkpointRef") or checkpoint_name(cid)
        if rnd.random() < 0.2:
            name = "my-ckpt"
        if any(o["metadata"]["name"] == name for o in out):
            continue
        obj: JSON = {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoCheckpoint",
            "metadata": {"name": name},
            "spec": {
                "identity": {"model": "m", "backendFramework": "vllm"},
                "job": {
                    "podTemplateSpec": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}
                },
            },
        }
        status: JSON = {}
        if rnd.random() < 0.7:
            status["phase"] = rnd.choice(["Ready", "Creating", "Failed"])
        pick = rnd.random()
        if pick < 0.5:
            status["checkpointID"] = cid if rnd.random() < 0.8 else "f" * 32
        elif pick < 0.7:
            status["identityHash"] = cid
        elif pick < 0.85:
            obj["metadata"]["labels"] = {"nvidia.com/snapshot-checkpoint-id": cid}
        if status:
            obj["status"] = status
        if rnd.random() < 0.4:
            policy = rnd.choice(["Delete", "Retain"])
            obj["metadata"]["annotations"] = {
                "nvidia.com/dynamo-checkpoint-deletion-policy": policy
            }
        if rnd.random() < 0.3:
            obj["metadata"]["finalizers"] = ["nvidia.com/finalizer"]
        if rnd.random() < 0.3:
            obj["metadata"]["ownerReferences"] = [
                {
                    "apiVersion": "nvidia.com/v1beta1",
                    "kind": "DynamoGraphDeployment",
                    "name": "ckf",
                    "uid": UID,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        out.append(obj)
    return out


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ORACLE), "render", *args], capture_output=True, text=True, check=False, timeout=60
    )


def _one(rnd: random.Random, tmp: Path) -> str:
    """Generate one case, compare it; the outcome kind ("rendered", "refused", "skipped")."""
    dgd = _dgd(rnd)
    path = tmp / "dgd.yaml"
    _dump(path, [dgd])
    first = _run([str(path), "--namespace", NAMESPACE, "--checkpoint-enabled"])
    if first.returncode != 0:
        return "skipped"  # refused without checkpoints: nothing to resolve
    worker_hash = first.stdout.splitlines()[0].split()[-1]
    objects = _checkpoints(rnd, dgd, worker_hash)
    out = tmp / "out"
    args = [str(path), "--namespace", NAMESPACE, "--emit-rendered-dgd", "--out", str(out)]
    if objects:
        _dump(tmp / "ckpt.yaml", objects)
        args += ["--checkpoint", str(tmp / "ckpt.yaml")]
    else:
        args += ["--checkpoint-enabled"]
    proc = _run(args)
    assert proc.returncode in (0, 3), proc.stderr
    admitted = _load_all(
        "".join(
            line
            for line in proc.stderr.splitlines(True)
            if not line.startswith(("warning:", "admission warning:", "refused:"))
        )
    )[0]
    if not dgd["metadata"].get("uid"):
        admitted["metadata"].pop("uid", None)  # as given: the UID is the controller's to find
    given = [copy.deepcopy(o) for o in objects]
    for obj in given:
        obj["metadata"].setdefault("namespace", NAMESPACE)
    config = OperatorConfig.for_oracle(NAMESPACE, checkpoint_enabled=True)
    error = out / "expected-error.txt"
    if error.exists():
        with pytest.raises(OperatorRenderError) as err:
            render_operator(admitted, config, checkpoints=given)
        assert err.value.message == error.read_text(encoding="utf-8").strip()
        return "refused"
    result = render_operator(admitted, config, checkpoints=given)
    expected = _load_all((out / "expected-dcds.yaml").read_text(encoding="utf-8"))
    assert diff_paths(result.dcds, expected) == []
    report = _load_all((out / "checkpoint-resolution.yaml").read_text(encoding="utf-8"))[0]
    components = report.get("components") or {}
    assert set(result.checkpoint_resolution) == set(components)
    if components:
        assert result.dgd_uid == report["dgdUID"]
    for name, entry in components.items():
        theirs = {k: v for k, v in entry.items() if k != "restoreInjectedAtRender"}
        assert result.checkpoint_resolution[name].report() == theirs, name
    return "rendered"


def test_checkpoint_mode_matches_the_oracle() -> None:
    rnd = random.Random(20260821)
    seen: dict[str, int] = {}
    for _ in range(EXAMPLES):
        with tempfile.TemporaryDirectory() as tmp:
            kind = _one(rnd, Path(tmp))
        seen[kind] = seen.get(kind, 0) + 1
    # The generator reaches both outcomes often enough for the comparison to mean something.
    assert seen.get("rendered", 0) >= EXAMPLES // 2
    assert seen.get("refused", 0) >= max(1, EXAMPLES // 20)
