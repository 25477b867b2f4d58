"""Fixtures shared by the CLI tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import REPO

EXAMPLES = REPO / "examples"
EXAMPLE_SNAPSHOT = "checkpoint-46333b366341a5dbfd4f63b83b7b9fc1"


@pytest.fixture
def example_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding the bundled example DGD (v1beta1) as dgd.yaml and its
    captured snapshot as snap.yaml; each test changes one thing."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", "dgd.yaml")
    shutil.copy(EXAMPLES / "snapshots" / f"{EXAMPLE_SNAPSHOT}.yaml", "snap.yaml")
    return tmp_path
