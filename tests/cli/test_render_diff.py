"""`render -o DIR --diff` and `render --check --diff`: a unified diff of every file that
changes, which the real `patch` applies to turn the folder into what render writes.

The reference is the render itself (`render -o DIR` without --diff, whose output the
render tests check against the operator oracle) and GNU patch: applying the printed diff
to the stale folder must give exactly the files a render writes.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main
from renderer.commands.render import RenderArgs, execute

EXAMPLES = REPO / "examples"
DGD = "dgd.yaml"
DECODE = "rendered/dynamocomponentdeployment-llama-disagg-vllmdecodeworker-b59eb498.yaml"
RENDER = ["--no-config", "render", DGD, "--checkpoint", "snapshots", "--target", "dcd"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A rendered folder where one file was hand-edited and one owned file is stale."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", DGD)
    shutil.copytree(EXAMPLES / "snapshots", "snapshots")
    assert main([*RENDER, "-o", "rendered"]) == 0
    path = Path(DECODE)
    path.write_text(path.read_text().replace("/1/17f9", "/2/17f9"))
    # an owned file (this DGD's header) that no object renders to any more
    Path("rendered/dynamocomponentdeployment-llama-disagg-gone.yaml").write_text(
        f"# Source: {DGD}\nkind: DynamoComponentDeployment\n"
    )
    return tmp_path


def _expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    fresh = tmp_path / "fresh"
    shutil.copytree(tmp_path / "rendered", fresh)
    assert _run([*RENDER, "-o", str(fresh)], capsys)[0] == 0
    return {p.name: p.read_bytes() for p in sorted(fresh.iterdir())}


def _patched(tmp_path: Path, diff: str) -> dict[str, bytes]:
    copy = tmp_path / "patched"
    shutil.copytree(tmp_path / "rendered", copy / "rendered")
    subprocess.run(
        ["patch", "-p0", "--batch", "--silent", "--remove-empty-files"],
        input=diff.encode(),
        cwd=copy,
        check=True,
    )
    return {p.name: p.read_bytes() for p in sorted((copy / "rendered").iterdir())}


def test_check_diff_is_what_a_render_would_change(
    stale: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*RENDER, "-o", "rendered", "--check", "--diff"], capsys)
    assert code == 1, err
    listing, _, diff = out.partition("--- ")
    assert listing == (
        f"would write {DECODE}\n"
        "would remove rendered/dynamocomponentdeployment-llama-disagg-gone.yaml\n"
    )
    diff = "--- " + diff
    assert f"--- {DECODE}\n+++ {DECODE}\n" in diff
    assert (
        "-    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/2/"
        in (diff)
    )
    assert "+++ /dev/null\n" in diff
    assert "\033" not in out  # not a terminal: no colour
    expected = _expected(stale, capsys)
    assert _patched(stale, diff) == expected
    # --check wrote nothing, and the same run prints the same bytes
    assert "/2/17f9" in Path(DECODE).read_text()
    assert _run([*RENDER, "-o", "rendered", "--check", "--diff"], capsys)[1] == out


def test_render_diff_writes_and_shows_the_same_change(
    stale: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, checked, _ = _run([*RENDER, "-o", "rendered", "--check", "--diff"], capsys)
    code, out, _ = _run([*RENDER, "-o", "rendered", "--diff"], capsys)
    assert code == 0
    assert out.startswith(f"wrote {DECODE}\nremoved rendered/")
    assert out.partition("--- ")[2] == checked.partition("--- ")[2]
    # up to date now: nothing to show
    assert _run([*RENDER, "-o", "rendered", "--diff"], capsys)[1] == ""
    assert _run([*RENDER, "-o", "rendered", "--check", "--diff"], capsys)[:2] == (0, "")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_under_no_color(
    stale: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = RenderArgs(DGD, ["snapshots"], "dcd", "rendered", check=True, diff=True, source_name=DGD)
    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = _Terminal()
    assert execute(args, terminal, io.StringIO()) == 1
    text = terminal.getvalue()
    assert f"\033[1m--- {DECODE}\033[0m\n" in text
    assert "\033[31m-    nvidia.com/dynamo-checkpoint-binding: " in text
    assert "\033[32m+    nvidia.com/dynamo-checkpoint-binding: " in text
    assert "\033[36m@@ " in text
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    assert execute(args, plain, io.StringIO()) == 1
    assert "\033" not in plain.getvalue()


def test_a_control_character_in_an_old_file_is_shown_escaped(
    stale: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = Path(DECODE)
    path.write_text(path.read_text().replace("example.com/owner", "example.com/\033[2Jowner"))
    code, out, _ = _run([*RENDER, "-o", "rendered", "--check", "--diff"], capsys)
    assert code == 1
    assert "\033" not in out
    assert "-        example.com/\\x1b[2Jowner: ml-platform\n" in out


def test_diff_needs_an_output_folder(stale: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run([*RENDER, "--diff"], capsys)
    assert (code, out) == (2, "")
    assert (
        err == "dynamo-render: error: --diff needs -o DIR (it shows how the files in DIR change)\n"
    )


def test_configured_render_check_diff(stale: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (stale / ".git").mkdir()
    Path(".dynamo-render.yaml").write_text(
        "apiVersion: dynamo-render/v1\nkind: Config\nrender:\n"
        f"  - dgd: {DGD}\n    checkpoints: [snapshots]\n    target: dcd\n    output: rendered\n"
    )
    code, out, err = _run(["render", "--check", "--diff"], capsys)
    assert code == 1
    assert f"--- {DECODE}\n+++ {DECODE}\n" in out
    assert "rendered files are out of date" in err
    assert _patched(stale, "--- " + out.partition("--- ")[2]) == _expected(stale, capsys)
