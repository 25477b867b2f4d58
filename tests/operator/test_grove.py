"""The Grove PodCliqueSet against the operator oracle corpus and the operator's own goldens.

Input: the admitted DGD the oracle printed; expected: the oracle's PodCliqueSet (both ways:
nothing missing, nothing extra). The layout tests inject the oracle's pod spec for each
clique so the clique set, names, replicas, labels, annotations, startup order, scaling
groups and claim templates are checked on their own; the full tests render the pod specs
too.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from golden_match import match
from oracle_corpus import (
    UPSTREAM,
    OracleCase,
    diff_paths,
    load_yaml_documents,
    oracle_cases,
    rendered_cases,
)

from renderer.operator import graph_grove
from renderer.operator.graph_grove import GroveError, generate_grove_pod_clique_set
from renderer.operator.graph_grove_roles import ServiceRole

JSON = dict[str, Any]
CASES = rendered_cases()


def _render(case: OracleCase) -> JSON:
    return generate_grove_pod_clique_set(
        case.admitted_dgd(),
        case.config(),
        case.worker_hash(),
        checkpoint_info=case.checkpoint_infos(),
    )


def _inject_oracle_pod_specs(monkeypatch: pytest.MonkeyPatch, expected: JSON) -> None:
    """Replace pod-spec generation by the oracle's pod spec of the same clique."""
    specs = {c["name"]: c["spec"]["podSpec"] for c in expected["spec"]["template"]["cliques"]}

    def oracle_pod_spec(role: ServiceRole, *_args: object, **_kwargs: object) -> JSON:
        return copy.deepcopy(specs[role.name.lower()])

    monkeypatch.setattr(graph_grove, "generate_pod_spec_for_role", oracle_pod_spec)


def test_corpus_is_complete() -> None:
    """The corpus has the cases the Grove tests rely on, and they rendered."""
    assert len(oracle_cases()) >= 20
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pcs_layout_equals_oracle(case: OracleCase, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = case.expected_pcs()
    _inject_oracle_pod_specs(monkeypatch, expected)
    assert diff_paths(_render(case), expected) == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pcs_equals_oracle(case: OracleCase) -> None:
    assert diff_paths(_render(case), case.expected_pcs()) == []


GROVE_PREFIX = "failed to reconcile Grove workloads: failed to generate the Grove GangSet: "
GROVE_REFUSALS = [
    c
    for c in oracle_cases()
    if c.refused
    and (c.path / "admitted-dgd.yaml").exists()
    and c.expected_error().startswith(GROVE_PREFIX)
]


def test_grove_refusals_exist() -> None:
    assert GROVE_REFUSALS


@pytest.mark.parametrize("case", GROVE_REFUSALS, ids=lambda c: c.name)
def test_pcs_refusal_equals_oracle(case: OracleCase) -> None:
    """Admitted, then refused while generating the Grove GangSet: the operator's message."""
    # A refused case has no worker-hash.txt; the hash only labels cliques, not the error.
    with pytest.raises(GroveError) as info:
        generate_grove_pod_clique_set(
            case.admitted_dgd(), case.config(), "00000000", checkpoint_info=case.checkpoint_infos()
        )
    assert GROVE_PREFIX + str(info.value) == case.expected_error()


UPSTREAM_GROVE = {
    "upstream-dgd-grove": UPSTREAM / "dgd" / "grove" / "output.yaml",
    "upstream-dgdr-grove": UPSTREAM / "dgdr" / "grove" / "output.yaml",
}


def _upstream_contract(path: Any) -> JSON:
    docs = [d for d in load_yaml_documents(path) if d.get("kind") == "PodCliqueSet"]
    assert len(docs) == 1
    contract: JSON = docs[0]
    return contract


def _case(name: str) -> OracleCase:
    return next(c for c in oracle_cases() if c.name == name)


@pytest.mark.parametrize("name", sorted(UPSTREAM_GROVE))
def test_upstream_golden_layout(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's cluster golden, pod specs taken from the oracle's rendering."""
    case = _case(name)
    _inject_oracle_pod_specs(monkeypatch, case.expected_pcs())
    pcs = _render(case)
    # The API server keeps no status on create; the contract describes the stored object.
    pcs.pop("status")
    contract = _upstream_contract(UPSTREAM_GROVE[name])
    assert match(contract, pcs, {"worker-hash": case.worker_hash()}) == []


@pytest.mark.parametrize("name", sorted(UPSTREAM_GROVE))
def test_upstream_golden(name: str) -> None:
    """The operator's cluster golden, everything rendered here."""
    case = _case(name)
    pcs = _render(case)
    pcs.pop("status")
    contract = _upstream_contract(UPSTREAM_GROVE[name])
    assert match(contract, pcs, {"worker-hash": case.worker_hash()}) == []


def test_golden_matcher_detects_differences() -> None:
    """The contract matcher fails on extra, missing and mismatching fields."""
    contract = {"a": {"$strict": False, "b": "$pattern:x.*"}, "c": [1], "d": "$var:h"}
    assert match(contract, {"a": {"b": "xy", "z": 1}, "c": [1], "d": "42"}, {"h": "42"}) == []
    assert match(contract, {"a": {"b": "y"}, "c": [1], "d": "42"}, {"h": "42"})
    assert match(contract, {"a": {"b": "x"}, "c": [1], "d": "42", "e": 0}, {"h": "42"})
    assert match(contract, {"a": {"b": "x"}, "c": [1]}, {"h": "42"})
