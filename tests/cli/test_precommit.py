"""The published pre-commit hooks, run by the real `pre-commit` in a temporary repository.

pre-commit installs this repository into a fresh virtualenv (`language: python`), which
needs the dependencies from a package index or the local wheel cache; the first install
takes a few seconds, later tests reuse it: one PRE_COMMIT_HOME for the whole run, shared by
the pytest-xdist workers (pre-commit locks its store while it installs), so a clean working
tree is installed once, at its HEAD, whichever worker runs which test. A tree with
uncommitted changes is installed per `try-repo` (pre-commit commits them to a new shadow
repository each time).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

EXAMPLES = REPO / "examples"
BINDING_PREFIX = "v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/"  # the example snapshot's

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed"),
    pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no examples/"),
]

CONFIG = """\
apiVersion: dynamo-render/v1
kind: Config
render:
  - dgd: deploy/dgd.yaml
    checkpoints: [snapshots]
    target: dcd
    output: rendered
lint:
  checkpoints: [snapshots]
"""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        GIT_AUTHOR_NAME="test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="test",
        GIT_COMMITTER_EMAIL="test@example.com",
        NO_COLOR="1",
    )
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's folder, above each worker's own
    shared = base / "pre-commit-home"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A GitOps repository: a DGD, its snapshot, its rendered DCDs, and the config."""
    root = tmp_path / "gitops"
    (root / "deploy").mkdir(parents=True)
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", root / "deploy" / "dgd.yaml")
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    env = _env(home)
    assert _run(["git", "init", "-q"], root, env).returncode == 0
    # The committed output is what `render` writes for the config's entry.
    rendered = _run([sys.executable, "-m", "renderer", "render"], root, _tool_env(env))
    assert rendered.returncode == 0, rendered.stderr
    return root


def _tool_env(env: dict[str, str]) -> dict[str, str]:
    # this working tree's package, whatever is installed in the running interpreter
    return {**env, "PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])}


def _decode_worker_dcd(root: Path) -> Path:
    [path] = (root / "rendered").glob("*vllmdecodeworker*.yaml")
    return path


def _make_stale(path: Path) -> int:
    """Bump the generation in every binding copy; returns the line of the first one."""
    text = path.read_text()
    assert BINDING_PREFIX in text
    line = text[: text.index(BINDING_PREFIX)].count("\n") + 1
    path.write_text(text.replace(BINDING_PREFIX, BINDING_PREFIX.replace("/1/", "/2/")))
    return line


def test_try_repo_lint_passes_a_good_manifest_and_fails_a_stale_one(repo: Path, home: Path) -> None:
    env = _env(home)
    assert _run(["git", "add", "-A"], repo, env).returncode == 0
    dcd = _decode_worker_dcd(repo)
    relative = str(dcd.relative_to(repo))
    good = _run(
        ["pre-commit", "try-repo", str(REPO), "dynamo-render-lint", "--files", relative],
        repo,
        env,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert re.search(r"dynamo-render lint\.+Passed", good.stdout), good.stdout

    line = _make_stale(dcd)
    bad = _run(
        ["pre-commit", "try-repo", str(REPO), "dynamo-render-lint", "--files", relative],
        repo,
        env,
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert re.search(r"dynamo-render lint\.+Failed", bad.stdout), bad.stdout
    assert f"{relative}:{line}:" in bad.stdout, bad.stdout
    assert "binding-stale" in bad.stdout


def _install_hooks(repo: Path, env: dict[str, str]) -> None:
    """Point the repository's .pre-commit-config.yaml at this repository's HEAD commit."""
    head = _run(["git", "rev-parse", "HEAD"], REPO, env)
    assert head.returncode == 0, head.stderr
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head.stdout.strip()}\n"
        "    hooks:\n      - id: dynamo-render-lint\n      - id: dynamo-render-render-check\n"
    )
    installed = _run(["pre-commit", "install"], repo, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr


def test_commit_flow_with_both_hooks(repo: Path, home: Path) -> None:
    env = _env(home)
    _install_hooks(repo, env)
    assert _run(["git", "add", "-A"], repo, env).returncode == 0
    first = _run(["git", "commit", "-q", "-m", "good manifests"], repo, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"dynamo-render lint\.+Passed", first.stdout + first.stderr)
    assert re.search(r"render --check\.+Passed", first.stdout + first.stderr)

    # a stale binding copy: the lint hook fails naming the rule and the line
    dcd = _decode_worker_dcd(repo)
    line = _make_stale(dcd)
    assert _run(["git", "add", "-A"], repo, env).returncode == 0
    stale = _run(["git", "commit", "-q", "-m", "stale binding"], repo, env)
    output = stale.stdout + stale.stderr
    assert stale.returncode != 0, output
    assert re.search(r"dynamo-render lint\.+Failed", output), output
    assert f"{dcd.relative_to(repo)}:{line}:" in output
    assert "binding-stale" in output
    # ... and render --check fails too: the committed file is not what render writes
    assert re.search(r"render --check\.+Failed", output), output
    assert f"would write {dcd.relative_to(repo)}" in output

    # the refused commit left nothing behind; re-rendering restores the committed file
    fixed = _run([sys.executable, "-m", "renderer", "render"], repo, _tool_env(env))
    assert fixed.returncode == 0, fixed.stderr
    assert _run(["git", "add", "-A"], repo, env).returncode == 0
    assert _run(["git", "diff", "--cached", "--quiet", "HEAD"], repo, env).returncode == 0
    log = _run(["git", "log", "--format=%s"], repo, env).stdout.split()
    assert log == ["good", "manifests"]


def test_render_check_hook_catches_a_dgd_change_that_was_not_rendered(
    repo: Path, home: Path
) -> None:
    env = _env(home)
    dgd = repo / "deploy" / "dgd.yaml"
    text = dgd.read_text()
    assert "replicas: 1" in text
    dgd.write_text(text.replace("replicas: 1", "replicas: 3", 1))
    assert _run(["git", "add", "-A"], repo, env).returncode == 0
    result = _run(
        ["pre-commit", "try-repo", str(REPO), "dynamo-render-render-check", "--all-files"],
        repo,
        env,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "would write rendered/" in result.stdout
    assert "run `dynamo-render render` to update them" in result.stdout
