"""Backend-heavy DGDs rendered to a PodCliqueSet against the pinned operator's output.

The cases under tests/operator/goldens/backends/ (see its README) stress the backend
layer: vLLM data-parallel, multiprocessing (with shell-form commands and the wait-for-leader
init container), Ray with pipeline parallelism and JSON args, elastic EP on one and two
nodes, the executor annotation, SGLang and TRT-LLM multinode with shell and Python
commands, compilation caches, intra-pod failover (one and two nodes), inter-pod failover on
two nodes, and the backend errors the operator returns (DRA claim GPUs it cannot resolve
offline, a fractional GPU, a framework mismatch). Every clique is compared with the
oracle's, both ways; a refused case must fail with the operator's message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle_corpus import OracleCase, diff_paths

from renderer.operator.graph_grove import GroveError, generate_grove_pod_clique_set

CORPUS = Path(__file__).parent / "goldens" / "backends"
CASES = [
    OracleCase(p.name, p)
    for p in sorted(CORPUS.iterdir())
    if p.is_dir() and (p / "dgd.yaml").exists()
]
#: What the oracle's driver puts before a GenerateGrovePodCliqueSet error.
GROVE_PREFIX = "failed to reconcile Grove workloads: failed to generate the Grove GangSet: "


def test_corpus_present() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("case", [c for c in CASES if not c.refused], ids=lambda c: c.name)
def test_pcs_equals_oracle(case: OracleCase) -> None:
    pcs = generate_grove_pod_clique_set(case.admitted_dgd(), case.config(), case.worker_hash())
    assert diff_paths(pcs, case.expected_pcs()) == []


@pytest.mark.parametrize("case", [c for c in CASES if c.refused], ids=lambda c: c.name)
def test_refusal_equals_oracle(case: OracleCase) -> None:
    expected = (case.path / "expected-error.txt").read_text(encoding="utf-8").strip()
    assert expected.startswith(GROVE_PREFIX)
    with pytest.raises(GroveError) as info:
        generate_grove_pod_clique_set(case.admitted_dgd(), case.config(), None)
    assert str(info.value) == expected.removeprefix(GROVE_PREFIX)
