"""The suite's root and its set-up: bytecode for the child processes, and the inner loop's
example budget.

pytest puts this folder on sys.path, so every group imports the shared helpers (`paths`,
`lint_support`, `render_support`, `signing_support`, `example_budget`) by name. Layout
(README.md in this folder): one folder per package under test (binding, source, schema,
trust, config, render, lint, report, operator), `cli/` for end-to-end runs of the command,
`hardening/` for hostile input, `project/` for the repository's own contracts.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
from pathlib import Path

import pytest
from paths import REPO


def _inner_loop(config: pytest.Config) -> bool:
    """True for the documented inner loop (-m "not slow") outside CI."""
    if os.environ.get("CI"):
        return False
    markexpr = " ".join(str(config.getoption("markexpr") or "").split())
    return "not slow" in markexpr


def pytest_configure(config: pytest.Config) -> None:
    import example_budget

    # pytest caches its assertion-rewritten test modules as bytecode unless
    # PYTHONDONTWRITEBYTECODE is set; then every run (and every xdist worker) rewrites and
    # compiles all of tests/ again, a large part of the inner loop's fixed cost. The caches
    # go in the usual __pycache__ folders, which git ignores.
    sys.dont_write_bytecode = False

    example_budget.INNER_LOOP = _inner_loop(config)
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the controller has compiled already
    # Hundreds of tests run `python -m renderer` in a child process, and most environments
    # that set PYTHONDONTWRITEBYTECODE (some tests set it for the child too) would have
    # every child compile the whole package from source again. Compile it once here; a
    # child only reads the bytecode, which Python checks against the source's mtime.
    compileall.compile_dir(REPO / "renderer", quiet=2, force=False)


@pytest.fixture
def example_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding the bundled example DGD (v1beta1) as dgd.yaml and its
    captured snapshot as snap.yaml; each test changes one thing."""
    monkeypatch.chdir(tmp_path)
    examples = REPO / "examples"
    shutil.copy(examples / "llama-disagg-v1beta1" / "dgd.yaml", "dgd.yaml")
    shutil.copy(
        examples / "snapshots" / "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1.yaml", "snap.yaml"
    )
    return tmp_path
