"""Round trip: what `render` writes, `lint` passes, for every DGD of the oracle corpus.

Each DGD the operator oracle rendered (tests/operator/goldens/oracle; the refused ones
aside) is made to checkpoint every worker-class component, Immediate and WaitForCheckpoint,
with the checkpoint found three ways: the operator's automatic lookup
(`checkpoint-<DGDCheckpointID>` for the DGD's uid and worker hash), a `checkpointRef` to a
manual checkpoint, and a `checkpointRef` to an automatic one. The snapshots are vector 02
(tests/vectors) renamed and relabelled for each component as the operator would create
it. Rendered for both targets, the output is linted through the command line with those
snapshots: with `--dgd`, nothing (but a hand-written candidate naming a missing checkpoint,
pending); without, no error (a `checkpointRef` cannot be seen in the committed objects, so
the automatic lookup's warning may remain). DGDs whose checkpointing the operator refuses
(a failover component, an unknown backend, a missing memory-service device class) are
skipped, each with its reason. Bound already-shaped (WaitForCheckpoint) cliques carry the
checkpoint name ([our contract]): lint requires it, render writes it.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from paths import VECTORS

from renderer.cli import main
from renderer.jsoncopy import deep_copy
from renderer.source import load_bytes
from renderer.yamlout import dump_object

ORACLE = Path(__file__).parent.parent / "operator" / "goldens" / "oracle"
NAMESPACE = "dynamo"
DGD_UID = "5e1f0c2a-8b3d-4c6e-9f71-0a2b3c4d5e6f"
WORKER_TYPES = ("worker", "prefill", "decode")
JSON = dict[str, Any]


def _cases() -> list[str]:
    return sorted(
        p.name
        for p in ORACLE.iterdir()
        if p.is_dir() and (p / "dgd.yaml").exists() and not (p / "expected-error.txt").exists()
    )


def _workers(dgd: JSON) -> list[tuple[str, JSON]]:
    """(name, the component's mapping) of each worker-class component, both API versions."""
    spec = dgd.get("spec") or {}
    found: list[tuple[str, JSON]] = []
    for c in spec.get("components") or []:
        if c.get("type") in WORKER_TYPES:
            found.append((str(c["name"]), c))
    for name, c in (spec.get("services") or {}).items():
        if isinstance(c, dict) and c.get("componentType") in WORKER_TYPES:
            found.append((str(name), c))
    return found


def _enable(dgd: JSON, policy: str, refs: dict[str, str]) -> JSON:
    out = deep_copy(dgd)
    out.setdefault("metadata", {})["uid"] = DGD_UID
    out["metadata"]["namespace"] = NAMESPACE
    for name, component in _workers(out):
        block: JSON = {"enabled": True}
        if policy == "WaitForCheckpoint":
            block["startupPolicy"] = policy
        if name in refs:
            block["checkpointRef"] = refs[name]
        if "componentType" in component:  # v1alpha1
            component["checkpoint"] = block
        else:
            component.setdefault("experimental", {})["checkpoint"] = block
    return out


def _gms(component: JSON) -> bool:
    """The component restores GPU memory through the memory service (its checkpoint must
    say so: the operator refuses otherwise)."""
    experimental = component.get("experimental") or {}
    # `gpuMemoryService: {}` enables it with the defaults
    return experimental.get("gpuMemoryService") is not None or (
        component.get("gpuMemoryService") is not None
    )


def _snapshot(
    name: str,
    component: str,
    dgd_name: str,
    worker_hash: str,
    cid: str,
    *,
    manual: bool,
    gms: bool,
) -> str:
    """Vector 02 as the operator creates the checkpoint of this component."""
    text = (VECTORS / "02-worker-baseline.input.yaml").read_text()
    for old, new in (
        ('"checkpoint-9f1e2d3c4b5a6978"', f'"{name}"'),
        ('"9f1e2d3c4b5a6978"', f'"{cid}"'),
        ('"dynamo-prod"', f'"{NAMESPACE}"'),
        ('"VllmDecodeWorker"', f'"{component}"'),
        ('"llama-disagg"', f'"{dgd_name}"'),
        ('"5f8d2c1a9b"', f'"{worker_hash}"'),
        ('"0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"', f'"{DGD_UID}"'),
    ):
        text = text.replace(old, new)
    if manual:
        text = text.replace('    "nvidia.com/dynamo-auto-checkpoint": "true"\n', "")
    if gms:
        text = text.replace(
            "spec:\n  job:\n", "spec:\n  gpuMemoryService:\n    enabled: true\n  job:\n", 1
        )
    return text


def _run(args: list[str], err: io.StringIO | None = None) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err or io.StringIO()):
        code = main(["--no-config", *args])
    return code, out.getvalue()


