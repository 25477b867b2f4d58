"""`dynamo-render render` end to end: stream format, -o files, --check, trust, determinism."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import REPO
from render_support import (
    BASELINE,
    EXAMPLES,
    FAILED_PHASE,
    FRONTEND_BETA,
    MINIMAL,
    decode_beta,
    expected_binding,
    v1beta1_dgd,
)

from renderer.cli import main
from renderer.commands.render import RenderArgs, plan
from renderer.keys import BINDING_KEY
from renderer.render.names import UnsafeNameError, output_file_name
from renderer.source import load_bytes, load_paths

# DCDs by default (the operator's provider without Grove); the decode worker restores from
# vector 02 by checkpointRef. WORKER_HASH is the oracle's worker hash of this DGD.
SINGLE = v1beta1_dgd(
    FRONTEND_BETA + decode_beta(), annotations='    nvidia.com/enable-grove: "false"\n'
)
WORKER_HASH = "e814208e"
EXAMPLE = "llama-disagg-v1beta1"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with dgd.yaml and snaps/ (the baseline vector), as the cwd."""
    (tmp_path / "dgd.yaml").write_text(SINGLE)
    (tmp_path / "snaps").mkdir()
    shutil.copy(BASELINE, tmp_path / "snaps" / "decode.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["render", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_stream_has_source_comments_and_separators(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")
    assert (code, err) == (0, "")
    documents = out.split("---\n")
    assert len(documents) == 2  # two DCDs (default target: no enable-grove annotation)
    for document in documents:
        assert document.startswith("# Source: dgd.yaml\napiVersion: nvidia.com/v1beta1\n")
    objects = load_bytes(out.encode(), "out.yaml")
    assert [o.name for o in objects] == [
        "llama-disagg-frontend",
        f"llama-disagg-vllmdecodeworker-{WORKER_HASH}",
    ]
    assert objects[1].metadata["annotations"][BINDING_KEY] == expected_binding("02-worker-baseline")


