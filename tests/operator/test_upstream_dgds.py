"""The DGDs the upstream project ships, through admit() and render_operator(), against the oracle.

The inputs are every DynamoGraphDeployment in the pinned ai-dynamo/dynamo tree's examples,
recipes, deploy, components, benchmarks and docs YAML (the operator's own testdata included)
and in the YAML code blocks of those trees' Markdown pages,
copied under tests/operator/goldens/upstream-dgds/ with the oracle's output beside each one
(see that directory's README). A DGD the operator refuses for its placeholder image tag is
also there with the tag pinned (``<case>.tagged``), as a user would deploy it, and one whose
workers use GPU Memory Service or failover also with checkpointing on (``.checkpoint``).

Per case, both ways (nothing missing, nothing extra): the refusal message, or the admitted
DGD and admission warnings, the v2 worker hash, the PodCliqueSet, the DCDs and, in
checkpoint mode, what the controller resolves per component.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import diff_paths, load_report, load_yaml, load_yaml_documents

from renderer.operator.admission.errors import AdmissionError
from renderer.operator.admission.pipeline import admit_with_warnings
from renderer.operator.config import OperatorConfig
from renderer.operator.graph_grove import GroveError
from renderer.operator.render import OperatorRenderError, render_operator

ROOT = Path(__file__).parent / "goldens" / "upstream-dgds"
#: What scripts/regen-upstream-dgds passes (a DGD's own namespace wins).
NAMESPACE = "dynamo"
WARNING_PREFIX = "admission warning: "
GROVE_PREFIX = "failed to reconcile Grove workloads: failed to generate the Grove GangSet: "

#: Cases where the emulation is known to differ from the oracle, with the difference. Strict:
#: once fixed the case fails here, so the entry must go.
KNOWN_DIFFERENCES: dict[str, str] = {}
INNER_STRIDE = 12


def _cases() -> list[Any]:
    if not ROOT.exists():
        return []
    out = []
    paths = sorted(p for p in ROOT.iterdir() if (p / "dgd.yaml").exists())
    for index, path in enumerate(paths):
        # The whole corpus runs in the full suite; the inner loop takes every INNER_STRIDE-th
        # case, a spread over the upstream trees (the names sort by source path).
        marks = [] if index % INNER_STRIDE == 0 else [pytest.mark.slow]
        if path.name in KNOWN_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=KNOWN_DIFFERENCES[path.name], strict=True))
        out.append(pytest.param(path, id=path.name, marks=marks))
    return out


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _oracle_args(case: Path) -> list[str]:
    args = case / "oracle-args"
    return shlex.split(args.read_text(encoding="utf-8")) if args.exists() else []


def _warnings(case: Path) -> list[str]:
    path = case / "oracle-warnings.txt"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line[len(WARNING_PREFIX) :] for line in lines if line.startswith(WARNING_PREFIX)]


def test_the_corpus_is_complete() -> None:
    """Every source the README lists has its case, and the corpus is not trivially small."""
    cases = _cases()
    assert len(cases) >= 250
    listed = (ROOT / "sources.txt").read_text(encoding="utf-8").split("\n")
    names = {line.split(" ", 1)[0] for line in listed if line}
    assert names == {p.values[0].name for p in cases}
    rendered = [p for p in cases if (p.values[0] / "worker-hash.txt").exists()]
    assert len(rendered) >= 200


@pytest.mark.parametrize("case", _cases())
def test_upstream_dgd_equals_the_oracle(case: Path) -> None:
    doc = load_yaml(case / "dgd.yaml")
    namespace = (doc.get("metadata") or {}).get("namespace") or NAMESPACE
    checkpoint = "--checkpoint-enabled" in _oracle_args(case)
    config = OperatorConfig.for_oracle(namespace, checkpoint_enabled=checkpoint)
    error = case / "expected-error.txt"
    refusal = error.read_text(encoding="utf-8").strip() if error.exists() else None

    try:
        admitted, warnings = admit_with_warnings(
            doc, namespace=namespace, config=config, allow_checkpoint_with_interpod_gms=False
        )
    except AdmissionError as err:
        assert err.message == refusal
        return
    admitted = _plain(admitted)
    assert diff_paths(admitted, load_yaml(case / "admitted-dgd.yaml")) == []
    assert warnings == _warnings(case)

    if refusal is not None:  # refused after admission: by the controller's render
        with pytest.raises((OperatorRenderError, GroveError)) as info:
            render_operator(admitted, config)
        raised = info.value
        if isinstance(raised, OperatorRenderError):
            assert raised.message == refusal
        else:  # the created PodCliqueSet's generation: the message without its stage
            assert GROVE_PREFIX + str(raised) == refusal
        return
    result = render_operator(admitted, config)
    assert result.worker_hash == (case / "worker-hash.txt").read_text(encoding="utf-8").strip()
    assert diff_paths(result.pcs, load_yaml(case / "expected-pcs.yaml")) == []
    assert diff_paths(result.dcds, load_yaml_documents(case / "expected-dcds.yaml")) == []
    _check_checkpoints(case, result.checkpoint_resolution)


def _check_checkpoints(case: Path, resolution: dict[str, Any]) -> None:
    path = case / "checkpoint-resolution.yaml"
    if not path.exists():
        assert resolution == {}
        return
    report = load_report(path)["components"]
    assert set(resolution) == set(report)
    for name, entry in report.items():
        got = resolution[name].report()
        # restoreInjectedAtRender is the Grove render's, not the resolution's.
        assert got == {k: v for k, v in entry.items() if k != "restoreInjectedAtRender"}
