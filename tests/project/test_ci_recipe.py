"""The CI recipes in docs/ci.md, read from the page and run, so the page and the tests
cannot drift apart.

- The GitHub workflow is validated against the workflow schema (tests/ci-schemas/) and its
  dynamo-render step (this repository's composite Action, `uses: ./tools/dynamo-render`)
  runs with its `with:` inputs, as the runner runs it (tests/ci_support.py).
- The GitLab job is validated against GitLab's CI schema and its script runs line by line
  in one shell with errexit, as GitLab's runner does.
- The pre-commit block runs with real pre-commit (slow), `rev:` set to the commit under test.

The tests stand in for the install (a `dynamo-render` that runs this working tree, a `pip`
that accepts the recipe's install line only). The install itself is run for real elsewhere:
the same path install by the Action's install step (tests/project/test_action.py) and by
pre-commit here; a third real install would only add a minute to the suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from ci_support import base_env, run_action, tool_shim
from paths import REPO, TESTS

DOC = REPO / "docs" / "ci.md"
EXAMPLES = REPO / "examples"
SCHEMAS = TESTS / "ci-schemas"
SUBMODULE = "tools/dynamo-render"
INSTALL = f"pip install ./{SUBMODULE}"
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


class _Yaml12Loader(yaml.SafeLoader):
    """YAML as CI systems read it: `on:` is a key, not the boolean true of YAML 1.1."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf")
)


def _blocks() -> list[Any]:
    texts = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.S)
    return [yaml.load(text, Loader=_Yaml12Loader) for text in texts]


def _workflow() -> dict[str, Any]:
    [workflow] = [b for b in _blocks() if isinstance(b, dict) and "jobs" in b]
    return workflow


def _action_step() -> dict[str, Any]:
    steps = _workflow()["jobs"]["dynamo-render"]["steps"]
    [step] = [s for s in steps if s.get("uses") == f"./{SUBMODULE}"]
    found: dict[str, Any] = step
    return found


def _gitlab_job() -> dict[str, Any]:
    [block] = [
        b for b in _blocks() if isinstance(b, dict) and "script" in b.get("dynamo-render", {})
    ]
    return block


def _precommit() -> dict[str, Any]:
    [block] = [
        b
        for b in _blocks()
        if isinstance(b, dict) and b.get("repos", [{}])[0].get("repo") == SUBMODULE
    ]
    return block


