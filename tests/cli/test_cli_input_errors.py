"""Input errors the CLI reports at file:line:column with exit 2, never a traceback."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main

DGD = REPO / "examples" / "llama-disagg-v1beta1" / "dgd.yaml"
SNAPSHOTS = REPO / "examples" / "snapshots"


@pytest.fixture
def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        code = main(["--no-config", *args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def test_binding_of_an_empty_file_names_it(
    tmp_path: Path, run: Callable[..., tuple[int, str, str]]
) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    code, out, err = run("binding", str(empty))
    assert (code, out) == (2, "")
    found = "no DynamoCheckpoint objects found"
    assert err == f"dynamo-render: error: {empty}:1:1: {found} (no YAML documents)\n"


def test_binding_of_another_kind_points_at_its_kind(
    tmp_path: Path, run: Callable[..., tuple[int, str, str]]
) -> None:
    other = tmp_path / "cm.yaml"
    other.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code, out, err = run("binding", str(other))
    assert (code, out) == (2, "")
    # line 2, column 7: the value of `kind`
    found = "no DynamoCheckpoint objects found"
    assert err == f"dynamo-render: error: {other}:2:7: {found} (this is a ConfigMap)\n"


def test_binding_of_empty_stdin(run: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = run("binding", "-", stdin="---\n")
    assert code == 2
    assert "<stdin>:1:1: no DynamoCheckpoint objects found" in err


@pytest.mark.parametrize("make", ["too-long", "under-a-file"])
def test_render_output_dir_that_cannot_exist(
    tmp_path: Path, make: str, run: Callable[..., tuple[int, str, str]]
) -> None:
    if make == "too-long":
        out = tmp_path / ("x" * 300)  # over NAME_MAX on every common file system
    else:
        (tmp_path / "file").write_text("")
        out = tmp_path / "file" / "sub"
    code, out_text, err = run("render", str(DGD), "--checkpoint", str(SNAPSHOTS), "-o", str(out))
    assert (code, out_text) == (2, "")
    assert err.startswith("dynamo-render: error: ")
    assert err.count("\n") == 1
    assert not out.exists() if make == "under-a-file" else True


def test_a_broken_config_still_shows_help_but_stops_real_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".dynamo-render.yaml").write_text(
        "apiVersion: dynamo-render/v1\nkind: Config\nlint: {format: txt}\n"
    )
    monkeypatch.chdir(tmp_path)
    # the help that explains the config must not be hidden by it
    for args in (["lint", "--help"], ["render", "-h"], ["lint", "--list-rules"]):
        assert main(args) == 0, args
    capsys.readouterr()
    # a real run reports the broken config, at its line and column (`txt`)
    assert main(["lint", "x.yaml"]) == 2
    assert capsys.readouterr().err == (
        "dynamo-render: error: .dynamo-render.yaml:3:16: lint.format must be one of: text,"
        " json, github, sarif, gitlab, junit\n"
    )
    # after `--` a `--help` is a file name, not a request for help
    assert main(["lint", "--", "--help"]) == 2


def test_render_reads_a_snapshot_named_twice_once(run: Callable[..., tuple[int, str, str]]) -> None:
    # the folder and the file in it: one snapshot, not two candidates for the decode worker
    snapshot = next(SNAPSHOTS.glob("*.yaml"))
    code, out, err = run(
        "render", str(DGD), "--checkpoint", str(SNAPSHOTS), "--checkpoint", str(snapshot)
    )
    assert (code, err) == (0, "")
    assert out.count("nvidia.com/dynamo-checkpoint-binding:") == 1
