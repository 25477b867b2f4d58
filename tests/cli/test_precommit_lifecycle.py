"""A GitOps day with the real pre-commit and both published hooks, through every state of an
automatic checkpoint's life (docs/admission.md section 3).

The repository holds the bundled example DGD (`examples/llama-disagg-v1beta1`), its config
entry and the rendered DCDs; `.pre-commit-config.yaml` points at this repository's HEAD
commit with `dynamo-render-lint` and `dynamo-render-render-check`. The walk:

0. day 0: the DGD committed, never applied (no uid): render warns, the commit passes;
1. the DGD applied: its uid goes into the config entry (`dgdUID:`), render names the
   checkpoint and the `kubectl get` that saves it, the commit passes;
2. the capture: the snapshot saved as told, re-rendered (bound), the commit passes;
3. a worker-spec edit: render warns that the snapshot is outdated and the new checkpoint
   not captured, the commit passes;
4. the re-capture, committed without re-rendering: the commit FAILS, render --check
   naming the stale file and the command that updates it;
5. the re-render: the commit passes; 6. the outdated snapshot removed: passes.

Every step's hook verdicts are collected and compared at the end, so one run shows every
step that disagrees with admission.md. The lint hook passes pre-capture manifests (steps
0, 1, 3: `checkpoint-pending`, a warning with the capture command, exit 0).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from paths import REPO
from test_precommit import CONFIG, _env, _install_hooks, _run, _tool_env, home

__all__ = ["home"]  # the shared pre-commit store (a fixture)

EXAMPLES = REPO / "examples"
UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"  # the example snapshot's ownerReference
SNAPSHOT = EXAMPLES / "snapshots" / "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1.yaml"
LINT = "dynamo-render lint"
CHECK = "render --check"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed"),
    pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no examples/"),
]


class Day:
    """The repository, the commands a user types, and what each step's hooks said."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env
        self.mismatches: list[str] = []

    def render(self) -> str:
        """`dynamo-render render` (every entry of the config); its stderr. Never exit 2."""
        done = _run([sys.executable, "-m", "renderer", "render"], self.root, _tool_env(self.env))
        assert done.returncode == 0, done.stderr
        return str(done.stderr)

    def commit(self, step: str, *, expected: dict[str, str]) -> str:
        """Stage everything and commit; compare the hooks' verdicts (Passed, Failed, or
        skipped when no staged file concerns the hook) with `expected`. A refused commit
        that was expected to pass is recorded, then made without the hooks, so the walk
        goes on from the state the user meant to commit."""
        assert _run(["git", "add", "-A"], self.root, self.env).returncode == 0
        done = _run(["git", "commit", "-q", "-m", step], self.root, self.env)
        output = done.stdout + done.stderr
        for hook, want in expected.items():
            found = re.search(rf"{re.escape(hook)}\.+(\S+)", output)
            got = found.group(1) if found else "absent"
            if got.startswith("(no"):
                got = "Skipped"
            if got != want:
                self.mismatches.append(f"{step}: {hook} {got}, expected {want}:\n{output}")
        should_pass = all(v in ("Passed", "Skipped") for v in expected.values())
        if done.returncode != 0 and should_pass:
            forced = _run(["git", "commit", "-q", "--no-verify", "-m", step], self.root, self.env)
            assert forced.returncode == 0, forced.stdout + forced.stderr
        if done.returncode == 0 and not should_pass:
            self.mismatches.append(f"{step}: the commit passed, expected it to fail:\n{output}")
        return str(output)


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("dynamo-render: warning: ")]


def _recaptured(old: str, name: str, worker_hash: str) -> str:
    """The snapshot `kubectl get dynamocheckpoint NAME -o yaml` saves after the re-capture:
    the example's capture, for the new checkpoint (its name, ID and worker hash are the
    ones render's advice named), a new object uid."""
    old_id = "46333b366341a5dbfd4f63b83b7b9fc1"
    new_id = name.removeprefix("checkpoint-")
    text = old.replace(old_id, new_id).replace('"b59eb498"', f'"{worker_hash}"')
    return text.replace(
        "7c9e6679-7425-40de-944b-e07fc1f90ae7", "5d1f6a2e-8c3b-4e7a-9f10-2b4c6d8e0a13"
    )


