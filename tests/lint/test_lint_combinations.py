"""Lint on crafted manifests: what counts as checkpointed, one problem one finding, and
`--fix` keeping the bytes it does not own (a missing final line break, CRLF).

Bindings come from the reference vectors: 02 is the captured snapshot, 07 the same
checkpoint at generation 2. Each case states rule, line, column and exit code, reasoned
from the manifest text (the `at` helper finds the offending key or value).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, VECTORS

from renderer.cli import cli

SNAPSHOT = VECTORS / "02-worker-baseline.input.yaml"
_VECTORS = {
    json.loads(line)["case"][:2]: json.loads(line)["binding"]
    for line in (VECTORS / "expected.jsonl").read_text().splitlines()
}
GOOD, STALE = _VECTORS["02"], _VECTORS["07"]
BINDING = "nvidia.com/dynamo-checkpoint-binding"
MAP = "nvidia.com/dynamo-checkpoint-bindings"
NAME = "nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978"
CANDIDATE = 'nvidia.com/dynamo-checkpoint-restore-candidate: "true"'


def lint(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(
        cli,
        ["--no-config", "lint", *VECTOR_FIXTURES, "--format", "json", *args],
        catch_exceptions=False,
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


def fix(*args: str) -> int:
    return (
        CliRunner().invoke(cli, ["--no-config", "lint", *VECTOR_FIXTURES, "--fix", *args]).exit_code
    )


def at(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based (line, column) where the `occurrence`-th `needle` starts."""
    offset = -1
    for _ in range(occurrence):
        offset = text.index(needle, offset + 1)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def places(found: list[dict[str, object]]) -> list[tuple[object, object, object]]:
    return [(f["rule"], f["line"], f["column"]) for f in found]


def frontend_dcd(annotations: str) -> str:
    """A v1beta1 frontend DCD whose pod template has `annotations` (already indented)."""
    return (
        "apiVersion: nvidia.com/v1beta1\n"
        "kind: DynamoComponentDeployment\n"
        "metadata:\n"
        "  name: llama-disagg-frontend\n"
        "  namespace: dynamo-prod\n"
        "spec:\n"
        "  type: frontend\n"
        "  podTemplate:\n"
        "    metadata:\n"
        "      annotations:\n"
        f"{annotations}"
        "    spec:\n"
        "      containers:\n"
        "        - name: main\n"
        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1\n"
    )


PCS = f"""apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata:
  name: llama-disagg
  namespace: dynamo-prod
  annotations:
    {MAP}: '{{"vllmdecodeworker":"{GOOD}"}}'
spec:
  template:
    cliques:
      - name: frontend
        labels:
          nvidia.com/dynamo-component-type: frontend
        annotations:
          example.com/owner: ml-platform
        spec:
          roleName: frontend
          replicas: 1
          podSpec:
            containers:
              - name: main
                image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
      - name: vllmdecodeworker
        labels:
          nvidia.com/dynamo-component-type: decode
        annotations:
          {BINDING}: {GOOD}
          {NAME}
          {CANDIDATE}
        spec:
          roleName: vllmdecodeworker
          replicas: 1
          podSpec:
            containers:
              - name: main
                image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
"""


# --- what counts as checkpointed -----------------------------------------------------------


def test_restore_annotations_on_a_component_never_checkpointed_are_still_a_candidate(
    tmp_path: Path,
) -> None:
    """The webhook reads labels and annotations, not component types (admission §1): a
    frontend carrying the restore-candidate annotations and the name of an automatic
    checkpoint is a restore candidate without its binding, and is denied. --fix writes no
    binding there (the operator never makes a frontend a candidate): it says why."""
    path = tmp_path / "frontend.yaml"
    path.write_text(frontend_dcd(f"        {NAME}\n        {CANDIDATE}\n"))
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert code == 1
    assert {(f["rule"], f["severity"]) for f in found} == {("binding-absent", "error")}
    assert all(not f["fix"] and "never makes a restore candidate" in str(f["hint"]) for f in found)
    mtime = path.stat().st_mtime_ns
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1  # errors remain
    assert path.stat().st_mtime_ns == mtime


