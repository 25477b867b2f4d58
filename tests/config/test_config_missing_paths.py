"""A path the config names that does not exist is reported at its line in the config,
where it is fixed, not as a bare file name the reader has to trace back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main

HEADER = "apiVersion: dynamo-render/v1\nkind: Config\n"
SNAPSHOT = REPO / "examples" / "snapshots" / "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copy(REPO / "examples" / "llama-disagg-v1beta1" / "dgd.yaml", tmp_path / "dgd.yaml")
    (tmp_path / "snapshots").mkdir()
    shutil.copy(SNAPSHOT, tmp_path / "snapshots" / "decode.yaml")
    (tmp_path / "rendered").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _error(config: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    Path(".dynamo-render.yaml").write_text(HEADER + config)
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    return captured.err


@pytest.mark.parametrize(
    ("config", "argv", "expected"),
    [
        (
            "render:\n  - dgd: dgdz.yaml\n    checkpoints: [snapshots]\n    output: out\n",
            ["render"],
            ".dynamo-render.yaml:4:10: render[0].dgd: 'dgdz.yaml' does not exist",
        ),
        (
            "render:\n  - dgd: dgd.yaml\n    checkpoints: [snapshotz]\n    output: out\n",
            ["render"],
            ".dynamo-render.yaml:5:19: render[0].checkpoints[0]: 'snapshotz' does not exist",
        ),
        (
            "lint:\n  paths: [rendered, renderd]\n",
            ["lint"],
            ".dynamo-render.yaml:4:21: lint.paths[1]: 'renderd' does not exist",
        ),
        (
            "lint:\n  checkpoints:\n    - snapshotz\n",
            ["lint", "rendered"],
            ".dynamo-render.yaml:5:7: lint.checkpoints[0]: 'snapshotz' does not exist",
        ),
        (
            "lint:\n  baseline: lint-baseline.json\n",
            ["lint", "rendered"],
            ".dynamo-render.yaml:4:13: lint.baseline: 'lint-baseline.json' does not exist",
        ),
        (
            "trustedKeys: [keys/ci.pub]\n",
            ["lint", "rendered"],
            ".dynamo-render.yaml:3:15: trustedKeys[0]: 'keys/ci.pub' does not exist",
        ),
        (
            "crds: [crds/dgd.yaml]\n",
            ["render", "dgd.yaml", "--checkpoint", "snapshots"],
            ".dynamo-render.yaml:3:8: crds[0]: 'crds/dgd.yaml' does not exist",
        ),
    ],
)
def test_a_missing_config_path_is_at_its_config_line(
    repo: Path, capsys: pytest.CaptureFixture[str], config: str, argv: list[str], expected: str
) -> None:
    assert _error(config, argv, capsys) == f"dynamo-render: error: {expected}\n"


def test_from_a_subfolder_the_config_line_is_still_named(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("deploy").mkdir()
    Path(".dynamo-render.yaml").write_text(HEADER + "lint:\n  paths: [renderd]\n")
    monkeypatch.chdir(repo / "deploy")
    capsys.readouterr()
    assert main(["lint"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dynamo-render: error: ")
    assert ".dynamo-render.yaml:4:11: lint.paths[0]: '../renderd' does not exist\n" in err


def test_a_missing_path_on_the_command_line_is_reported_as_before(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error("lint:\n  paths: [rendered]\n", ["lint", "nothere"], capsys)
    assert err == "dynamo-render: error: nothere: cannot read file: No such file or directory\n"