def test_default_target_is_the_operators_provider(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The defaulting webhook picks Grove unless the DGD disables it.
    grove = v1beta1_dgd(FRONTEND_BETA + decode_beta())
    (work / "grove.yaml").write_text(grove)
    code, out, _ = _run(capsys, "grove.yaml", "--checkpoint", "snaps")
    assert code == 0
    assert [o.kind for o in load_bytes(out.encode(), "o")] == ["PodCliqueSet"]
    code, out, _ = _run(capsys, "grove.yaml", "--checkpoint", "snaps", "--target", "dcd")
    assert {o.kind for o in load_bytes(out.encode(), "o")} == {"DynamoComponentDeployment"}
    code, out, _ = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")  # enable-grove "false"
    assert {o.kind for o in load_bytes(out.encode(), "o")} == {"DynamoComponentDeployment"}


def test_output_dir_one_file_per_object(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out")
    assert (code, err) == (0, "")
    names = sorted(p.name for p in (work / "out").iterdir())
    assert sorted(out.splitlines()) == [f"wrote out/{name}" for name in names]
    # A second run changes nothing, so it says nothing.
    assert _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out") == (0, "", "")
    assert names == [
        "dynamocomponentdeployment-llama-disagg-frontend.yaml",
        f"dynamocomponentdeployment-llama-disagg-vllmdecodeworker-{WORKER_HASH}.yaml",
    ]
    for name in names:
        text = (work / "out" / name).read_text()
        assert text.startswith("# Source: dgd.yaml\n")
        assert "---" not in text
    # The files hold exactly the stdout documents.
    _, stream, _ = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")
    assert "---\n".join((work / "out" / n).read_text() for n in names) == stream


def test_only_changed_files_are_rewritten(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out")
    files = sorted((work / "out").iterdir())
    inodes = {p.name: p.stat().st_ino for p in files}
    (work / "dgd.yaml").write_text(SINGLE.replace("replicas: 2", "replicas: 3"))
    assert _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out")[0] == 0
    after = {p.name: p.stat().st_ino for p in sorted((work / "out").iterdir())}
    frontend = "dynamocomponentdeployment-llama-disagg-frontend.yaml"
    worker = f"dynamocomponentdeployment-llama-disagg-vllmdecodeworker-{WORKER_HASH}.yaml"
    assert after[frontend] == inodes[frontend]  # untouched
    assert after[worker] != inodes[worker]  # replaced (atomically, by rename)
    assert "replicas: 3" in (work / "out" / worker).read_text()
    assert not [p for p in (work / "out").iterdir() if p.name.startswith(".")]  # no temp files


def test_check_mode(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("dgd.yaml", "--checkpoint", "snaps", "-o", "out")
    code, out, _ = _run(capsys, *args, "--check")
    assert code == 1
    assert out.splitlines() == [
        f"would write {Path('out') / n}"
        for n in (
            "dynamocomponentdeployment-llama-disagg-frontend.yaml",
            f"dynamocomponentdeployment-llama-disagg-vllmdecodeworker-{WORKER_HASH}.yaml",
        )
    ]
    assert not (work / "out").exists()  # --check writes nothing
    _run(capsys, *args)
    assert _run(capsys, *args, "--check") == (0, "", "")
    worker = (
        work / "out" / f"dynamocomponentdeployment-llama-disagg-vllmdecodeworker-{WORKER_HASH}.yaml"
    )
    stale = worker.read_text().replace("4a0a7a7b", "00000000")
    worker.write_text(stale)
    code, out, _ = _run(capsys, *args, "--check")
    assert (code, out) == (1, f"would write {Path('out') / worker.name}\n")
    assert worker.read_text() == stale


def test_unmatched_snapshot_is_a_warning(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(MINIMAL, work / "snaps" / "other.yaml")
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")
    assert code == 0
    assert out
    assert err.splitlines() == [
        "dynamo-render: warning: snaps/other.yaml:4:3: checkpoint dynamo-prod/checkpoint-a1b2c3d4"
        " matches no checkpoint-enabled component of DGD dynamo-prod/llama-disagg"
    ]


def test_not_ready_snapshot_warns(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(FAILED_PHASE, work / "snaps" / "decode.yaml")
    code, _, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")
    assert code == 0
    assert err.splitlines() == [
        "dynamo-render: warning: snaps/decode.yaml:143:3: status.phase is Failed, not Ready"
        " (the operator restores only from a Ready checkpoint)"
    ]


def test_snapshot_without_phase_warns(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = v1beta1_dgd(decode_beta(checkpoint="          checkpointRef: checkpoint-a1b2c3d4\n"))
    (work / "dgd.yaml").write_text(text)
    shutil.copy(MINIMAL, work / "snaps" / "decode.yaml")
    code, _, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps")
    assert code == 0
    assert err.splitlines() == [
        "dynamo-render: warning: snaps/decode.yaml:4:3: component 'VllmDecodeWorker': checkpoint"
        " checkpoint-a1b2c3d4 has no status.phase, so it is not Ready (the operator restores"
        " only from a Ready checkpoint)"
    ]


def test_render_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = RenderArgs(
        str(EXAMPLES / EXAMPLE / "dgd.yaml"), (str(EXAMPLES / "snapshots"),), target="grove"
    )
    first, second = plan(args), plan(args)
    assert first.stdout == second.stdout
    assert first.stdout.encode() == plan(args).stdout.encode()


def test_trusted_key(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for prefix in ("good", "other"):
        assert main(["snapshot", "keygen", "--out", prefix]) == 0
    assert main(["snapshot", "sign", "snaps/decode.yaml", "--key", "good.key"]) == 0
    capsys.readouterr()
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "--trusted-key", "good.pub")
    assert (code, err) == (0, "")
    assert BINDING_KEY in out
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "--trusted-key", "other.pub")
    assert (code, out) == (2, "")
    assert err.startswith(
        "dynamo-render: error: snaps/decode.yaml: untrusted checkpoint snapshot: "
    )
    assert len(err.splitlines()) == 1


def test_unsigned_snapshot_is_untrusted(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "keygen", "--out", "good"]) == 0
    capsys.readouterr()
    code, out, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "--trusted-key", "good.pub")
    assert (code, out) == (2, "")
    assert "untrusted checkpoint snapshot" in err


def test_failed_write_leaves_no_temp_file(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = work / "out"
    out.mkdir()
    (out / "dynamocomponentdeployment-llama-disagg-frontend.yaml").mkdir()  # in the way
    code, stdout, err = _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out")
    assert (code, stdout) == (2, "")
    assert "a directory is in the way" in err
    # Checked before writing anything: the other file was not written either.
    assert sorted(p.name for p in out.iterdir()) == [
        "dynamocomponentdeployment-llama-disagg-frontend.yaml"
    ]


@pytest.mark.parametrize("name", ["../x", "a/b", "x\0y", "..", "a..b", "UPPER"])
def test_output_file_name_refuses_unsafe_names(name: str) -> None:
    with pytest.raises(UnsafeNameError):
        output_file_name("PodCliqueSet", name)


def test_output_file_name() -> None:
    assert output_file_name("PodCliqueSet", "llama") == "podcliqueset-llama.yaml"


def test_written_files_load_back(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "dgd.yaml", "--checkpoint", "snaps", "-o", "out", "--target", "grove")
    (pcs,) = load_paths([str(work / "out")])
    assert pcs.kind == "PodCliqueSet"
    assert pcs.name == "llama-disagg"


def test_the_source_line_does_not_depend_on_how_the_dgd_path_is_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # committed output and `--check` against it must agree however CI spells the path
    (tmp_path / "deploy").mkdir()
    shutil.copy(REPO / "examples" / "llama-disagg-v1beta1" / "dgd.yaml", tmp_path / "deploy")
    monkeypatch.chdir(tmp_path)
    snapshots = str(REPO / "examples" / "snapshots")
    outputs = []
    for spelled in ("deploy/dgd.yaml", "./deploy/dgd.yaml", str(tmp_path / "deploy/dgd.yaml")):
        assert main(["--no-config", "render", spelled, "--checkpoint", snapshots]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].startswith("# Source: deploy/dgd.yaml\n")
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    assert (
        main(["--no-config", "render", "deploy/dgd.yaml", "--checkpoint", snapshots, "-o", "out"])
        == 0
    )
    check = ["render", "./deploy/dgd.yaml", "--checkpoint", snapshots, "-o", "out", "--check"]
    assert main(["--no-config", *check]) == 0