def test_the_workflow_is_valid_and_uses_the_action_from_the_submodule() -> None:
    schema = json.loads((SCHEMAS / "github-workflows.json").read_text())
    workflow = _workflow()
    jsonschema.validate(workflow, schema)
    checkout = workflow["jobs"]["dynamo-render"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["submodules"] is True


def test_the_gitlab_job_is_valid() -> None:
    schema = json.loads((SCHEMAS / "gitlab-ci.json").read_text())
    block = _gitlab_job()
    jsonschema.validate(block, schema)
    job = block["dynamo-render"]
    assert job["script"][0] == INSTALL
    assert job["variables"]["GIT_SUBMODULE_STRATEGY"] == "recursive"


@pytest.fixture
def gitops(tmp_path: Path) -> Path:
    """A GitOps repository: two DGDs, the snapshot, the config, rendered output, and this
    repository where the recipes keep it (a link standing in for the submodule)."""
    root = tmp_path / "gitops"
    (root / "deploy").mkdir(parents=True)
    for version in ("v1alpha1", "v1beta1"):
        shutil.copy(
            EXAMPLES / f"llama-disagg-{version}" / "dgd.yaml",
            root / "deploy" / f"llama-{version}.yaml",
        )
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    (root / ".git").mkdir()  # the repository root, for the config and report paths
    (root / "tools").mkdir()
    (root / SUBMODULE).symlink_to(REPO, target_is_directory=True)
    shim = tool_shim(tmp_path, REPO)
    done = subprocess.run(
        [str(shim), "render"], cwd=root, env=base_env(), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return root


def _run_action_step(root: Path) -> Any:
    step = _action_step()
    shim = tool_shim(root.parent, REPO)
    env = {**base_env(), "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(root)}
    inputs = {k: str(v) for k, v in step.get("with", {}).items()}
    return run_action(
        root / SUBMODULE, inputs, root, env, replace={"install": {"command": str(shim)}}
    )


def _stale_pcs(root: Path) -> tuple[Path, int]:
    [pcs] = (root / "rendered" / "llama-v1beta1").glob("*.yaml")
    text = pcs.read_text()
    line = text[: text.index(BINDING_PREFIX)].count("\n") + 1
    pcs.write_text(text.replace(BINDING_PREFIX, BINDING_PREFIX.replace("/1/", "/7/")))
    return pcs.relative_to(root), line


def test_the_workflow_passes_on_up_to_date_examples(gitops: Path) -> None:
    run = _run_action_step(gitops)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "::error" not in run.stdout
    sarif = json.loads((gitops / _action_step()["with"]["sarif-file"]).read_text())
    assert sarif["runs"][0]["results"] == []


def test_the_workflow_fails_on_a_stale_binding_with_an_annotation_at_its_line(
    gitops: Path,
) -> None:
    relative, line = _stale_pcs(gitops)
    run = _run_action_step(gitops)
    assert run.exit_code == 1
    annotations = [row for row in run.stdout.splitlines() if row.startswith("::error")]
    assert any(f"file={relative},line={line}," in row for row in annotations), run.stdout
    assert any("binding-stale" in row for row in annotations), run.stdout
    assert run.steps["render"] == {"exit-code": "1"}
    assert f"would write {relative}\n" in run.stdout
    sarif = json.loads((gitops / _action_step()["with"]["sarif-file"]).read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert str(relative) in uris


def test_the_workflow_fails_when_a_dgd_changed_without_a_render(gitops: Path) -> None:
    dgd = gitops / "deploy" / "llama-v1alpha1.yaml"
    dgd.write_text(dgd.read_text().replace("replicas: 1", "replicas: 4", 1))
    run = _run_action_step(gitops)
    assert run.steps["lint"] == {"exit-code": "0"}  # the committed files are consistent
    assert run.exit_code == 1
    assert "would write rendered/llama-v1alpha1/" in run.stdout
    assert "run `dynamo-render render` to update them" in run.stderr


def _run_gitlab_script(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # GitLab's runner joins the script lines into one shell script with errexit
    script = "set -eo pipefail\n" + "\n".join(_gitlab_job()["dynamo-render"]["script"])
    return subprocess.run(
        ["bash", "-c", script],
        cwd=root,
        env={**env, "CI_PROJECT_DIR": str(root), "GITLAB_CI": "true"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _stand_in_tools(folder: Path) -> dict[str, str]:
    """PATH with a dynamo-render that runs this tree and a pip that accepts the recipe's
    install line only."""
    folder.mkdir()
    tool_shim(folder, REPO)
    pip = folder / "pip"
    pip.write_text(f'#!/bin/sh\n[ "$*" = "install ./{SUBMODULE}" ] || exit 3\n')
    pip.chmod(0o755)
    env = base_env()
    env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
    return env


def _reports(root: Path) -> tuple[list[dict[str, Any]], ET.Element]:
    artifacts = _gitlab_job()["dynamo-render"]["artifacts"]["reports"]
    quality = json.loads((root / artifacts["codequality"]).read_text())
    junit = ET.fromstring((root / artifacts["junit"]).read_text())
    return quality, junit


def test_the_gitlab_job_passes_and_writes_empty_reports(gitops: Path) -> None:
    done = _run_gitlab_script(gitops, _stand_in_tools(gitops.parent / "bin"))
    assert done.returncode == 0, done.stdout + done.stderr
    quality, junit = _reports(gitops)
    assert quality == []
    assert junit.get("failures") == "0"


def test_the_gitlab_job_fails_and_reports_a_stale_binding(gitops: Path) -> None:
    relative, line = _stale_pcs(gitops)
    done = _run_gitlab_script(gitops, _stand_in_tools(gitops.parent / "bin"))
    assert done.returncode == 1
    assert f"{relative}:{line}:" in done.stdout and "binding-stale" in done.stdout
    quality, junit = _reports(gitops)
    assert {(i["check_name"], i["location"]["path"]) for i in quality} >= {
        ("binding-stale", str(relative))
    }
    assert junit.get("failures") != "0"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed")
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_precommit_block_runs_from_the_submodule(gitops: Path) -> None:
    """`repo: tools/dynamo-render` at the submodule's commit, with real pre-commit."""
    env = {
        **base_env(),
        "PRE_COMMIT_HOME": str(gitops.parent / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }

    def git(*args: str, cwd: Path = gitops) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    (gitops / ".git").rmdir()
    (gitops / SUBMODULE).unlink()
    git("init", "-q")
    # the submodule: a clone of this repository at the commit under test
    git("clone", "-q", str(REPO), SUBMODULE)
    head = git("rev-parse", "HEAD", cwd=gitops / SUBMODULE)
    block = _precommit()
    block["repos"][0]["rev"] = head
    (gitops / ".pre-commit-config.yaml").write_text(yaml.safe_dump(block, sort_keys=False))
    (gitops / ".gitignore").write_text(f"/{SUBMODULE}/\n")
    git("add", "-A")
    done = subprocess.run(
        ["pre-commit", "run", "--all-files"],
        cwd=gitops,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"dynamo-render lint\.+Passed", done.stdout), done.stdout
    assert re.search(r"dynamo-render render --check\.+Passed", done.stdout), done.stdout