def test_a_binding_on_a_component_never_checkpointed_is_removed_once(tmp_path: Path) -> None:
    text = frontend_dcd(f"        {NAME}\n        {BINDING}: {GOOD}\n")
    path = tmp_path / "frontend.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    value = at(text, GOOD)
    assert (code, places(found)) == (0, [("binding-misplaced", *value)])
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    assert path.read_text() == text.replace(f"        {BINDING}: {GOOD}\n", "")
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 0  # idempotent
    assert lint(str(path), "--checkpoint", str(SNAPSHOT)) == (0, [])


def test_restore_annotations_on_a_frontend_clique_ask_for_no_binding(tmp_path: Path) -> None:
    text = PCS.replace(
        "          example.com/owner: ml-platform\n",
        f"          example.com/owner: ml-platform\n          {CANDIDATE}\n",
    )
    path = tmp_path / "pcs.yaml"
    path.write_text(text)
    assert lint(str(path), "--checkpoint", str(SNAPSHOT)) == (0, [])


# --- one problem, one finding --------------------------------------------------------------


def test_a_map_entry_for_a_frontend_clique_is_one_finding(tmp_path: Path) -> None:
    """The stray entry is reported once, at the map's value, and --fix drops just it."""
    text = PCS.replace('{"vllmdecodeworker"', f'{{"frontend":"{GOOD}","vllmdecodeworker"')
    path = tmp_path / "pcs.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert (code, places(found)) == (0, [("binding-misplaced", *at(text, "'{"))])
    assert "frontend" in str(found[0]["message"])
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    assert path.read_text() == PCS


def test_a_binding_on_a_frontend_clique_names_the_clique_annotation(tmp_path: Path) -> None:
    text = PCS.replace(
        "          example.com/owner: ml-platform\n",
        f"          example.com/owner: ml-platform\n          {BINDING}: {GOOD}\n",
    )
    path = tmp_path / "pcs.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert (code, places(found)) == (0, [("binding-misplaced", *at(text, GOOD, 2))])
    message = str(found[0]["message"])
    assert "clique frontend" in message and "clique annotation carries a binding" in message


def test_a_dcd_whose_both_copies_are_stale_alike(tmp_path: Path) -> None:
    """Each stale copy is its own finding at its value; they agree, so no binding-disagree."""
    text = (FIXTURES / "lint" / "dcd-v1beta1" / "clean.yaml").read_text()
    text = text.replace(GOOD, STALE)
    path = tmp_path / "dcd.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert code == 1
    # the fixture quotes both values: the value starts at its opening quote
    assert places(found) == [
        ("binding-stale", *at(text, f'"{STALE}"', 1)),
        ("binding-stale", *at(text, f'"{STALE}"', 2)),
    ]


def test_a_clique_and_its_map_entry_disagreeing_and_both_stale(tmp_path: Path) -> None:
    """The map entry (generation 2) and the clique (generation 3) differ and are both stale:
    a stale finding at each value and one disagreement at the clique's binding."""
    gen3 = GOOD.replace("/1/", "/3/")
    text = PCS.replace(f'"vllmdecodeworker":"{GOOD}"', f'"vllmdecodeworker":"{STALE}"')
    text = text.replace(f"{BINDING}: {GOOD}", f"{BINDING}: {gen3}")
    path = tmp_path / "pcs.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert code == 1
    assert places(found) == [
        ("binding-stale", *at(text, "'{")),
        ("binding-disagree", *at(text, gen3)),
        ("binding-stale", *at(text, gen3)),
    ]
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    assert path.read_text() == PCS


# --- --fix keeps the bytes it does not own -------------------------------------------------

