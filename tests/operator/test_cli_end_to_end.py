"""`dynamo-render render` through the real CLI equals the oracle on every corpus case.

For each case of tests/operator/goldens/oracle/ (see its README), the oracle's own input
(`input-dgd.yaml`: the hand-written DGD with the namespace the oracle rendered it in) is
rendered with `--target grove` and with `--target dcd`; the output, parsed, must equal the
oracle's `expected-pcs.yaml` / `expected-dcds.yaml` field for field once the checkpoint
binding annotations (the one thing render adds on top of the operator) are removed, and
those annotations must be exactly where the binding design puts them. A checkpoint
the oracle resolved but was not given (not captured yet) renders unbound, with a
warning. Operator settings the oracle was run with (`--operator-version`) come from a
`.dynamo-render.yaml` `operator:` section. Refused cases must be refused (exit 2) with
the operator's exact message. Expected values are the oracle's files, never this tool's
output.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import GROVE_REFUSES, OracleCase, diff_paths, load_yaml, oracle_cases

from renderer.cli import main
from renderer.keys import (
    BINDING_KEY,
    BINDINGS_MAP_KEY,
    CHECKPOINT_ID_LABEL,
    CHECKPOINT_NAME_KEY,
    RESTORE_CANDIDATE_KEY,
)
from renderer.source import load_bytes

JSON = dict[str, Any]
_BINDING_KEYS = (BINDING_KEY, BINDINGS_MAP_KEY)


def _run(
    case: OracleCase,
    target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str, str]:
    """Render the case in a scratch repository: (exit code, stdout, stderr)."""
    work = tmp_path / case.name
    work.mkdir()
    (work / ".git").mkdir()  # the config search stops here
    shutil.copy(case.path / "input-dgd.yaml", work / "dgd.yaml")
    args = case.oracle_args
    config = "apiVersion: dynamo-render/v1\nkind: Config\n"
    if "--operator-version" in args:
        version = args[args.index("--operator-version") + 1]
        config += f"operator:\n  operatorVersion: {json.dumps(version)}\n"
    (work / ".dynamo-render.yaml").write_text(config, encoding="utf-8")
    argv = ["render", "dgd.yaml", "--target", target]
    if "--checkpoint" in args:
        snapshot = args[args.index("--checkpoint") + 1]
        shutil.copy(case.path / snapshot, work / snapshot)
        argv += ["--checkpoint", snapshot]
    monkeypatch.chdir(work)
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _objects(stdout: str) -> list[JSON]:
    return [o.data for o in load_bytes(stdout.encode("utf-8"), "stdout", allow_empty=True)]


def _strip_bindings(node: Any, found: list[str], path: str = "") -> Any:
    """`node` without binding annotations (their paths appended to `found`), and without
    the checkpoint name the contract keeps beside a binding on an already-shaped template
    (the pinned operator deletes it there; admission.md section 1)."""
    if isinstance(node, list):
        return [_strip_bindings(v, found, f"{path}[{i}]") for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out: JSON = {}
    shaped = CHECKPOINT_ID_LABEL in (node.get("labels") or {})
    for key, value in node.items():
        sub = f"{path}.{key}" if path else key
        if key == "annotations" and isinstance(value, dict):
            added = [k for k in value if k in _BINDING_KEYS]
            if shaped and added and RESTORE_CANDIDATE_KEY not in value:
                added += [k for k in value if k == CHECKPOINT_NAME_KEY]
            found += [f"{sub}.{k}" for k in added]
            kept = {k: v for k, v in value.items() if k not in added}
            if kept or not added:
                out[key] = kept
            continue
        out[key] = _strip_bindings(value, found, sub)
    return out


def _bound_components(case: OracleCase) -> set[str]:
    """Worker-class components restoring from an automatic checkpoint given to the oracle."""
    automatic = {
        o["metadata"]["name"]
        for o in case.input_checkpoints()
        if (o["metadata"].get("annotations") or {}).get("nvidia.com/dynamo-auto-checkpoint")
        == "true"
    }
    report = case.checkpoint_resolution() or {}
    return {
        name
        for name, entry in (report.get("components") or {}).items()
        if entry.get("checkpointName") in automatic
    }


def _needs_snapshot(case: OracleCase) -> list[str]:
    """Checkpoint names the oracle resolved to objects it was not given (it creates them):
    render renders those workers unbound, as the operator does before the capture."""
    report = case.checkpoint_resolution() or {}
    return [
        str(entry["checkpointName"])
        for entry in (report.get("components") or {}).values()
        if not entry.get("foundInInput")
    ]


#: Cases the operator renders but `--target grove` refuses on purpose, with the rule the
#: message must cite: the PodCliqueSet would be refused by Grove's webhook, or its pods by
#: the API server (see the `name` definition of schemas/podcliqueset-v1alpha1.json).

BOUND = Path(__file__).parent / "goldens" / "bound"
#: The corpus, plus cases restoring from an automatic checkpoint (bound; see their README).
CASES = [
    *oracle_cases(),
    *(OracleCase(p.name, p) for p in sorted(BOUND.iterdir()) if (p / "dgd.yaml").exists()),
]


@pytest.mark.parametrize("target", ["grove", "dcd"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cli_render_equals_oracle(
    case: OracleCase,
    target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, stdout, stderr = _run(case, target, tmp_path, capsys, monkeypatch)
    if case.refused:
        assert code == 2, stdout
        assert stdout == ""
        # the operator's exact words, stage prefix included, located in the user's file
        refusal = re.fullmatch(r"dynamo-render: error: dgd\.yaml:\d+:\d+: (.*)\n", stderr, re.S)
        assert refusal is not None, stderr
        assert refusal.group(1) == case.expected_error()
        return
    if target == "grove" and case.name in GROVE_REFUSES:
        assert code == 2, stdout
        assert stdout == ""
        assert GROVE_REFUSES[case.name] in stderr, stderr
        return
    assert code == 0, stderr
    # a checkpoint the oracle creates (not captured yet): rendered as the operator renders
    # it before the capture, with a warning naming it and the command that saves it
    for name in _needs_snapshot(case):
        assert f"`kubectl get dynamocheckpoint {name} -n {case.namespace()} -o yaml >" in stderr
    objects = _objects(stdout)
    found: list[str] = []
    actual = [_strip_bindings(o, found) for o in objects]
    expected = (
        [case.expected_pcs()] if target == "grove" else load_dcds(case.path / "expected-dcds.yaml")
    )
    assert [diff_paths(a, e) for a, e in zip(actual, expected, strict=True)] == [
        [] for _ in expected
    ]
    assert sorted(found) == sorted(_expected_binding_sites(case, target, expected))
    if found:
        _check_binding_values(case, objects)


def _check_binding_values(case: OracleCase, objects: list[JSON]) -> None:
    """Every copy is the binding of the snapshot (the binding engine is checked against the
    Go-computed vectors in tests/binding/test_binding_vectors.py)."""
    from renderer.binding import bind

    args = case.oracle_args
    snapshot = case.path / args[args.index("--checkpoint") + 1]
    (obj,) = load_bytes(snapshot.read_bytes(), str(snapshot))
    want = bind(obj).value
    values: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == BINDING_KEY:
                    values.append(value)
                elif key == BINDINGS_MAP_KEY:
                    values.extend(json.loads(value).values())
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(objects)
    assert values
    assert set(values) == {want}
    # the name kept on an already-shaped bound clique is the snapshot's
    for rendered in objects:
        for clique in (rendered.get("spec") or {}).get("template", {}).get("cliques") or []:
            annotations = clique.get("annotations") or {}
            if CHECKPOINT_ID_LABEL in (clique.get("labels") or {}) and BINDING_KEY in annotations:
                assert annotations[CHECKPOINT_NAME_KEY] == obj_name(obj_snapshot(case))


def obj_snapshot(case: OracleCase) -> JSON:
    (snapshot,) = case.input_checkpoints()
    return snapshot


def obj_name(obj: JSON) -> str:
    return str(obj["metadata"]["name"])


def load_dcds(path: Path) -> list[JSON]:
    from oracle_corpus import load_yaml_documents

    return load_yaml_documents(path)


def _expected_binding_sites(case: OracleCase, target: str, expected: list[JSON]) -> list[str]:
    bound = _bound_components(case)
    if not bound:
        return []
    sites: list[str] = []
    if target == "dcd":
        for dcd in expected:
            if dcd["metadata"]["labels"].get("nvidia.com/dynamo-component") in bound:
                sites += [
                    f"metadata.annotations.{BINDING_KEY}",
                    f"spec.podTemplate.metadata.annotations.{BINDING_KEY}",
                ]
        return sites
    pcs = expected[0]
    for i, clique in enumerate(pcs["spec"]["template"]["cliques"]):
        labels = clique.get("labels") or {}
        gms = clique["name"].rsplit("-", 2)[-2:-1] == ["gms"]
        if labels.get("nvidia.com/dynamo-component") in bound and not gms:
            sites.append(f"spec.template.cliques[{i}].annotations.{BINDING_KEY}")
            if CHECKPOINT_ID_LABEL in labels:  # already shaped (WaitForCheckpoint, Ready)
                sites.append(f"spec.template.cliques[{i}].annotations.{CHECKPOINT_NAME_KEY}")
    return [*sites, f"metadata.annotations.{BINDINGS_MAP_KEY}"]


def test_corpus_is_present() -> None:
    assert len(CASES) >= 20
    assert sum(1 for c in CASES if _bound_components(c)) >= 3
    assert load_yaml(CASES[0].path / "dgd.yaml")
