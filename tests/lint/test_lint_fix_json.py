"""`lint --fix` writes a JSON manifest back as JSON, which kubectl still applies.

Each case is a bound object of the lint fixtures (bound to reference vector 02) written as
JSON with one `annotations` mapping that carries a binding emptied (`{}`), nulled, removed,
or stripped of its binding key. After `lint --fix` the file must be JSON to Python's own
decoder, lint clean, and, where the kubectl reading oracle runs (`kubectl apply
--dry-run=client`, offline; see the shared kubectl-oracle README), be applied by kubectl
as exactly the same object as the clean fixture written as JSON, carrying vector 02's
binding. The expected objects are kubectl's reading of the clean fixture, produced in the
test by the same oracle call; the binding is the vector's.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, REPO, VECTORS
from render_support import expected_binding

from renderer.cli import cli

SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
BINDING = expected_binding("02-worker-baseline")
BINDING_KEYS = ("nvidia.com/dynamo-checkpoint-binding", "nvidia.com/dynamo-checkpoint-bindings")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ORACLE = REPO.parent / "shared" / "kubectl-oracle" / "kubectl-apply-objects"


def _oracle_missing() -> str | None:
    """Why the kubectl oracle cannot run here, or None."""
    if not ORACLE.is_file():
        return "the kubectl oracle (shared/kubectl-oracle) is absent"
    for tool in ("kubectl", "unshare", "ip", "python3"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH (needed by the kubectl oracle)"
    if os.geteuid() != 0:
        return "the kubectl oracle needs root (unshare -n)"
    return None


def kubectl_objects(*paths: Path) -> list[dict[str, Any]]:
    """The objects `kubectl apply -f PATH...` would send, as kubectl decoded them, without
    the last-applied annotation kubectl adds."""
    done = subprocess.run(
        [str(ORACLE), *map(str, paths)], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr
    objects: list[dict[str, Any]] = json.loads(done.stdout)
    for obj in objects:
        annotations = obj.get("metadata", {}).get("annotations", {})
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            obj["metadata"].pop("annotations", None)
    return objects


def _bound_objects() -> dict[str, dict[str, Any]]:
    """The first object of each clean fixture (the bound one)."""
    out = {}
    for kind in ("dcd-v1alpha1", "dcd-v1beta1", "pcs"):
        text = (FIXTURES / "lint" / kind / "clean.yaml").read_text()
        out[kind] = next(iter(yaml.safe_load_all(text)))
    return out


def _annotation_paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths of every `annotations` mapping holding a binding key."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "annotations" and isinstance(value, dict) and set(value) & set(BINDING_KEYS):
                yield (*path, key)
            else:
                yield from _annotation_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _annotation_paths(value, (*path, index))


def _cases() -> Iterator[Any]:
    for kind, obj in _bound_objects().items():
        for path in _annotation_paths(obj):
            held = _at(obj, path)
            only_binding = set(held) <= set(BINDING_KEYS)
            forms = ("empty", "null", "absent") if only_binding else ("key-removed",)
            for form in forms:
                where = ".".join(map(str, path))
                yield pytest.param(kind, path, form, id=f"{kind}-{where}-{form}")


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _broken(obj: dict[str, Any], path: tuple[Any, ...], form: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    parent, key = _at(out, path[:-1]), path[-1]
    if form == "empty":
        parent[key] = {}
    elif form == "null":
        parent[key] = None
    elif form == "absent":
        del parent[key]
    else:
        for binding_key in BINDING_KEYS:
            parent[key].pop(binding_key, None)
    return out


def lint(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["lint", *VECTOR_FIXTURES, *args], catch_exceptions=False)
    return result.exit_code, result.output


def _fix(kind: str, path: tuple[Any, ...], form: str, indent: int | None, folder: Path) -> Path:
    """The broken case written as JSON into `folder`, fixed by `lint --fix`."""
    target = folder / "manifest.json"
    target.write_text(json.dumps(_broken(_bound_objects()[kind], path, form), indent=indent) + "\n")
    code, output = lint(str(target), "--checkpoint", SNAPSHOT, "--fix")
    assert code == 1, output
    assert " fixed " in output and "not fixed" not in output, output
    return target


INDENTS = pytest.mark.parametrize("indent", [2, None], ids=["pretty", "one-line"])
CASES = pytest.mark.parametrize(("kind", "path", "form"), list(_cases()))


@INDENTS
@CASES
def test_fix_keeps_json_json(
    kind: str, path: tuple[Any, ...], form: str, indent: int | None, tmp_path: Path
) -> None:
    target = _fix(kind, path, form, indent, tmp_path)
    # JSON to Python's strict decoder, and exactly the clean object
    assert json.loads(target.read_text()) == _bound_objects()[kind]
    code, output = lint(str(target), "--checkpoint", SNAPSHOT)
    assert code == 0, output


@pytest.mark.slow
@pytest.mark.skipif(_oracle_missing() is not None, reason=str(_oracle_missing()))
@INDENTS
@CASES
def test_kubectl_applies_the_fixed_json(
    kind: str, path: tuple[Any, ...], form: str, indent: int | None, tmp_path: Path
) -> None:
    fixed = _fix(kind, path, form, indent, tmp_path)
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(_bound_objects()[kind], indent=indent) + "\n")
    sent_fixed, sent_clean = kubectl_objects(fixed, clean)
    assert sent_fixed == sent_clean
    bindings = [v for k, v in _walk_annotations(sent_fixed) if k in BINDING_KEYS]
    assert bindings and all(BINDING in value for value in bindings)


def _walk_annotations(node: Any) -> Iterator[tuple[str, str]]:
    """(key, value) of every annotation in `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "annotations" and isinstance(value, dict):
                yield from value.items()
            else:
                yield from _walk_annotations(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk_annotations(value)


def test_fix_inserts_after_a_flow_mapping_that_ends_with_a_collection(tmp_path: Path) -> None:
    """The new entry goes after the last entry's closing bracket, not inside it (YAML too)."""
    obj = _bound_objects()["dcd-v1alpha1"]
    labels = ", ".join(f"{k}: {v}" for k, v in obj["metadata"]["labels"].items())
    text = (FIXTURES / "lint" / "dcd-v1alpha1" / "clean.yaml").read_text().split("\n---")[0]
    head, _, rest = text.partition("metadata:\n")
    body = rest[rest.index("\nspec:") + 1 :]
    meta = obj["metadata"]
    flow = (
        f"metadata: {{name: {meta['name']}, namespace: {meta['namespace']}, labels: {{{labels}}}}}"
    )
    target = tmp_path / "manifest.yaml"
    target.write_text(head + flow + "\n" + body)
    code, output = lint(str(target), "--checkpoint", SNAPSHOT, "--fix")
    assert code == 1 and "not fixed" not in output, output
    assert yaml.safe_load(target.read_text()) == obj
    assert target.read_text().splitlines()[head.count("\n")] == (
        flow[:-1] + f', annotations: {{nvidia.com/dynamo-checkpoint-binding: "{BINDING}"}}}}'
    )