DCD_V1ALPHA1 = f"""apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: llama-disagg-vllmdecodeworker-5f8d2c1a9b
  namespace: dynamo-prod
  annotations:
    {BINDING}: {GOOD}
spec:
  componentType: decode
  extraPodMetadata:
    annotations:
      {CANDIDATE}
      {NAME}"""  # no final line break


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fix_inserting_at_the_end_keeps_a_missing_final_line_break(
    newline: str, tmp_path: Path
) -> None:
    text = DCD_V1ALPHA1.replace("\n", newline)
    path = tmp_path / "dcd.yaml"
    path.write_bytes(text.encode())
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    # the pod template copy is absent: reported at its parent key `annotations`
    assert (code, places(found)) == (1, [("binding-absent", *at(text, "annotations:", 2))])
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    # written like the sibling whose quoting was a choice (NAME, plain); the candidate's
    # "true" had to be quoted, so it says nothing about the file's style
    assert path.read_bytes().decode() == text + f"{newline}      {BINDING}: {GOOD}"
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 0


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fix_deleting_the_last_line_keeps_a_missing_final_line_break(
    newline: str, tmp_path: Path
) -> None:
    kept = (
        "apiVersion: nvidia.com/v1beta1\n"
        "kind: DynamoComponentDeployment\n"
        "metadata:\n"
        "  name: llama-disagg-frontend\n"
        "  namespace: dynamo-prod\n"
        "spec:\n"
        "  type: frontend"
    )
    text = kept + f"\n  podTemplate:\n    metadata:\n      annotations:\n        {BINDING}: {GOOD}"
    text = text.replace("\n", newline)
    path = tmp_path / "frontend.yaml"
    path.write_bytes(text.encode())
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert (code, places(found)) == (0, [("binding-misplaced", *at(text, GOOD))])
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    # the binding goes, and the mappings it leaves empty; no line break is added
    assert path.read_bytes().decode() == kept.replace("\n", newline)


# --- snapshots that disagree ---------------------------------------------------------------


def test_the_later_of_two_different_captures_is_reported(tmp_path: Path) -> None:
    """`--checkpoint` files are read in the order given: the second capture of the same
    checkpoint with another binding is the one reported, whatever the file names."""
    first = tmp_path / "z-first.yaml"
    second = tmp_path / "a-second.yaml"
    first.write_text(SNAPSHOT.read_text())
    second.write_text((VECTORS / "07-generation-2.input.yaml").read_text())
    dcd = FIXTURES / "lint" / "dcd-v1beta1" / "clean.yaml"
    code, found = lint(str(dcd), "--checkpoint", str(first), "--checkpoint", str(second))
    assert code == 1
    invalid = [f for f in found if f["rule"] == "checkpoint-invalid"]
    assert [f["file"] for f in invalid] == [str(second)]
    assert str(first) in str(invalid[0]["message"])
    # which one is right is unknown: the workload is unverifiable, and --fix writes nothing
    assert {f["rule"] for f in found} == {"checkpoint-invalid", "checkpoint-unverifiable"}


def test_fix_is_not_blocked_by_a_document_lint_skips(tmp_path: Path) -> None:
    """A ConfigMap is skipped unparsed (its duplicate key is not lint's business), so it
    must not stop --fix from repairing the DCD beside it, and it stays byte-identical."""
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n  a: c\n"
    dcd = (FIXTURES / "lint" / "dcd-v1beta1" / "clean.yaml").read_text()
    text = config_map + "---\n" + dcd.replace(GOOD, STALE)
    path = tmp_path / "mixed.yaml"
    path.write_text(text)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert code == 1
    assert places(found) == [
        ("binding-stale", *at(text, f'"{STALE}"', 1)),
        ("binding-stale", *at(text, f'"{STALE}"', 2)),
    ]
    assert found[0]["docIndex"] == 1
    result = CliRunner().invoke(
        cli, ["--no-config", "lint", "--fix", str(path), "--checkpoint", str(SNAPSHOT)]
    )
    assert result.exit_code == 1
    assert "not fixed" not in result.stderr
    assert path.read_text() == config_map + "---\n" + dcd


