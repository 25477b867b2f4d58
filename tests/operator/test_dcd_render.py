"""render_operator: worker hash, checkpoints, PodCliqueSet and DCDs together, as the oracle.

Every case of the oracle and checkpoint corpora goes through ``render_operator`` with the
configuration and DynamoCheckpoint objects the oracle used; the result must equal the
oracle's files (or, for a refused DGD, its message), both ways.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_corpus import diff_paths, load_yaml
from test_dcd import all_cases, checkpoint_objects

from renderer.operator.render import OperatorRenderError, render_operator

CASES = [
    c
    for c in all_cases()
    if (c.path / "admitted-dgd.yaml").exists()
    and (not c.refused or c.path.parent.name in ("checkpoint", "dcd"))
]


def _uid(case: Any) -> str | None:
    """The UID the oracle was given on its command line, if any."""
    args = case.oracle_args
    return args[args.index("--dgd-uid") + 1] if "--dgd-uid" in args else None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_render_operator_equals_the_oracle(case: Any) -> None:
    given = load_yaml(case.path / "input-dgd.yaml")
    admitted = case.admitted_dgd()
    if not given["metadata"].get("uid"):
        admitted["metadata"].pop("uid", None)  # the UID then comes from the checkpoints
    call: dict[str, Any] = {"checkpoints": checkpoint_objects(case), "dgd_uid": _uid(case)}
    if case.refused:
        with pytest.raises(OperatorRenderError) as err:
            render_operator(admitted, case.config(), **call)
        want = (case.path / "expected-error.txt").read_text(encoding="utf-8").strip()
        assert err.value.message == want
        return
    result = render_operator(admitted, case.config(), **call)
    assert result.worker_hash == case.worker_hash()
    assert result.provider in ("grove", "component")
    assert diff_paths(result.pcs, case.expected_pcs()) == []
    assert diff_paths(result.dcds, case.expected_dcds()) == []
    report = case.checkpoint_resolution()
    if report is not None:
        assert result.dgd_uid == report["dgdUID"]
        assert set(result.checkpoint_resolution) == set(report["components"])
    else:
        assert result.checkpoint_resolution == {}


def test_render_operator_does_not_mutate_its_input() -> None:
    case = next(c for c in CASES if c.name == "beta-metadata-env")
    admitted = case.admitted_dgd()
    before = case.admitted_dgd()
    render_operator(admitted, case.config())
    assert admitted == before
