"""The committed examples/rendered/ files are exactly what a fresh render produces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from paths import REPO
from render_support import EXAMPLES
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
def test_committed_render_is_the_oracles_objects_plus_bindings(example: str, target: str) -> None:
    """The committed objects, without the binding annotations, are the oracle's for the
    example (tests/operator/goldens/bound/example-<version>/), and every binding copy is
    the snapshot's binding (the engine is checked against the Go vectors elsewhere)."""
    import sys

    sys.path.insert(0, str(REPO / "tests" / "operator"))
    from oracle_corpus import diff_paths, load_yaml_documents

    from renderer.binding import bind

    golden = (
        REPO
        / "tests"
        / "operator"
        / "goldens"
        / "bound"
        / example.replace("llama-disagg", "example")
    )
    expected = load_yaml_documents(
        golden / ("expected-pcs.yaml" if target == "grove" else "expected-dcds.yaml")
    )
    objects = load_paths([str(EXAMPLES / "rendered" / example / f"{target}.yaml")])
    stripped = [_strip(o.data) for o in objects]
    assert [diff_paths(a, e) for a, e in zip(stripped, expected, strict=True)] == [
        [] for _ in expected
    ]
    (snapshot_obj,) = load_paths([str(EXAMPLES / "snapshots")])
    text = "".join(Path(o.file).read_text() for o in objects[:1])
    found = [
        line.split(": ", 1)[1]
        for line in text.splitlines()
        if line.strip().startswith(f"{BINDING_KEY}:")
    ]
    assert found
    assert set(found) == {bind(snapshot_obj).value}


def _strip(node: Any) -> Any:
    """`node` without binding annotations (and without a map only they filled)."""
    from renderer.keys import BINDINGS_MAP_KEY

    if isinstance(node, list):
        return [_strip(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "annotations" and isinstance(value, dict):
            kept = {k: v for k, v in value.items() if k not in (BINDING_KEY, BINDINGS_MAP_KEY)}
            if kept or len(kept) == len(value):
                out[key] = kept
            continue
        out[key] = _strip(value)
    return out
