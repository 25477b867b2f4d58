"""Render the examples, corrupt each binding copy in turn, and check lint and --fix.

Both example DGDs are rendered for both targets with `renderer.render` and the example
snapshot. Each binding copy (DCD metadata copy, DCD pod-template copy, the engine clique's
binding, the PodCliqueSet map entry) is in turn deleted, made malformed, or given another
UID, generation or digest (from the reference vectors 07-09: never the tool's own output).
Lint must name the right rule at the corrupted line, and `--fix` must give back the
rendered text byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from paths import REPO

from renderer.cli import cli

EXAMPLES = REPO / "examples"
SNAPSHOT_DIR = EXAMPLES / "snapshots"
_VECTORS = {
    json.loads(line)["case"][:2]: json.loads(line)["binding"]
    for line in (REPO / "tests" / "vectors" / "expected.jsonl").read_text().splitlines()
}
# The example snapshot is vector 02 renamed to the checkpoint the operator resolves (see
# examples/README.md): same UID and generation, another digest. Its binding as the tests
# of the committed examples check it; the other vectors' differ from it in one part each.
GOOD = next(
    line.split(": ", 1)[1]
    for line in (EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml")
    .read_text()
    .splitlines()
    if line.strip().startswith("nvidia.com/dynamo-checkpoint-binding: ")
)
assert GOOD.startswith(_VECTORS["02"][: _VECTORS["02"].rindex("/") + 1])
BAD = {
    "malformed": GOOD.replace("/1/", "/0/"),
    "other-uid": _VECTORS["08"],
    "other-generation": _VECTORS["07"],
    "other-digest": _VECTORS["09"],
}
RULE = {
    "delete": "binding-absent",
    "malformed": "binding-malformed",
    "other-uid": "binding-replaced",
    "other-generation": "binding-stale",
    "other-digest": "binding-provenance",
}
BINDING = "nvidia.com/dynamo-checkpoint-binding: "
MAP = "nvidia.com/dynamo-checkpoint-bindings: "
# target -> the copies it has, each found by the index of its line among the binding lines
COPIES = {"dcd": ["metadata", "pod-template"], "grove": ["map-entry", "clique"]}


def render_text(example: str, target: str) -> str:
    from renderer.render import render
    from renderer.source import load_paths
    from renderer.yamlout import dump_stream

    dgd_path = f"examples/{example}/dgd.yaml"
    [dgd] = load_paths([str(REPO / dgd_path)])
    result = render(dgd, load_paths([str(SNAPSHOT_DIR)]), target=target)
    return dump_stream([(dgd_path, obj) for obj in result.objects])


def copy_lines(lines: list[str]) -> list[int]:
    """Indexes of the lines holding a binding copy, in text order."""
    found = [i for i, line in enumerate(lines) if (BINDING in line or MAP in line) and GOOD in line]
    assert len(found) == 2, found
    return found


def corrupt(text: str, target: str, copy: str, how: str) -> tuple[str, int, int]:
    """The corrupted text and the (line, column) lint must report."""
    lines = text.splitlines(keepends=True)
    index = copy_lines(lines)[COPIES[target].index(copy)]
    line = lines[index]
    key = MAP if copy == "map-entry" else BINDING
    value_column = line.index(key) + len(key) + 1
    if how != "delete":
        lines[index] = line.replace(GOOD, BAD[how])
        return "".join(lines), index + 1, value_column
    if copy == "map-entry":
        # the map keeps its other entries (here: none), so the annotation stays, as `{}`
        lines[index] = re.sub(r"'\{.*\}'", "'{}'", line)
        return "".join(lines), index + 1, value_column
    indent = len(line) - len(line.lstrip(" "))
    parent = max(i for i in range(index) if len(lines[i]) - len(lines[i].lstrip(" ")) < indent)
    only_child = index + 1 == len(lines) or (
        len(lines[index + 1]) - len(lines[index + 1].lstrip(" ")) < indent and index == parent + 1
    )
    del lines[index]
    if only_child:
        # `annotations:` would be left empty: remove it too; the finding is at its parent
        del lines[parent]
        parent = max(
            i for i in range(parent) if len(lines[i]) - len(lines[i].lstrip(" ")) < indent - 2
        )
    column = len(lines[parent]) - len(lines[parent].lstrip(" ")) + 1
    return "".join(lines), parent + 1, column


def lint(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(
        cli, ["--no-config", "lint", "--format", "json", *args], catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


CASES = [
    (example, target, copy, how)
    for example in ("llama-disagg-v1alpha1", "llama-disagg-v1beta1")
    for target in ("dcd", "grove")
    for copy in COPIES[target]
    for how in RULE
]


@pytest.mark.parametrize(("example", "target", "copy", "how"), CASES)
def test_corrupted_copy_is_named_and_fixed(
    example: str, target: str, copy: str, how: str, tmp_path: Path
) -> None:
    rendered = render_text(example, target)
    manifest = tmp_path / f"{target}.yaml"
    manifest.write_text(rendered)
    assert lint(str(manifest), "--checkpoint", str(SNAPSHOT_DIR)) == (0, [])  # clean first

    broken, line, column = corrupt(rendered, target, copy, how)
    assert broken != rendered
    manifest.write_text(broken)
    code, found = lint(str(manifest), "--checkpoint", str(SNAPSHOT_DIR))
    assert code == 1
    rule = RULE[how]
    places = {(f["rule"], f["line"], f["column"]) for f in found}
    assert (rule, line, column) in places, (rule, line, column, places)
    # the other copy now differs too: binding-disagree may fire, nothing else
    assert {f["rule"] for f in found} <= {rule, "binding-disagree"}, places

    fix = CliRunner().invoke(
        cli, ["--no-config", "lint", str(manifest), "--checkpoint", str(SNAPSHOT_DIR), "--fix"]
    )
    assert fix.exit_code == 1, fix.output  # changed something
    assert manifest.read_text() == rendered  # the exact rendered text
    assert lint(str(manifest), "--checkpoint", str(SNAPSHOT_DIR)) == (0, [])


@pytest.mark.parametrize("example", ["llama-disagg-v1alpha1", "llama-disagg-v1beta1"])
@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_the_rendered_text_is_the_committed_example(example: str, target: str) -> None:
    """The render used above is what examples/rendered/ holds (so the fixtures are real)."""
    committed = (EXAMPLES / "rendered" / example / f"{target}.yaml").read_text()
    assert render_text(example, target) == committed
