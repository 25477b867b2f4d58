"""The composite GitHub Action (action.yml): its metadata, and its steps run as the runner
runs them (tests/ci_support.py) in a GitOps repository made from the examples.

The metadata is validated against the GitHub Actions metadata schema that check-jsonschema
bundles (tests/ci-schemas/, README there). The fast tests replace the install step with
this working tree's dynamo-render; the slow one runs it too: a real `pip install` of this
repository into a new virtual environment, as a job does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from ci_support import ActionRun, base_env, load_action, run_action, tool_shim
from paths import REPO, TESTS

ACTION = REPO / "action.yml"
EXAMPLES = REPO / "examples"
SCHEMAS = TESTS / "ci-schemas"
BINDING_PREFIX = "v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/"  # the example snapshot's

CONFIG = """\
apiVersion: dynamo-render/v1
kind: Config
render:
  - dgd: deploy/dgd.yaml
    checkpoints: [snapshots]
    target: dcd
    output: rendered
lint:
  paths: [rendered]
  checkpoints: [snapshots]
"""


def test_the_action_metadata_is_valid() -> None:
    schema = json.loads((SCHEMAS / "github-actions.json").read_text())
    jsonschema.validate(load_action(ACTION), schema)


def test_every_input_reaches_a_step_through_the_environment() -> None:
    """No `${{ inputs.* }}` inside a script: a value from a pull request stays data."""
    action = load_action(ACTION)
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"], step["name"]
    used = json.dumps(action["runs"]["steps"])
    for name in action["inputs"]:
        assert f"inputs.{name}" in used, name


@pytest.fixture
def gitops(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / "deploy").mkdir(parents=True)
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", root / "deploy" / "dgd.yaml")
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    shim = tool_shim(tmp_path, REPO)
    done = subprocess.run(
        [str(shim), "render"], cwd=root, env=base_env(), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return root


def _run(root: Path, **inputs: str) -> ActionRun:
    shim = tool_shim(root.parent, REPO)
    return run_action(REPO, inputs, root, base_env(), replace={"install": {"command": str(shim)}})


def _stale(root: Path) -> int:
    [dcd] = (root / "rendered").glob("*vllmdecodeworker*.yaml")
    text = dcd.read_text()
    line = text[: text.index(BINDING_PREFIX)].count("\n") + 1
    dcd.write_text(text.replace(BINDING_PREFIX, BINDING_PREFIX.replace("/1/", "/2/")))
    return line


def test_a_clean_repository_passes(gitops: Path) -> None:
    run = _run(gitops, **{"sarif-file": "report.sarif"})
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.outputs == {"exit-code": "0"}
    assert run.ran == ["lint", "render", "result"]
    sarif = json.loads((gitops / "report.sarif").read_text())
    jsonschema.validate(
        sarif, json.loads((TESTS / "sarif" / "sarif-schema-2.1.0.json").read_text())
    )
    assert sarif["runs"][0]["results"] == []


def test_a_stale_binding_fails_with_an_annotation_and_a_sarif_result(gitops: Path) -> None:
    line = _stale(gitops)
    run = _run(gitops, **{"sarif-file": "report.sarif", "render-check": "false"})
    assert run.exit_code == 1
    assert run.outputs == {"exit-code": "1"}
    assert run.ran == ["lint", "result"]
    assert f",line={line}," in run.stdout and "binding-stale" in run.stdout
    assert run.stdout.startswith("::error file=rendered/")
    results = json.loads((gitops / "report.sarif").read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"binding-stale"}


def test_the_render_check_fails_when_the_dgd_changed(gitops: Path) -> None:
    dgd = gitops / "deploy" / "dgd.yaml"
    dgd.write_text(dgd.read_text().replace("replicas: 1", "replicas: 2", 1))
    run = _run(gitops)
    assert run.exit_code == 1, run.stdout + run.stderr
    assert run.steps["lint"] == {"exit-code": "0"}
    assert run.steps["render"] == {"exit-code": "1"}


def test_paths_checkpoints_strict_and_format_are_passed(gitops: Path) -> None:
    (gitops / ".dynamo-render.yaml").write_text(CONFIG.split("lint:", maxsplit=1)[0])
    run = _run(
        gitops,
        paths="rendered\n",
        checkpoints="snapshots",
        strict="true",
        format="json",
        **{"render-check": "false"},
    )
    assert run.exit_code == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["summary"]["objects"] > 0 and report["summary"]["errors"] == 0


def test_a_bad_strict_value_is_a_usage_error(gitops: Path) -> None:
    run = _run(gitops, strict="yes")
    assert run.exit_code == 2
    assert "strict must be true or false" in run.stdout


def test_a_path_is_data_not_shell(gitops: Path) -> None:
    """A path input holding shell syntax is one argument, never run."""
    run = _run(gitops, paths="$(touch pwned) ;touch pwned2", **{"render-check": "false"})
    assert run.exit_code == 2
    assert not (gitops / "pwned").exists() and not (gitops / "pwned2").exists()


@pytest.mark.slow
def test_the_install_step_installs_this_repository(gitops: Path) -> None:
    """The whole action, its install step included: pip installs the action's own folder
    into a new virtual environment (dependencies from the package index)."""
    if shutil.which("python3") is None:
        pytest.skip("no python3 on PATH")
    run = run_action(REPO, {}, gitops, base_env())
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.ran == ["install", "lint", "render", "result"]
    assert run.steps["install"]["command"].endswith("/bin/dynamo-render")