def test_fix_through_a_symlink_rewrites_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    dcd = (FIXTURES / "lint" / "dcd-v1beta1" / "clean.yaml").read_text()
    real = tmp_path / "manifests" / "dcd.yaml"
    real.parent.mkdir()
    real.write_text(dcd.replace(GOOD, STALE))
    link = tmp_path / "dcd.yaml"
    link.symlink_to(real)
    assert fix(str(link), "--checkpoint", str(SNAPSHOT)) == 1
    assert link.is_symlink()
    assert real.read_text() == dcd
    assert sorted(p.name for p in real.parent.iterdir()) == ["dcd.yaml"]  # no temp file left


def test_a_file_named_twice_is_linted_and_fixed_once(tmp_path: Path) -> None:
    """`dir/x.yaml` and `dir` (which holds it): one set of findings, one object count, and
    --fix edits the file once instead of refusing two overlapping fixes."""
    dcd = (FIXTURES / "lint" / "dcd-v1beta1" / "clean.yaml").read_text()
    stale = dcd.replace(GOOD, STALE)
    path = tmp_path / "manifests" / "dcd.yaml"
    path.parent.mkdir()
    path.write_text(stale)
    named = [str(path), str(path.parent), str(path)]
    code, found = lint(*named, "--checkpoint", str(SNAPSHOT))
    assert code == 1
    assert places(found) == [
        ("binding-stale", *at(stale, f'"{STALE}"', 1)),
        ("binding-stale", *at(stale, f'"{STALE}"', 2)),
    ]
    result = CliRunner().invoke(
        cli, ["--no-config", "lint", *named, "--checkpoint", str(SNAPSHOT), "--format", "json"]
    )
    assert json.loads(result.stdout)["summary"]["objects"] == 2  # decode and frontend DCDs
    assert fix(*named, "--checkpoint", str(SNAPSHOT)) == 1
    assert path.read_text() == dcd


FLOW_PCS = f"""apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {{name: p, namespace: dynamo-prod, annotations: {{{MAP}: '{{"d":"{GOOD}"}}'}}}}
spec:
  replicas: 1
  template:
    cliques:
      - {{name: d-gms-0, annotations: {{{BINDING}: "{GOOD}"}}, spec: {{roleName: g, replicas: 1, podSpec: {{containers: [{{name: gms, image: i}}]}}}}}}
      - {{name: d, annotations: {{{NAME}, {CANDIDATE}, {BINDING}: '{GOOD}', x: z}}, spec: {{roleName: d, replicas: 1, podSpec: {{containers: [{{name: main, image: i}}]}}}}}}
      - name: e
        annotations: {{a: b, {BINDING}: {GOOD}}}
        labels: {{nvidia.com/dynamo-component-type: frontend}}
        spec: {{roleName: e, replicas: 1, podSpec: {{containers: [{{name: main, image: i}}]}}}}
"""  # noqa: E501


def test_fix_removes_misplaced_bindings_from_flow_mappings(tmp_path: Path) -> None:
    """A misplaced binding in a flow mapping goes with one separating comma (the mapping it
    leaves empty goes too); the rest of each line stays as it was."""
    path = tmp_path / "pcs.yaml"
    path.write_text(FLOW_PCS)
    code, found = lint(str(path), "--checkpoint", str(SNAPSHOT))
    assert code == 0  # stray bindings on pods restoring from nothing: admitted, warnings
    gms_line, gms_key = at(FLOW_PCS, f'{BINDING}: "{GOOD}"')
    frontend_line, frontend_key = at(FLOW_PCS, f"{BINDING}: {GOOD}}}")
    value = len(f"{BINDING}: ")  # each finding is at the value, after its key
    assert places(found) == [
        ("binding-misplaced", gms_line, gms_key + value),
        ("binding-misplaced", frontend_line, frontend_key + value),
    ]
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 1
    assert path.read_text() == (
        FLOW_PCS.replace(f'annotations: {{{BINDING}: "{GOOD}"}}, ', "").replace(
            f", {BINDING}: {GOOD}}}", "}"
        )
    )
    assert lint(str(path), "--checkpoint", str(SNAPSHOT)) == (0, [])
    assert fix(str(path), "--checkpoint", str(SNAPSHOT)) == 0
