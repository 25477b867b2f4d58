"""Killing `render -o` or `lint --fix` at any moment leaves every file old or fully new.

Each test first runs the real process to completion twice to learn the old and the new
content of every output file, then repeats the run from the old state and SIGKILLs it after
seeded random delays spread over the measured run time (weighted towards the end, where the
writes happen). After each kill, every output file must parse and equal either its old or
its complete new content, and any file left over must be a temp file the loader ignores
(dot-prefixed and not ending in .yaml/.yml). Temp files are also checked to be cleaned up
when a write fails normally.
"""

from __future__ import annotations

import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from paths import TESTS, VECTORS

# Each test SIGKILLs real processes many times over: part of the full suite, not the inner loop.
pytestmark = pytest.mark.slow

EXAMPLES = TESTS.parent / "examples"
KILLS = 8
COMPONENTS = 300  # enough files that a kill lands during the writes


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "renderer", *args]


def _big_dgd(image: str) -> str:
    """A v1beta1 DGD with many plain (non-checkpointed) components: many output files
    (DCDs: Grove is switched off, so the operator creates one object per component)."""
    components = "".join(
        f"""\
    - name: Frontend{i}
      type: frontend
      replicas: 1
      podTemplate:
        spec:
          containers:
            - name: main
              image: {image}
"""
        for i in range(COMPONENTS)
    )
    return (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: big\n  namespace: dynamo-prod\n"
        '  annotations:\n    nvidia.com/enable-grove: "false"\n'
        "spec:\n  components:\n" + components
    )


