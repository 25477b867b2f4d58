"""GenerateDynamoComponentsDeployments against the oracle: every DCD, field for field.

For each rendered case of the oracle corpus (goldens/oracle/) and of the checkpoint corpus
(goldens/checkpoint/), the admitted DGD the oracle printed goes through the emulation with
the oracle's steady-state rolling-update context (its own worker hash, no old workers) and,
in checkpoint mode, the checkpoint resolution and applyCheckpointStartupPolicy. The DCDs,
as printed, must equal expected-dcds.yaml both ways (nothing missing, nothing extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import (
    HERE,
    OracleCase,
    diff_paths,
    load_yaml_documents,
    oracle_cases,
)

from renderer.operator.checkpoint_id import (
    apply_checkpoint_startup_policy,
    dgd_uid_for,
    resolve_dgd_checkpoints,
)
from renderer.operator.graph_dcd import (
    RollingUpdateContext,
    generate_dynamo_components_deployments,
    printed_dcds,
)

CHECKPOINT_CORPUS = HERE / "goldens" / "checkpoint"
DCD_CORPUS = HERE / "goldens" / "dcd"


def corpus_cases(root: Path) -> list[OracleCase]:
    """A corpus with the oracle corpus's layout (one directory per case)."""
    return [
        OracleCase(p.name, p)
        for p in sorted(root.iterdir())
        if p.is_dir() and (p / "dgd.yaml").exists()
    ]


def checkpoint_cases() -> list[OracleCase]:
    """The checkpoint-mode corpus."""
    return corpus_cases(CHECKPOINT_CORPUS)


def all_cases() -> list[OracleCase]:
    return [*oracle_cases(), *checkpoint_cases(), *corpus_cases(DCD_CORPUS)]


def checkpoint_objects(case: OracleCase) -> list[dict[str, Any]]:
    """The DynamoCheckpoint objects the case gave the oracle (--checkpoint FILE)."""
    args = case.oracle_args
    if "--checkpoint" not in args:
        return []
    path: Path = case.path / args[args.index("--checkpoint") + 1]
    namespace = case.namespace()
    out = []
    for obj in load_yaml_documents(path):
        obj.setdefault("metadata", {}).setdefault("namespace", namespace)
        out.append(obj)
    return out


def render_dcds(case: OracleCase) -> list[dict[str, Any]]:
    dgd = case.admitted_dgd()
    worker_hash = case.worker_hash()
    dcds = generate_dynamo_components_deployments(
        dgd, None, None, RollingUpdateContext(new_worker_hash=worker_hash)
    )
    if case.checkpoint_mode:
        objects = checkpoint_objects(case)
        uid, _ = dgd_uid_for(dgd, objects, None)
        resolution = resolve_dgd_checkpoints(dgd, worker_hash, objects, uid)
        for name, res in resolution.items():
            assert res.ok, res.reason
            apply_checkpoint_startup_policy(dcds[name], res.info)
    return printed_dcds(dcds)


RENDERED = [c for c in all_cases() if not c.refused]


@pytest.mark.parametrize("case", RENDERED, ids=lambda c: c.name)
def test_dcds_equal_the_oracle(case: OracleCase) -> None:
    expected = case.expected_dcds()
    actual = render_dcds(case)
    assert [d["metadata"]["name"] for d in actual] == [d["metadata"]["name"] for d in expected]
    for got, want in zip(actual, expected, strict=True):
        assert diff_paths(got, want) == [], want["metadata"]["name"]


def test_the_corpora_cover_the_dcd_paths() -> None:
    """The cases exercise what the DCD path does (so a pass above means something)."""
    expected = [d for c in RENDERED for d in c.expected_dcds()]
    annotations = [d["metadata"].get("annotations") or {} for d in expected]
    assert len(RENDERED) >= 40
    assert all("nvidia.com/dcd-spec" in a for a in annotations)
    assert any('"labels"' in a["nvidia.com/dcd-spec"] for a in annotations)  # alpha-origin
    assert any("nvidia.com/topology-label-key" in a for a in annotations)
    assert any(d["spec"].get("replicas") == 0 for d in expected)  # WaitForCheckpoint gate
    envs = [
        e.get("name")
        for d in expected
        for ctr in (d["spec"].get("podTemplate") or {}).get("spec", {}).get("containers") or []
        for e in ctr.get("env") or []
    ]
    assert "DYN_DEPLOYMENT_CONFIG" in envs
    types = {d["spec"].get("type") for d in expected}
    assert {"frontend", "worker", "prefill", "decode", "planner"} <= types