def test_a_gitops_day_through_every_state_of_a_checkpoint(tmp_path: Path, home: Path) -> None:
    env = _env(home)
    root = tmp_path / "gitops"
    (root / "deploy").mkdir(parents=True)
    (root / "snapshots").mkdir()
    (root / "snapshots" / ".gitkeep").write_text("")  # the folder the config names
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", root / "deploy" / "dgd.yaml")
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    assert _run(["git", "init", "-q"], root, env).returncode == 0
    _install_hooks(root, env)
    day = Day(root, env)
    passes = {LINT: "Passed", CHECK: "Passed"}

    # 0. day 0: nothing names the checkpoint yet
    (warning,) = _warnings(day.render())
    assert "its checkpoint cannot be named yet" in warning and "--dgd-uid" in warning
    # lint side: pre-capture manifests are pending (a warning), not an error
    day.commit("day 0", expected=passes)

    # 1. the DGD is applied: its uid goes into the config entry
    config = root / ".dynamo-render.yaml"
    config.write_text(CONFIG.replace("    target: dcd\n", f"    dgdUID: {UID}\n    target: dcd\n"))
    (warning,) = _warnings(day.render())
    command = re.search(r"`(kubectl get dynamocheckpoint (\S+) -n (\S+) -o yaml > (\S+))`", warning)
    assert command, warning
    name, namespace, save = command.group(2), command.group(3), command.group(4)
    assert (name, namespace, save) == (SNAPSHOT.stem, "dynamo-prod", f"snapshots/{SNAPSHOT.name}")
    # lint side: still pending (the decode DCD changed: it now names the checkpoint)
    day.commit("applied", expected=passes)

    # 2. the capture, saved where the advice says, and the re-render binds it
    shutil.copy(SNAPSHOT, root / save)
    assert _warnings(day.render()) == []
    decode = next((root / "rendered").glob("*vllmdecodeworker*.yaml"))
    assert "nvidia.com/dynamo-checkpoint-binding" in decode.read_text()
    day.commit("captured", expected=passes)

    # 3. a worker-spec edit: a new worker hash, a new checkpoint (not captured yet)
    dgd = root / "deploy" / "dgd.yaml"
    text = dgd.read_text()
    assert '--max-model-len, "8192"' in text
    dgd.write_text(text.replace('--max-model-len, "8192"', '--max-model-len, "16384"'))
    outdated, pending = _warnings(day.render())
    assert f"snapshot {SNAPSHOT.stem} is outdated" in outdated
    assert "would restore a process captured from another spec" in outdated
    again = re.search(r"`kubectl get dynamocheckpoint (\S+) -n \S+ -o yaml > (\S+)`", pending)
    worker_hash = re.search(r"worker hash (\w+)\)", pending)
    assert again and worker_hash, pending
    new_name, new_save = again.group(1), again.group(2)
    assert new_name != SNAPSHOT.stem
    # lint side: the new manifests are pending; the outdated snapshot is no error
    day.commit("worker spec edited", expected=passes)

    # 4. the re-capture, committed without re-rendering: refused, with the advice
    (root / new_save).write_text(_recaptured(SNAPSHOT.read_text(), new_name, worker_hash.group(1)))
    stale = day.commit("re-captured", expected={CHECK: "Failed"})
    decode = next((root / "rendered").glob("*vllmdecodeworker*.yaml"))
    assert f"would write {decode.relative_to(root)}" in stale
    assert "run `dynamo-render render` to update them, then commit the result" in stale

    # 5. the re-render binds the new checkpoint; the old snapshot is still committed
    (outdated,) = _warnings(day.render())
    assert f"snapshot {SNAPSHOT.stem} is outdated" in outdated
    assert new_name in decode.read_text()
    assert "nvidia.com/dynamo-checkpoint-binding" in decode.read_text()
    day.commit("re-rendered", expected=passes)

    # 6. the outdated snapshot removed
    (root / save).unlink()
    assert _warnings(day.render()) == []
    day.commit("old snapshot removed", expected={CHECK: "Passed"})

    assert [m.split(":\n")[0] for m in day.mismatches] == [], "\n\n".join(day.mismatches)
    log = _run(["git", "log", "--format=%s"], root, env).stdout.splitlines()
    assert log[0] == "old snapshot removed" and "re-captured" not in log
