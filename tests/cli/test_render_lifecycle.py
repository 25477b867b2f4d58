"""`render` through the CLI at each state of an automatic checkpoint's life (docs/admission.md
section 3): never exit 2 for a state the operator handles.

The graph is the bundled example (`examples/llama-disagg-v1beta1`): its decode worker
restores from an automatic checkpoint, captured as `examples/snapshots/` (the DGD's uid is
that snapshot's controller ownerReference, `EXAMPLE_UID`; its name is the one the oracle
resolves for that uid: tests/operator/goldens/bound/example-v1beta1/checkpoint-resolution.yaml).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from paths import OPERATOR_GOLDENS, REPO

from renderer.cli import main
from renderer.keys import BINDING_KEY, CHECKPOINT_NAME_KEY

EXAMPLES = REPO / "examples"
EXAMPLE_UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"
RESOLUTION = OPERATOR_GOLDENS / "bound" / "example-v1beta1" / "checkpoint-resolution.yaml"
HEADER = "apiVersion: dynamo-render/v1\nkind: Config\n"


def _checkpoint() -> str:
    report = yaml.safe_load(RESOLUTION.read_text(encoding="utf-8"))
    name: str = report["components"]["VllmDecodeWorker"]["checkpointName"]
    return name


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", tmp_path / "dgd.yaml")
    (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("dynamo-render: warning: ")]


def test_day_zero_renders_everything_but_the_name_in_a_real_process(work: Path) -> None:
    """State 0: no uid anywhere. Exit 0; the operator's objects without the checkpoint
    name (it needs the uid), and one warning saying so and how to get the uid."""
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "render", "dgd.yaml", "--target", "dcd"],
        capture_output=True,
        text=True,
        check=False,
        cwd=work,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    (warning,) = _warnings(proc.stderr)
    assert warning.startswith("dynamo-render: warning: dgd.yaml:")
    assert "component 'VllmDecodeWorker': its checkpoint cannot be named yet" in warning
    assert "--dgd-uid" in warning
    assert "kubectl get dynamographdeployment llama-disagg -n dynamo-prod" in warning
    assert CHECKPOINT_NAME_KEY not in proc.stdout
    assert "checkpointRef" not in proc.stdout
    assert "nvidia.com/dynamo-checkpoint-restore-candidate" in proc.stdout
    assert BINDING_KEY not in proc.stdout


def test_day_zero_grove_leaves_out_only_the_name(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The PodCliqueSet without a uid is the one rendered with it, but for the name."""
    code, unnamed, err = _run(capsys, "render", "dgd.yaml", "--target", "grove")
    assert code == 0, err
    code, named, err = _run(
        capsys, "render", "dgd.yaml", "--target", "grove", "--dgd-uid", EXAMPLE_UID
    )
    assert code == 0, err
    line = f"          {CHECKPOINT_NAME_KEY}: {_checkpoint()}\n"
    assert named.count(line) == 1
    assert named.replace(line, "") == unnamed


