"""`dynamo-render snapshot keygen|sign|verify` end to end: files, modes, exit codes, messages."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from signing_support import BASELINE, MINIMAL

from renderer.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["snapshot", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    code, out, _ = run(capsys, "keygen", "--out", str(tmp_path / "release"))
    assert code == 0
    assert "key fingerprint: sha256:" in out
    return str(tmp_path / "release.key"), str(tmp_path / "release.pub")


def test_keygen_files_and_modes(tmp_path: Path, keys: tuple[str, str]) -> None:
    key, pub = keys
    assert stat.S_IMODE(Path(key).stat().st_mode) == 0o600
    assert Path(key).read_text().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert Path(pub).read_text().startswith("-----BEGIN PUBLIC KEY-----\n")
    # No temp files left next to them.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.key", "release.pub"]


def test_keygen_refuses_to_overwrite(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = Path(keys[0]).read_bytes()
    code, _, err = run(capsys, "keygen", "--out", str(tmp_path / "release"))
    assert code == 2
    assert "release.key already exists (pass --force to replace it)" in err
    assert Path(keys[0]).read_bytes() == before
    code, _, _ = run(capsys, "keygen", "--out", str(tmp_path / "release"), "--force")
    assert code == 0
    assert Path(keys[0]).read_bytes() != before


def test_sign_then_verify(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    key, pub = keys
    snap = tmp_path / "snap.yaml"
    snap.write_text(BASELINE.read_text())
    code, out, err = run(capsys, "sign", str(snap), "--key", key)
    assert (code, err) == (0, "")
    assert f"signed {snap} -> {snap}.sig (sha256:" in out
    sig = Path(f"{snap}.sig")
    assert sig.read_text().startswith("dynamo-render snapshot signature v1\n")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]

    code, out, err = run(capsys, "verify", str(snap), "--key", pub)
    assert (code, out, err) == (0, f"{snap}: signature valid\n", "")

    snap.write_text(BASELINE.read_text().replace("0.6.1", "0.6.2"))
    code, out, err = run(capsys, "verify", str(snap), "--key", pub)
    assert code == 1
    assert out == ""
    assert err == (
        f"dynamo-render: {sig}: signature does not match the content of {snap} (a bound field"
        " changed, or the signature is for another snapshot)\n"
    )


def test_verify_failures_are_exit_1_with_distinct_reasons(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    key, pub = keys
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL.read_text())
    code, _, err = run(capsys, "verify", str(snap), "--key", pub)
    assert code == 1 and "snapshot is not signed" in err
    assert run(capsys, "sign", str(snap), "--key", key)[0] == 0

    run(capsys, "keygen", "--out", str(tmp_path / "other"))
    code, _, err = run(capsys, "verify", str(snap), "--key", str(tmp_path / "other.pub"))
    assert code == 1 and "signed by an unknown key" in err
    # Any one of several keys may have signed it.
    code, _, _ = run(
        capsys, "verify", str(snap), "--key", str(tmp_path / "other.pub"), "--key", pub
    )
    assert code == 0

    sig = Path(f"{snap}.sig")
    sig.write_text(sig.read_text()[:-30])
    code, _, err = run(capsys, "verify", str(snap), "--key", pub)
    assert code == 1 and "malformed signature file" in err


def test_several_snapshots_one_failing(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    key, pub = keys
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(MINIMAL.read_text())
    b.write_text(BASELINE.read_text())
    assert run(capsys, "sign", str(a), str(b), "--key", key)[0] == 0
    Path(f"{b}.sig").unlink()
    code, out, err = run(capsys, "verify", str(a), str(b), "--key", pub)
    assert code == 1
    assert out == f"{a}: signature valid\n"
    assert f"{b}: snapshot is not signed" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("kind: [\n", "invalid YAML"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
            "snap.yaml:2:1: a signed snapshot holds only DynamoCheckpoint objects",
        ),
        ("# nothing\n", "no Kubernetes objects"),
    ],
)
def test_bad_snapshots_are_input_errors(
    tmp_path: Path,
    keys: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    content: str,
    message: str,
) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(content)
    for args in (("sign", str(snap), "--key", keys[0]), ("verify", str(snap), "--key", keys[1])):
        code, _, err = run(capsys, *args)
        assert code == 2, err
        assert err.startswith("dynamo-render: error: ")
        assert message in err
        assert err.count("\n") == 1
    assert not Path(f"{snap}.sig").exists()


def test_sign_writes_nothing_when_one_snapshot_is_bad(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(MINIMAL.read_text())
    bad.write_text("kind: [\n")
    assert run(capsys, "sign", str(good), str(bad), "--key", keys[0])[0] == 2
    assert not Path(f"{good}.sig").exists()


def test_usage_errors(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL.read_text())
    cases = [
        (("sign", str(snap), "--key", keys[1]), "this is a public key"),
        (("verify", str(snap), "--key", keys[0]), "this is a private key"),
        (("verify", str(snap), "--key", str(tmp_path / "nope.pub")), "cannot read public key"),
        (("sign", str(tmp_path), "--key", keys[0]), "not a file"),
        (("sign", "-", "--key", keys[0]), "not a file"),
        (("verify", str(snap)), "Missing option '--key'"),
        (("sign", "--key", keys[0]), "Missing argument"),
    ]
    for args, message in cases:
        code, _, err = run(capsys, *args)
        assert code == 2, args
        assert message in err, (args, err)
        assert "Traceback" not in err


def test_size_cap(
    tmp_path: Path, keys: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(BASELINE.read_text())
    code, _, err = run(capsys, "sign", str(snap), "--key", keys[0], "--max-bytes", "100")
    assert code == 2 and "larger than the size limit of 100 bytes" in err


def test_real_process(tmp_path: Path) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(BASELINE.read_text())
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "renderer", "snapshot", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    assert cli("keygen", "--out", str(tmp_path / "k")).returncode == 0
    assert cli("sign", str(snap), "--key", str(tmp_path / "k.key")).returncode == 0
    ok = cli("verify", str(snap), "--key", str(tmp_path / "k.pub"))
    assert (ok.returncode, ok.stderr) == (0, "")
    snap.write_text(BASELINE.read_text().replace("generation: 1", "generation: 2"))
    bad = cli("verify", str(snap), "--key", str(tmp_path / "k.pub"))
    assert bad.returncode == 1
    assert "signature does not match" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize("prefix", ["", "keys/", ".", "..", "keys/."])
def test_keygen_refuses_a_prefix_without_a_file_name(
    prefix: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--out ''` (or a folder) would write hidden `.key`/`.pub` files: exit 2, nothing
    written."""
    (tmp_path / "keys").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "keygen", "--out", prefix)
    assert (code, out) == (2, "")
    assert "names no file" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["keys"]
