"""Small CLI behaviours: group help without a subcommand, and full digests in
binding-provenance messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from render_support import EXAMPLES, expected_binding

from renderer.cli import main


@pytest.mark.parametrize("argv", [[], ["snapshot"]])
def test_group_without_subcommand_prints_help_on_many_lines(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("Usage: dynamo-render")
    assert "\\n" not in out  # click >= 8.2 hands the help over as an error message
    assert "\nCommands:\n" in out
    assert len(out.splitlines()) > 10


def test_unknown_option_stays_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["render", "--bogus"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Try 'dynamo-render render --help' for help." in err
    # the last line is click's own error (it may add "Did you mean ...?" for a near name)
    assert err.rstrip().splitlines()[-1].startswith("Error: No such option '--bogus'.")


def test_provenance_shows_both_full_digests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = expected_binding("02-worker-baseline")  # the Go-computed binding of the example
    digest = good.rsplit("/", 1)[1]
    last = "0" if digest[-1] != "0" else "1"
    changed = digest[:-1] + last  # differs in the last hex digit only
    text = (EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    assert text.count(good) == 2
    (tmp_path / "dcd.yaml").write_text(text.replace(good, good[: -len(digest)] + changed))
    shutil.copytree(EXAMPLES / "snapshots", tmp_path / "snaps")
    code = main(
        ["--no-config", "lint", str(tmp_path / "dcd.yaml"), "--checkpoint", str(tmp_path / "snaps")]
    )
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if "[binding-provenance]" in line]
    assert len(lines) == 2
    for line in lines:
        assert f"digest {changed} is not the digest {digest}" in line
        assert "from hex digit 64 on" in line