@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_day_one_names_the_checkpoint_and_the_command_that_saves_it(
    work: Path, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _checkpoint()
    code, out, err = _run(
        capsys,
        *("render", "dgd.yaml", "--target", target, "--dgd-uid", EXAMPLE_UID),
        *("--checkpoint", "snapshots"),
    )
    assert code == 0, err
    (warning,) = _warnings(err)
    assert f"checkpoint dynamo-prod/{name} (DGD uid {EXAMPLE_UID} from --dgd-uid" in warning
    assert "is not captured yet" in warning
    assert (
        f"`kubectl get dynamocheckpoint {name} -n dynamo-prod -o yaml > snapshots/{name}.yaml`"
        in warning
    )
    assert f"{CHECKPOINT_NAME_KEY}: {name}" in out
    assert BINDING_KEY not in out


def test_day_two_binds_once_the_snapshot_is_saved(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _checkpoint()
    shutil.copy(EXAMPLES / "snapshots" / f"{name}.yaml", work / "snapshots" / f"{name}.yaml")
    argv = ("render", "dgd.yaml", "--target", "dcd", "--checkpoint", "snapshots")
    code, out, err = _run(capsys, *argv, "--dgd-uid", EXAMPLE_UID, "--require-bound")
    assert (code, err) == (0, "")
    assert out.count(BINDING_KEY) == 2
    # the uid from the snapshot's ownerReference names the same checkpoint
    assert _run(capsys, *argv) == (0, out, "")


def test_require_bound_fails_the_gate_and_prints_nothing(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _checkpoint()
    argv = ("render", "dgd.yaml", "--dgd-uid", EXAMPLE_UID, "--require-bound")
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (1, "")
    assert (
        "dynamo-render: --require-bound: DGD dynamo-prod/llama-disagg, component"
        f" 'VllmDecodeWorker': checkpoint {name} is not captured" in err
    )
    code, out, err = _run(capsys, *argv, "-o", "rendered")
    assert (code, out) == (1, "")
    assert not (work / "rendered").exists()
    # without the uid the name is unknown: unbound as well
    code, out, err = _run(capsys, "render", "dgd.yaml", "--require-bound")
    assert (code, out) == (1, "")
    assert "its checkpoint cannot be named without the DGD uid" in err


@pytest.mark.parametrize(
    ("uid", "message"),
    [
        ("0B7C8F52-3C1D-4F8E-9A51-2D6F1B3E4C77", "lower-case hex"),
        ("0b7c8f52-3c1d-4f8e-9a51", "8-4-4-4-12"),
        ("x\x1b[31m", "is not a DGD uid"),
    ],
)
def test_a_malformed_uid_is_a_usage_error(
    work: Path, uid: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "render", "dgd.yaml", "--dgd-uid", uid)
    assert (code, out) == (2, "")
    assert message in err
    assert "\x1b" not in err


def test_one_uid_for_several_dgds_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (work / "dgd.yaml").read_text(encoding="utf-8")
    other = text.replace("name: llama-disagg\n", "name: llama-other\n", 1)
    (work / "dgd.yaml").write_text(text + "---\n" + other, encoding="utf-8")
    code, out, err = _run(capsys, "render", "dgd.yaml", "--dgd-uid", EXAMPLE_UID)
    assert (code, out) == (2, "")
    assert "--dgd-uid is one DGD's metadata.uid" in err and "holds 2 DGDs" in err


def _config(work: Path, entries: str) -> None:
    (work / ".dynamo-render.yaml").write_text(HEADER + "render:\n" + entries, encoding="utf-8")


def test_config_entry_dgd_uid_names_the_checkpoint(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _checkpoint()
    _config(
        work,
        "  - dgd: dgd.yaml\n    dgdUID: 0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77\n"
        "    checkpoints: [snapshots]\n    target: dcd\n    output: rendered\n",
    )
    code, _, err = _run(capsys, "render")
    assert code == 0, err
    (warning,) = _warnings(err)
    assert f"{name} (DGD uid {EXAMPLE_UID} from dgdUID: of the entry at" in warning
    written = "".join(p.read_text() for p in sorted((work / "rendered").iterdir()))
    assert f"{CHECKPOINT_NAME_KEY}: {name}" in written
    # the release gate over the config's entries
    code, out, err = _run(capsys, "render", "--check", "--require-bound")
    assert (code, out) == (1, "")
    assert "--require-bound: DGD dynamo-prod/llama-disagg" in err
    # --dgd-uid belongs to one DGD_FILE
    code, out, err = _run(capsys, "render", "--dgd-uid", EXAMPLE_UID)
    assert (code, out) == (2, "")
    assert "--dgd-uid: only with DGD_FILE" in err


def test_config_entry_dgd_uid_is_checked_at_its_line(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(work, "  - dgd: dgd.yaml\n    dgdUID: not-a-uid\n    output: rendered\n")
    code, out, err = _run(capsys, "render")
    assert (code, out) == (2, "")
    assert err.startswith("dynamo-render: error: .dynamo-render.yaml:5:13: render[0].dgdUID")


def test_check_lists_every_stale_file_of_every_entry(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A re-capture committed without re-rendering (state 4): --check is exit 1 and lists
    every file it would change, in every entry, not only the first."""
    (work / "v1alpha1.yaml").write_text(
        (EXAMPLES / "llama-disagg-v1alpha1" / "dgd.yaml").read_text(encoding="utf-8")
    )
    _config(
        work,
        "  - dgd: dgd.yaml\n    checkpoints: [snapshots]\n    target: dcd\n    output: beta\n"
        "  - dgd: v1alpha1.yaml\n    checkpoints: [snapshots]\n    target: dcd\n"
        "    output: alpha\n",
    )
    name = _checkpoint()
    snapshot = work / "snapshots" / f"{name}.yaml"
    shutil.copy(EXAMPLES / "snapshots" / f"{name}.yaml", snapshot)
    assert _run(capsys, "render")[0] == 0
    assert _run(capsys, "render", "--check") == (0, "", "")
    # re-captured: same checkpoint, new generation
    snapshot.write_text(snapshot.read_text().replace("generation: 1\n", "generation: 2\n"))
    code, out, err = _run(capsys, "render", "--check")
    assert code == 1, err
    stale = sorted(line for line in out.splitlines() if line.startswith("would write "))
    assert stale == [
        "would write alpha/dynamocomponentdeployment-llama-disagg-vllmdecodeworker-b59eb498.yaml",
        "would write beta/dynamocomponentdeployment-llama-disagg-vllmdecodeworker-b59eb498.yaml",
    ]
    assert "rendered files are out of date" in err
    assert "run `dynamo-render render` to update them" in err