def _snapshot_dir(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _is_ignored_temp(name: str) -> bool:
    base = Path(name).name
    return base.startswith(".") and not base.endswith((".yaml", ".yml"))


def _check_state(
    root: Path, old: dict[str, bytes], new: dict[str, bytes], parsed: set[bytes]
) -> None:
    """Every file old or new, no output left over, and every .yaml file still parses.

    The parse is of each file's bytes as lint or render would read them from the directory
    (`load_bytes`, empty allowed); `parsed` holds the bytes that already parsed in an
    earlier state: most files of every state are the same old or new bytes, and a parse
    depends on the bytes alone (the name only goes into messages).
    """
    from renderer.source import iter_yaml_files, load_bytes

    now = _snapshot_dir(root)
    for name, content in now.items():
        if name in old or name in new:
            assert content in (old.get(name), new.get(name)), f"{name} is half-written"
        else:
            assert _is_ignored_temp(name), f"left-over file looks like an output: {name}"
    for name in old:
        # An old file may be replaced, never deleted half-way (unless the new run drops it).
        assert name in now or name not in new, f"{name} disappeared"
    for file in iter_yaml_files(str(root)):  # the files load_paths([root]) reads
        data = Path(file).read_bytes()
        if data not in parsed:
            load_bytes(data, file, allow_empty=True)  # InputError: it does not parse
            parsed.add(data)


def _kill_delays(full_run: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    early = [rng.uniform(0.0, full_run) for _ in range(KILLS // 2)]
    late = [rng.uniform(0.6 * full_run, full_run * 1.05) for _ in range(KILLS - KILLS // 2)]
    return sorted(early + late)


def _run_and_kill(argv: list[str], delay: float, cwd: Path) -> int | None:
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    return proc.returncode


def _exercise(
    tmp_path: Path,
    argv_for: Callable[[Path], list[str]],
    make_old: Callable[[Path], None],
    seed: int,
) -> list[int | None]:
    """Learn old/new states, then kill runs started from the old state at random delays.

    The old state is made once and copied for each run: making it runs the command itself
    (a render, a signing), and its output is deterministic, so a copy is the same state.
    """
    template = tmp_path / "old"
    make_old(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference, symlinks=True)
    old = _snapshot_dir(reference / "out")
    start = time.perf_counter()
    done = subprocess.run(argv_for(reference), cwd=reference, capture_output=True, check=False)
    full_run = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    new = _snapshot_dir(reference / "out")
    assert new != old, "the run must change the files for this test to mean anything"
    codes = []
    parsed: set[bytes] = set()
    for i, delay in enumerate(_kill_delays(full_run, seed)):
        work = tmp_path / f"kill{i}"
        shutil.copytree(template, work, symlinks=True)
        codes.append(_run_and_kill(argv_for(work), delay, work))
        _check_state(work / "out", old, new, parsed)
    return codes


def test_render_output_survives_sigkill(tmp_path: Path) -> None:

    def make_old(work: Path) -> None:
        (work / "out").mkdir(parents=True)
        (work / "dgd.yaml").write_text(_big_dgd("example.com/old:1.0.0"))
        subprocess.run(
            _cli("render", "dgd.yaml", "-o", "out"), cwd=work, check=True, capture_output=True
        )
        (work / "dgd.yaml").write_text(_big_dgd("example.com/new:2.0.0"))

    codes = _exercise(tmp_path, lambda w: _cli("render", "dgd.yaml", "-o", "out"), make_old, 3)
    assert -signal.SIGKILL in codes, "no run was interrupted: the input is too small"


def _example_pair() -> tuple[Path, Path] | None:
    """An example DGD with checkpointed components and its snapshot directory, if any."""
    if not EXAMPLES.is_dir():
        return None
    for dgd in sorted(EXAMPLES.rglob("*.yaml")):
        text = dgd.read_text(errors="replace")
        if "kind: DynamoGraphDeployment" in text and "checkpoint" in text:
            snaps = [
                p
                for p in EXAMPLES.rglob("*.yaml")
                if "kind: DynamoCheckpoint" in p.read_text(errors="replace")
            ]
            if snaps:
                return dgd, snaps[0].parent
    return None


_BINDING = re.compile(r"(v1/[0-9a-f-]+/\d+/)([0-9a-f]{64})")


def test_lint_fix_survives_sigkill(tmp_path: Path) -> None:

    pair = _example_pair()
    if pair is None:
        pytest.skip("needs examples/ with a checkpointed DGD and its snapshot")
    dgd, snaps = pair
    rendered = tmp_path / "rendered"
    rendered.mkdir()
    subprocess.run(
        _cli("render", str(dgd), "--checkpoint", str(snaps), "-o", str(rendered)),
        check=True,
        capture_output=True,
    )
    templates = [
        (p.name, p.read_text())
        for p in sorted(rendered.glob("*.yaml"))
        if _BINDING.search(p.read_text())
    ]
    assert templates, "the example renders no bound manifest"

    def make_old(work: Path) -> None:
        out = work / "out"
        out.mkdir(parents=True)
        # Many copies, each with a unique object name and a stale digest: many files to fix.
        for i in range(COMPONENTS // max(1, len(templates))):
            for name, template in templates:
                text = re.sub(r"(?m)^(  name: )(\S+)$", rf"\g<1>\g<2>-c{i}", template, count=1)
                stale = _BINDING.sub(lambda m: m.group(1) + "0" * 64, text)
                (out / f"c{i}-{name}").write_text(stale)

    argv = lambda w: _cli("lint", "out", "--checkpoint", str(snaps), "--fix")  # noqa: E731
    codes = _exercise(tmp_path, argv, make_old, 4)
    assert -signal.SIGKILL in codes, "no run was interrupted: the input is too small"


def test_render_cleans_up_temp_files_on_a_failed_write(tmp_path: Path) -> None:
    (tmp_path / "dgd.yaml").write_text(_big_dgd("example.com/old:1.0.0"))
    out = tmp_path / "out"
    subprocess.run(
        _cli("render", "dgd.yaml", "-o", "out"), cwd=tmp_path, check=True, capture_output=True
    )
    names = sorted(p.name for p in out.iterdir())
    # Make one target unwritable as a file: a directory in its place.
    victim = out / names[len(names) // 2]
    victim.unlink()
    victim.mkdir()
    (tmp_path / "dgd.yaml").write_text(_big_dgd("example.com/new:2.0.0"))
    proc = subprocess.run(
        _cli("render", "dgd.yaml", "-o", "out"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    leftovers = [p.name for p in out.iterdir() if p.name not in names]
    assert leftovers == [], f"temp files left behind: {leftovers}"


def test_snapshot_sign_survives_sigkill(tmp_path: Path) -> None:
    """The same harness on `snapshot sign` over many snapshots (its .sig files)."""
    from renderer.trust import generate_key_pair

    snapshot = (VECTORS / "02-worker-baseline.input.yaml").read_text()
    keys = tmp_path / "keys"
    keys.mkdir()
    for stem in ("old", "new"):
        (keys / f"{stem}.key").write_bytes(generate_key_pair()[0])
    count = 400

    def make_old(work: Path) -> None:
        out = work / "out"
        out.mkdir(parents=True)
        for i in range(count):
            (out / f"s{i:03}.yaml").write_text(snapshot)
        paths = [f"out/s{i:03}.yaml" for i in range(count)]
        subprocess.run(
            _cli("snapshot", "sign", *paths, "--key", str(keys / "old.key")),
            cwd=work,
            check=True,
            capture_output=True,
        )

    def argv(work: Path) -> list[str]:
        paths = [f"out/s{i:03}.yaml" for i in range(count)]
        return _cli("snapshot", "sign", *paths, "--key", str(keys / "new.key"))

    codes = _exercise(tmp_path, argv, make_old, 6)
    assert -signal.SIGKILL in codes, "no run was interrupted: the input is too small"
