"""The committed examples/rendered/ files are exactly what a fresh render produces."""

from __future__ import annotations

from pathlib import Path

import pytest
from render_support import EXAMPLES, REPO, expected_binding
from syrupy.assertion import SnapshotAssertion

from renderer.commands.render import RenderArgs, plan
from renderer.constants import TARGETS, Target
from renderer.keys import BINDING_KEY
from renderer.source import load_paths

CASES: list[tuple[str, Target]] = [
    (example, target)
    for example in ("llama-disagg-v1alpha1", "llama-disagg-v1beta1")
    for target in TARGETS
]


def _fresh(example: str, target: Target, monkeypatch: pytest.MonkeyPatch) -> str:
    # The README regenerates from the repository root; paths as given end up in `# Source:`.
    monkeypatch.chdir(REPO)
    args = RenderArgs(f"examples/{example}/dgd.yaml", ("examples/snapshots",), target=target)
    return plan(args).stdout


@pytest.mark.parametrize(("example", "target"), CASES)
def test_committed_render_is_fresh(
    example: str, target: Target, monkeypatch: pytest.MonkeyPatch, snapshot: SnapshotAssertion
) -> None:
    committed = EXAMPLES / "rendered" / example / f"{target}.yaml"
    fresh = _fresh(example, target, monkeypatch)
    assert committed.read_text() == fresh, (
        f"{committed.relative_to(REPO)} is stale: regenerate it (examples/README.md)"
    )
    assert fresh == snapshot


@pytest.mark.parametrize(("example", "target"), CASES)
def test_committed_render_carries_the_vector_binding(example: str, target: str) -> None:
    objects = load_paths([str(EXAMPLES / "rendered" / example / f"{target}.yaml")])
    found: list[str] = []
    for obj in objects:
        text = Path(obj.file).read_text()
        assert BINDING_KEY in text
        found += [
            line.split(": ", 1)[1]
            for line in text.splitlines()
            if line.strip().startswith(f"{BINDING_KEY}:")
        ]
    assert found
    assert set(found) == {expected_binding("02-worker-baseline")}
