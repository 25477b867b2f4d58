"""The port raises two expected errors; anything else is a defect, reported as one.

Every DGD of the corpus (the operator goldens, the upstream fixtures) goes through `render`
for both targets, with the DynamoCheckpoint objects beside it: it renders, or it fails with
an InputError (the operator's refusal, or not reproduced naming the field), never with an
InternalError. A port function that raises something else shows as an internal error with
its own exit code, not as the operator refusing the DGD.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from paths import FIXTURES, OPERATOR_GOLDENS

from renderer.cli import main
from renderer.constants import CHECKPOINT_KIND, DGD_KIND, EXIT_INTERNAL, TARGETS
from renderer.errors import InputError, InternalError
from renderer.render import render
from renderer.source import load_bytes
from renderer.source.model import SourceObject


@cache
def _corpus() -> list[tuple[str, SourceObject, tuple[SourceObject, ...]]]:
    files = sorted(OPERATOR_GOLDENS.rglob("*.yaml")) + sorted(
        (FIXTURES / "upstream").glob("*.yaml")
    )
    seen: set[bytes] = set()
    found: list[tuple[str, SourceObject, tuple[SourceObject, ...]]] = []
    for path in files:
        data = path.read_bytes()
        if data in seen or b"kind: DynamoGraphDeployment" not in data:
            continue
        seen.add(data)
        try:
            objects = load_bytes(data, str(path), allow_empty=True)
        except InputError:
            continue
        beside = tuple(
            o
            for other in sorted(path.parent.glob("*.yaml"))
            for o in _objects(other)
            if o.kind == CHECKPOINT_KIND
        )
        found += [
            (f"{path.relative_to(OPERATOR_GOLDENS.parents[1])}#{i}", o, beside)
            for i, o in enumerate(objects)
            if o.kind == DGD_KIND
        ]
    return found


def _objects(path: Path) -> list[SourceObject]:
    try:
        return list(load_bytes(path.read_bytes(), str(path), allow_empty=True))
    except InputError:
        return []


def test_the_corpus_is_large() -> None:
    assert len(_corpus()) > 150


@pytest.mark.slow  # every corpus DGD rendered twice: half a minute of CPU
@pytest.mark.parametrize("target", TARGETS)
def test_no_corpus_input_meets_a_defect_of_the_port(target: str) -> None:
    defects: list[str] = []
    for name, dgd, checkpoints in _corpus():
        try:
            render(dgd, checkpoints, target=target, namespace="dynamo", warn_unused=False)
        except InternalError as exc:
            defects.append(f"{name}: {exc}")
        except InputError:
            pass
    assert defects == []


def test_a_defect_is_an_internal_error_with_its_own_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from renderer.operator import graph_grove

    def broken(*_: object) -> str:
        raise KeyError("replicas")

    monkeypatch.setattr(graph_grove, "expand_roles_for_component", broken)
    source = OPERATOR_GOLDENS / "oracle" / "beta-vllm-agg" / "dgd.yaml"
    (tmp_path / "dgd.yaml").write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    code = main(["render", "-n", "dynamo", "dgd.yaml"])
    out, err = capsys.readouterr()
    assert code == EXIT_INTERNAL == 70
    assert out == ""
    assert err.startswith("dynamo-render: error: dgd.yaml:4:3: internal error (a defect of")
    assert "KeyError: 'replicas'" in err
    assert "refuses" not in err
