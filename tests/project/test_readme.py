"""Every `console` example in the README and docs runs, and prints what the page says it prints.

A ```console block is a transcript: lines starting with `$ ` are commands, the lines after
each command are its expected output (stdout and stderr together). A line `...` matches any
number of lines. A command ending in `# exit N` must exit with N; any other must exit 0.
Commands of one block run in order in one scratch copy of the repository, so a block can
render, corrupt, lint and fix like a user would. Blocks fenced as `sh` are illustrations
(kubectl, pip) and are not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXIT_MARK = re.compile(r"\s+# exit (\d+)$")
# What a scratch copy needs: the examples and the files the walkthrough reads.
COPIED = ["examples"]


@dataclass(frozen=True)
class Step:
    command: str
    expected: list[str]
    exit_code: int


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    steps: list[Step]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def parse_blocks(page: Path) -> list[Block]:
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() != "```console":
            index += 1
            continue
        start = index + 1
        body: list[str] = []
        index += 1
        while lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        index += 1
        steps: list[Step] = []
        for text in body:
            if text.startswith("$ "):
                command = text[2:]
                code = 0
                found = EXIT_MARK.search(command)
                if found:
                    code = int(found.group(1))
                    command = command[: found.start()]
                steps.append(Step(command, [], code))
            else:
                assert steps, f"{page.name}:{start}: output before the first command"
                steps[-1].expected.append(text)
        name = page.name if page.parent == REPO else f"docs/{page.name}"
        blocks.append(Block(name, start, steps))
    return blocks


BLOCKS = [block for page in PAGES for block in parse_blocks(page)]


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line-by-line comparison where a `...` line stands for any run of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(matches(rest, actual[cut:]) for cut in range(len(actual) + 1))
    return bool(actual) and actual[0].rstrip() == head.rstrip() and matches(rest, actual[1:])


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        elif source.exists():
            shutil.copy2(source, tmp_path / name)
    return tmp_path


def test_the_readme_has_runnable_examples() -> None:
    readme = [block for block in BLOCKS if block.page == "README.md"]
    assert len(readme) >= 5
    assert sum(len(block.steps) for block in readme) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.id)
def test_console_example(block: Block, scratch: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    for name in ("NO_COLOR", "GITHUB_ACTIONS", "FORCE_COLOR"):
        env.pop(name, None)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    for step in block.steps:
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=scratch,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
            check=False,
        )
        actual = done.stdout.splitlines()
        where = f"{block.id}: `{step.command}`"
        assert done.returncode == step.exit_code, f"{where} exited {done.returncode}\n{done.stdout}"
        assert matches(step.expected, actual), (
            f"{where} printed:\n" + "\n".join(actual) + "\n\nexpected:\n" + "\n".join(step.expected)
        )


def test_rule_reference_is_generated_from_the_rule_docstrings() -> None:
    """README's rule section is the docstrings' text (after editing a rule: scripts/update-docs)."""
    from renderer.lint.ruledoc import BEGIN, END, replace_section
    from renderer.lint.rules import RULE_MODULES

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme == replace_section(readme, 3)
    section = readme[readme.index(BEGIN) : readme.index(END)]
    for rule_id in RULE_MODULES:
        assert f"### `{rule_id}`" in section


def test_readme_documents_every_option() -> None:
    """Each command's options appear in the README's command reference."""
    import click

    from renderer.cli import COMMANDS, cli

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        assert f"`{name}" in readme, name
        if isinstance(command, click.Group):
            continue
        for param in command.params:
            if isinstance(param, click.Option) and "--help" not in param.opts:
                assert any(f"`{opt}" in readme for opt in param.opts), (name, param.opts)
