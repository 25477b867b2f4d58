"""Run the steps of a composite GitHub Action (action.yml) as the runner would, locally.

The runner's part that matters to the action's own steps is reproduced: `${{ ... }}`
expressions for inputs (with their defaults), `github.action_path` and earlier steps'
outputs; an `if:` of the form `inputs.NAME == 'VALUE'`; `env:`, `working-directory:`,
`shell: bash`; `GITHUB_OUTPUT` collected per step; a failing step ends the run. Any other
expression is an error here, so the action cannot grow a form this runner does not check.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_CONDITION = re.compile(r"^inputs\.([A-Za-z0-9_-]+) == '([^']*)'$")


class ActionRun(NamedTuple):
    exit_code: int
    outputs: dict[str, str]  # the action's outputs
    steps: dict[str, dict[str, str]]  # each step's outputs, by id
    ran: list[str]  # the ids of the steps that ran
    stdout: str
    stderr: str


def load_action(path: Path) -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load(path.read_text())
    return action


def _resolver(
    inputs: Mapping[str, str], action_path: Path, steps: Mapping[str, dict[str, str]]
) -> Any:
    def resolve(expression: str) -> str:
        parts = expression.split(".")
        if len(parts) == 2 and parts[0] == "inputs":
            return inputs[parts[1]]
        if expression == "github.action_path":
            return str(action_path)
        if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
            return steps.get(parts[1], {}).get(parts[3], "")
        raise AssertionError(f"expression this runner does not reproduce: {expression}")

    return resolve


def substitute(text: str, resolve: Any) -> str:
    return _EXPRESSION.sub(lambda m: resolve(m.group(1)), text)


def _outputs(file: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in file.read_text().splitlines():
        if line:
            name, _, value = line.partition("=")
            found[name] = value
    return found


def run_action(
    action_path: Path,
    given: Mapping[str, str],
    workspace: Path,
    env: Mapping[str, str],
    *,
    replace: Mapping[str, dict[str, str]] | None = None,
) -> ActionRun:
    """Run `action_path/action.yml` with inputs `given` in `workspace`. A step whose id is
    in `replace` is not run: its outputs are taken from there (the install step, in the
    fast tests)."""
    action = load_action(action_path / "action.yml")
    declared = action.get("inputs", {})
    unknown = set(given) - set(declared)
    assert not unknown, f"inputs the action does not declare: {sorted(unknown)}"
    inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    inputs.update(given)
    steps: dict[str, dict[str, str]] = {}
    ran: list[str] = []
    stdout = stderr = ""
    resolve = _resolver(inputs, action_path, steps)
    code = 0
    with tempfile.TemporaryDirectory() as scratch:
        for index, step in enumerate(action["runs"]["steps"]):
            step_id = step.get("id", f"step{index}")
            condition = step.get("if")
            if condition is not None:
                match = _CONDITION.match(condition)
                assert match, f"if: this runner does not reproduce: {condition}"
                if inputs[match.group(1)] != match.group(2):
                    continue
            if replace and step_id in replace:
                steps[step_id] = dict(replace[step_id])
                continue
            assert step.get("shell") == "bash", "every step says shell: bash"
            output = Path(scratch) / f"output-{index}"
            output.touch()
            step_env = {
                **env,
                "GITHUB_OUTPUT": str(output),
                "GITHUB_ACTION_PATH": str(action_path),
                "RUNNER_TEMP": scratch,
            }
            step_env.update(
                {name: substitute(str(v), resolve) for name, v in step.get("env", {}).items()}
            )
            folder = substitute(step.get("working-directory", "."), resolve)
            result = subprocess.run(
                # the runner's bash invocation for `shell: bash`
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=workspace / folder,
                env=step_env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            ran.append(step_id)
            stdout += result.stdout
            stderr += result.stderr
            steps[step_id] = _outputs(output)
            if result.returncode != 0:
                code = result.returncode
                break
    outputs = {
        name: substitute(str(spec["value"]), resolve)
        for name, spec in action.get("outputs", {}).items()
    }
    return ActionRun(code, outputs, steps, ran, stdout, stderr)


def tool_shim(folder: Path, repo: Path) -> Path:
    """An executable that runs this working tree's dynamo-render (no install)."""
    import sys

    shim = folder / "dynamo-render"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{repo}" exec "{sys.executable}" -m renderer "$@"\n')
    shim.chmod(0o755)
    return shim


def base_env() -> dict[str, str]:
    """The environment of a CI job: no GitHub variables inherited from this process."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "PRE_COMMIT", "CI_")) and k != "PYTHONPATH"
    }
