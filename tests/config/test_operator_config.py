"""The `operator:` section of .dynamo-render.yaml reaches render (and lint --dgd).

The operator version is checked against the oracle in tests/operator/test_cli_end_to_end.py
(the upstream cluster goldens were rendered with `--operator-version 1.4.0`); here: the
settings parse strictly, and the others change what the operator writes (Go's duration
text for the Grove termination delay; the discovery backend env and annotation).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import OPERATOR_GOLDENS

from renderer.cli import main
from renderer.errors import InputError
from renderer.operator_settings import parse_duration

CASE = OPERATOR_GOLDENS / "oracle" / "beta-vllm-agg"


def _repo(tmp_path: Path, operator: str) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copy(CASE / "input-dgd.yaml", tmp_path / "dgd.yaml")
    (tmp_path / ".dynamo-render.yaml").write_text(
        f"apiVersion: dynamo-render/v1\nkind: Config\noperator:\n{operator}"
    )
    return tmp_path


def _render(
    tmp_path: Path,
    operator: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str, str]:
    monkeypatch.chdir(_repo(tmp_path, operator))
    code = main(["render", "dgd.yaml", "--target", "grove"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_defaults_are_the_oracles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _render(tmp_path, "  discoveryBackend: kubernetes\n", monkeypatch, capsys)
    assert (code, err) == (0, "")
    expected = (CASE / "expected-pcs.yaml").read_text()
    assert 'terminationDelay: "15m0s"' in out or "terminationDelay: 15m0s" in out
    assert "15m0s" in expected


def test_grove_termination_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _render(tmp_path, "  groveTerminationDelay: 90m\n", monkeypatch, capsys)
    assert code == 0
    assert "1h30m0s" in out  # Go's time.Duration text


def test_discovery_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _render(tmp_path, "  discoveryBackend: etcd\n", monkeypatch, capsys)
    assert code == 0
    assert "nvidia.com/dynamo-discovery-backend: etcd" in out
    assert "value: kubernetes" not in out


def test_unknown_key_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _render(
        tmp_path, "  discoveryBackend: etcd\n  natsAddress: x\n", monkeypatch, capsys
    )
    assert (code, out) == (2, "")
    assert ".dynamo-render.yaml:5:" in err and "unknown key 'natsAddress'" in err


@pytest.mark.parametrize(
    ("text", "seconds"), [("15m", 900), ("1h30m", 5400), ("90s", 90), ("1h", 3600)]
)
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "15", "m", "1.5h", "15m ", "-1m"])
def test_parse_duration_refuses(text: str) -> None:
    assert parse_duration(text) is None


def test_bad_value_is_an_input_error() -> None:
    from renderer.config import parse_config

    data = b"apiVersion: dynamo-render/v1\nkind: Config\noperator:\n  discoveryBackend: zk\n"
    with pytest.raises(InputError, match="discoveryBackend must be one of"):
        parse_config(data, "c.yaml", base_dir="/")