MODES = [
    (policy, lookup)
    for policy in ("Immediate", "WaitForCheckpoint")
    for lookup in ("automatic", "ref-manual", "ref-automatic")
]


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases())
@pytest.mark.parametrize(("policy", "lookup"), MODES, ids=[f"{p}-{lk}" for p, lk in MODES])
@pytest.mark.parametrize("target", ["grove", "dcd"])
def test_render_then_lint_is_clean(
    case: str, policy: str, lookup: str, target: str, tmp_path: Path
) -> None:
    from renderer.operator.checkpoint_hash import checkpoint_name, dgd_checkpoint_id
    from renderer.render import admit, worker_hash

    (source,) = load_bytes((ORACLE / case / "dgd.yaml").read_bytes(), "dgd.yaml")
    workers = _workers(source.data)
    if not workers:
        pytest.skip("no worker-class component to checkpoint")
    dgd_name = source.name
    refs = {} if lookup == "automatic" else {name: f"ref-{name.lower()}" for name, _ in workers}
    data = _enable(source.data, policy, refs)
    dgd_path = tmp_path / "dgd.yaml"
    dgd_path.write_text(dump_object(data))
    (dgd,) = load_bytes(dgd_path.read_bytes(), str(dgd_path))
    from renderer.errors import InputError

    try:
        admitted = admit(dgd).data
    except InputError as exc:
        # the operator's webhook refuses checkpointing here (a failover component): that
        # DGD cannot be committed at all
        assert "admission webhook denied" in exc.message, exc.message
        pytest.skip("the operator's admission refuses checkpointing this DGD")
    whash = worker_hash(admitted)
    snapshots: list[str] = []
    for name, component in workers:
        cid = dgd_checkpoint_id(NAMESPACE, dgd_name, DGD_UID, name, whash)
        snap_name = refs.get(name) or checkpoint_name(cid)
        manual = lookup == "ref-manual"
        snapshots.append(
            _snapshot(snap_name, name, dgd_name, whash, cid, manual=manual, gms=_gms(component))
        )
    snap_path = tmp_path / "snapshots.yaml"
    snap_path.write_text("---\n".join(snapshots))
    err = io.StringIO()
    code, out = _run(
        ["render", str(dgd_path), "--checkpoint", str(snap_path), "--target", target], err
    )
    if code == 2 and "DeviceClass" in err.getvalue():
        # the memory service's checkpoint needs a DRA device class the oracle's cluster
        # lacks: the operator refuses, as it would on such a cluster (exit 2 is right)
        pytest.skip("the operator refuses: its GPU memory service device class is absent")
    if code == 2 and 'restore for mode "interPod" is not implemented' in err.getvalue():
        # the operator's Grove and DCD code cannot restore an inter-pod memory service
        # from a checkpoint under WaitForCheckpoint: it refuses, exit 2 is right
        pytest.skip("the operator refuses an inter-pod GMS checkpoint restore")
    if code == 2 and target == "grove" and "Grove" in err.getvalue() and "clique" in err.getvalue():
        # a clique name Grove (or the API server, through the pods' hostnames) refuses:
        # render stops where the cluster would, exit 2 is right (tests/operator has the rule)
        pytest.skip("Grove refuses this clique name")
    if code == 2 and "backend framework for component" in err.getvalue():
        # the operator cannot create a checkpoint for a worker whose backend it cannot
        # tell (no backendFramework, no known command): it refuses, exit 2 is right
        pytest.skip("the operator refuses to checkpoint a worker of unknown backend")
    assert code == 0, err.getvalue()
    rendered = tmp_path / "rendered.yaml"
    rendered.write_text(out)
    objects = [o.data for o in load_bytes(out.encode(), "rendered.yaml")]
    assert not _shaped_bound_unnamed(objects)  # [our contract]: render writes the name
    lint = ["lint", str(rendered), "--checkpoint", str(snap_path), "--format", "json"]
    code, report = _run([*lint, "--dgd", str(dgd_path)])
    found = json.loads(report)["findings"]
    # one corpus DGD (beta-kvtransfer-discovery) writes restore-candidate metadata naming a
    # checkpoint `stale` on its frontend by hand: the operator keeps it, the webhook reads
    # a candidate whose checkpoint is missing (admitted), lint says pending (a warning)
    assert code == 0, found
    assert all(f["rule"] == "checkpoint-pending" and "stale" in f["message"] for f in found)
    code, report = _run(lint)
    found = json.loads(report)["findings"]
    assert code == 0 and not [f for f in found if f["severity"] == "error"], found
    assert {f["rule"] for f in found} <= {"checkpoint-outdated", "checkpoint-pending"}


def _shaped_bound_unnamed(objects: list[JSON]) -> bool:
    for obj in objects:
        for c in ((obj.get("spec") or {}).get("template") or {}).get("cliques") or []:
            labels = c.get("labels") or {}
            annotations = c.get("annotations") or {}
            if (
                labels.get("nvidia.com/snapshot-checkpoint-id")
                and annotations.get("nvidia.com/dynamo-checkpoint-binding")
                and "nvidia.com/dynamo-checkpoint-name" not in annotations
            ):
                return True
    return False
