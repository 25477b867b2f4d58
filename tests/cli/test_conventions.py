"""Small conventions kubectl, helm and git users expect: a completion command whose script
real bash runs, the nearest command for a typo, a warning for `render -o json`, and a
SARIF driver that does not point at the operator's repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO, VECTORS

from renderer.cli import main

SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
AGG = (REPO / "examples" / "upstream" / "vllm-agg.yaml").read_text().replace(":my-tag", ":1.3.0")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def program(tmp_path: Path) -> dict[str, str]:
    """An environment where `dynamo-render` on PATH is this checkout."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "dynamo-render"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m renderer "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(REPO)
    return env


def _complete(env: dict[str, str], words: str) -> list[str]:
    """What real bash completes for `words` (the last one being typed)."""
    script = (
        "source <(dynamo-render completion bash)\n"
        f"COMP_WORDS=({words})\n"
        "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
        "_dynamo_render_completion dynamo-render\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.split()


def test_bash_completion_completes_commands_and_options(program: dict[str, str]) -> None:
    assert _complete(program, "dynamo-render ren") == ["render"]
    assert "completion" in _complete(program, "dynamo-render co")
    assert _complete(program, "dynamo-render lint --for") == ["--format"]
    assert _complete(program, "dynamo-render lint --format sa") == ["sarif"]


@pytest.mark.parametrize(
    ("shell", "marker"),
    [("bash", "complete -o nosort -F"), ("zsh", "compdef"), ("fish", "complete --no-files")],
)
def test_completion_prints_each_shells_script(
    shell: str, marker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["completion", shell], capsys)
    assert code == 0
    assert marker in out
    assert "_DYNAMO_RENDER_COMPLETE" in out
    assert out.endswith("\n")


def test_completion_of_an_unknown_shell_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(["completion", "tcsh"], capsys)
    assert (code, out) == (2, "")
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in err


@pytest.mark.parametrize(
    ("typed", "hint"),
    [("rendr", " Did you mean 'render'?"), ("lnt", " Did you mean 'lint'?"), ("xyzzy", "")],
)
def test_a_mistyped_command_gets_the_nearest_one(
    typed: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([typed], capsys)
    assert (code, out) == (2, "")
    assert err.rstrip().splitlines()[-1] == f"Error: No such command '{typed}'.{hint}"


@pytest.mark.parametrize("value", ["json", "yaml", "wide", "jsonpath={.items}"])
def test_render_o_with_a_kubectl_output_format_warns(
    value: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("agg.yaml").write_text(AGG)
    code, out, err = _run(
        ["--no-config", "render", "agg.yaml", "-n", "dynamo-prod", "-o", value], capsys
    )
    assert code == 0
    assert out.startswith(f"wrote {value}/podcliqueset-vllm-agg.yaml")
    assert err == (
        f"dynamo-render: warning: -o {value} is the output folder here (one file per object"
        f" is written into {value}/), not kubectl's output format; without -o, render prints"
        " one YAML stream on stdout\n"
    )
    # the folder exists now: meant, so no warning the next time
    again = _run(["--no-config", "render", "agg.yaml", "-n", "dynamo-prod", "-o", value], capsys)
    assert again[2] == ""


def test_render_o_with_an_ordinary_folder_does_not_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("agg.yaml").write_text(AGG)
    code, _, err = _run(
        ["--no-config", "render", "agg.yaml", "-n", "dynamo-prod", "-o", "rendered"], capsys
    )
    assert (code, err) == (0, "")


def test_the_sarif_driver_does_not_name_the_operators_repository(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fixture = str(REPO / "tests" / "fixtures" / "lint" / "dcd-v1beta1" / "binding-stale.yaml")
    code, out, _ = _run(
        ["--no-config", "lint", fixture, "--checkpoint", SNAPSHOT, "--format", "sarif"], capsys
    )
    assert code == 1
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["name"] == "dynamo-render"
    assert "ai-dynamo" not in json.dumps(driver.get("informationUri", ""))
