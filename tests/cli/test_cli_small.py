"""Small CLI behaviours: group help without a subcommand, and full digests in
binding-provenance messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from render_support import BASELINE, FRONTEND_BETA, decode_beta, expected_binding, v1beta1_dgd

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
    # The decode worker restores from reference vector 02 by checkpointRef, so its binding
    # is the Go-computed one (the examples' snapshot is renamed, so its binding is not).
    good = expected_binding("02-worker-baseline")
    digest = good.rsplit("/", 1)[1]
    last = "0" if digest[-1] != "0" else "1"
    changed = digest[:-1] + last  # differs in the last hex digit only
    dgd = v1beta1_dgd(
        FRONTEND_BETA + decode_beta(), annotations='    nvidia.com/enable-grove: "false"\n'
    )
    (tmp_path / "dgd.yaml").write_text(dgd)
    (tmp_path / "snaps").mkdir()
    shutil.copy(BASELINE, tmp_path / "snaps" / "decode.yaml")
    snaps = str(tmp_path / "snaps")
    assert main(["--no-config", "render", str(tmp_path / "dgd.yaml"), "--checkpoint", snaps]) == 0
    text = capsys.readouterr().out
    assert text.count(good) == 2  # the worker DCD's metadata and its pod template
    (tmp_path / "dcd.yaml").write_text(text.replace(good, good[: -len(digest)] + changed))
    code = main(["--no-config", "lint", str(tmp_path / "dcd.yaml"), "--checkpoint", snaps])
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if "[binding-provenance]" in line]
    assert len(lines) == 2
    for line in lines:
        assert f"digest {changed} is not the digest {digest}" in line
        assert "from hex digit 64 on" in line
