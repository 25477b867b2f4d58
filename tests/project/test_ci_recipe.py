"""The GitHub Actions job in docs/ci.md: its commands, run on the examples.

The job is read from the page itself, so the page and this test cannot drift apart. Every
step after the install runs as written, in a temporary GitOps repository, with a
`dynamo-render` on PATH that runs this working tree (installing is what test_precommit.py
exercises).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import REPO

DOC = REPO / "docs" / "ci.md"
EXAMPLES = REPO / "examples"
BINDING_PREFIX = "v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/"

pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no examples/")

CONFIG = """\
apiVersion: dynamo-render/v1
kind: Config
render:
  - dgd: deploy/llama-v1beta1.yaml
    checkpoints: [snapshots]
    target: grove
    output: rendered/llama-v1beta1
  - dgd: deploy/llama-v1alpha1.yaml
    checkpoints: [snapshots]
    target: dcd
    output: rendered/llama-v1alpha1
lint:
  paths: [rendered]
  checkpoints: [snapshots]
"""


def _job() -> dict[str, Any]:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.S)
    workflows = [yaml.safe_load(b) for b in blocks]
    [workflow] = [w for w in workflows if isinstance(w, dict) and "jobs" in w]
    job: dict[str, Any] = workflow["jobs"]["dynamo-render"]
    return job


def _commands() -> list[str]:
    steps = _job()["steps"]
    names = [step.get("name", step.get("uses")) for step in steps]
    install = names.index("Install dynamo-render")
    return [step["run"] for step in steps[install + 1 :]]


def test_the_job_installs_then_lints_with_github_format_and_checks_the_render() -> None:
    steps = _job()["steps"]
    install = next(s for s in steps if s.get("name") == "Install dynamo-render")
    assert install["run"].startswith("pip install dynamo-render")
    assert _commands() == ["dynamo-render lint --format github", "dynamo-render render --check"]


@pytest.fixture
def gitops(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "gitops"
    (root / "deploy").mkdir(parents=True)
    for version in ("v1alpha1", "v1beta1"):
        shutil.copy(
            EXAMPLES / f"llama-disagg-{version}" / "dgd.yaml",
            root / "deploy" / f"llama-{version}.yaml",
        )
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    (root / ".git").mkdir()  # the repository root, for the config lookup
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "dynamo-render"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m renderer "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(REPO),
        "GITHUB_ACTIONS": "true",
        "NO_COLOR": "1",
    }
    # the committed output, as `dynamo-render render` writes it
    done = subprocess.run(
        ["dynamo-render", "render"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return root, env


def _run_job(root: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    # GitHub runs each `run:` with bash -e; a failing step fails the job, later steps still
    # matter here, so run them all and report each.
    return [
        subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        for command in _commands()
    ]


def test_the_job_passes_on_up_to_date_examples(gitops: tuple[Path, dict[str, str]]) -> None:
    root, env = gitops
    lint, check = _run_job(root, env)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "::error" not in lint.stdout
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout == ""


def test_the_job_fails_on_a_stale_binding_with_an_annotation_at_its_line(
    gitops: tuple[Path, dict[str, str]],
) -> None:
    root, env = gitops
    [pcs] = (root / "rendered" / "llama-v1beta1").glob("*.yaml")
    text = pcs.read_text()
    line = text[: text.index(BINDING_PREFIX)].count("\n") + 1
    pcs.write_text(text.replace(BINDING_PREFIX, BINDING_PREFIX.replace("/1/", "/7/")))
    lint, check = _run_job(root, env)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    relative = pcs.relative_to(root)
    annotations = [row for row in lint.stdout.splitlines() if row.startswith("::error")]
    assert any(f"file={relative},line={line}," in row for row in annotations), lint.stdout
    assert any("binding-stale" in row for row in annotations), lint.stdout
    assert check.returncode == 1
    assert check.stdout == f"would write {relative}\n"


def test_the_job_fails_when_a_dgd_changed_without_a_render(
    gitops: tuple[Path, dict[str, str]],
) -> None:
    root, env = gitops
    dgd = root / "deploy" / "llama-v1alpha1.yaml"
    dgd.write_text(dgd.read_text().replace("replicas: 1", "replicas: 4", 1))
    lint, check = _run_job(root, env)
    assert lint.returncode == 0, lint.stdout + lint.stderr  # the committed files are consistent
    assert check.returncode == 1
    assert check.stdout.startswith("would write rendered/llama-v1alpha1/")
    assert "run `dynamo-render render` to update them" in check.stderr
