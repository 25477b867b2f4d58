"""A snapshot field the operator reads its checkpoint ID from, of the wrong JSON type, is an
input error at that field (the operator's client cannot decode such an object), not a value
read with Python's `str()` and not an exception caught as something else.

The example DGD and its captured snapshot are the bundled ones (examples/); each test
changes one field's type.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main
from renderer.constants import EXIT_ERROR, EXIT_INTERNAL
from renderer.operator.checkpoint_hash import (
    CheckpointDecodeError,
    checkpoint_id_of,
    compute_identity_hash,
)

EXAMPLES = REPO / "examples"
CHECKPOINT_ID = '  checkpointID: "46333b366341a5dbfd4f63b83b7b9fc1"\n'


def _replace(old: str, new: str) -> int:
    """Rewrite snap.yaml; the 1-based line of the change."""
    text = Path("snap.yaml").read_text("utf-8")
    assert old in text
    Path("snap.yaml").write_text(text.replace(old, new, 1), "utf-8")
    return text[: text.index(old)].count("\n") + 1


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ("  checkpointID: 46333\n", "status.checkpointID must be a string, not number 46333"),
        ("  checkpointID: [a]\n", "status.checkpointID must be a string, not array"),
        (
            '  identityHash: {"a": 1}\n',
            "status.identityHash must be a string, not object",
        ),
    ],
)
def test_render_refuses_a_checkpoint_id_of_another_type_at_its_line(
    example_repo: Path, capsys: pytest.CaptureFixture[str], new: str, message: str
) -> None:
    line = _replace(CHECKPOINT_ID, new)
    code = main(["--no-config", "render", "dgd.yaml", "--checkpoint", "snap.yaml"])
    out, err = capsys.readouterr()
    assert code == EXIT_ERROR
    assert out == ""
    assert f"snap.yaml:{line}:" in err
    assert message in err
    assert "(the operator cannot decode this checkpoint)" in err
    assert "Traceback" not in err


def test_lint_reports_it_as_a_checkpoint_it_cannot_verify(
    example_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _replace(CHECKPOINT_ID, "  checkpointID: 46333\n")
    rendered = EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "grove.yaml"
    code = main(["--no-config", "lint", str(rendered), "--checkpoint", "snap.yaml"])
    out = capsys.readouterr().out
    assert code == 1
    assert "status.checkpointID must be a string, not number 46333" in out


@pytest.mark.parametrize(
    ("identity", "path"),
    [
        ({"model": 7}, "spec.identity.model"),
        ({"model": "m", "tensorParallelSize": "2"}, "spec.identity.tensorParallelSize"),
        ({"model": "m", "maxModelLen": 1.5}, "spec.identity.maxModelLen"),
        ({"model": "m", "pipelineParallelSize": 2**31}, "spec.identity.pipelineParallelSize"),
        ({"model": "m", "extraParameters": ["a"]}, "spec.identity.extraParameters"),
        ({"model": "m", "extraParameters": {"a": 1}}, "spec.identity.extraParameters.a"),
    ],
)
def test_the_identity_is_read_with_go_types(identity: dict[str, object], path: str) -> None:
    with pytest.raises(CheckpointDecodeError) as refused:
        checkpoint_id_of({"spec": {"identity": identity}})
    assert refused.value.message.startswith(f"{path} must be ")


def test_an_integral_float_is_the_int32_go_reads() -> None:
    # sigs.k8s.io/yaml writes the YAML float 2.0 as the JSON number 2, which an int32 takes.
    assert compute_identity_hash({"model": "m", "tensorParallelSize": 2.0}) == (
        compute_identity_hash({"model": "m", "tensorParallelSize": 2})
    )


def test_lint_does_not_read_a_defect_of_the_port_as_a_refusal(
    example_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A KeyError out of the worker hash is a bug of the port: an internal error (exit 70),
    # never "render-drift reports the refusal" with the checkpoint left unchecked.
    import renderer.render

    def broken(admitted: object) -> str:
        raise KeyError("components")

    monkeypatch.setattr(renderer.render, "worker_hash", broken)
    rendered = EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "grove.yaml"
    argv = ["--no-config", "lint", str(rendered), "--checkpoint", "snap.yaml", "--dgd", "dgd.yaml"]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL
    assert "KeyError" in err
    assert "Traceback" not in err
