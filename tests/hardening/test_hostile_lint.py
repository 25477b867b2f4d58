"""`lint` on the shapes a fuzz campaign found crashing: --fix on files with unusual line
breaks, --fix where an annotations mapping is null or not a mapping at all, and machine
reports naming a file whose name is not UTF-8.

The rules: bad input never gives a traceback; --fix changes only what it must (every other
byte identical, the file's own line breaks kept) or leaves the file alone and says why.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from paths import FIXTURES, VECTORS

from renderer.cli import cli

FIXTURES = FIXTURES / "lint"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
BINDING_KEY = "nvidia.com/dynamo-checkpoint-binding"
MAP_KEY = "nvidia.com/dynamo-checkpoint-bindings"


def _binding_of(snapshot: str) -> str:
    """What --fix writes for a snapshot's checkpoint: its binding, as the operator computes it."""
    from renderer.binding import bind
    from renderer.source import load_paths

    return bind(load_paths([snapshot], kinds={"DynamoCheckpoint"})[0]).value


BINDING = _binding_of(SNAPSHOT)
CHECKPOINT_NAME = "nvidia.com/dynamo-checkpoint-name: checkpoint-9f1e2d3c4b5a6978"
# with the name, what makes the pod a restore candidate to the webhook (admission §1)
CANDIDATE = 'nvidia.com/dynamo-checkpoint-restore-candidate: "true"'
# Line breaks as YAML 1.1 (go-yaml, libyaml) reads them.
BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"]


def lint(path: Path, *extra: str) -> Result:
    # catch_exceptions=False: a traceback fails the test instead of becoming exit code 1
    return CliRunner().invoke(
        cli,
        ["--no-config", "lint", str(path), "--checkpoint", SNAPSHOT, *extra],
        catch_exceptions=False,
    )


def lines(*items: str, nl: str = "\n") -> str:
    return "".join(item + nl for item in items)


# --- 1. line breaks other than LF ---------------------------------------------------------

FRONTEND = [  # a frontend carries no binding: --fix deletes it (binding-misplaced)
    "apiVersion: nvidia.com/v1beta1",
    "kind: DynamoComponentDeployment",
    "metadata:",
    "  name: llama-disagg-frontend",
    "  namespace: dynamo-prod",
    "  annotations:",
    f"    {BINDING_KEY}: {BINDING}",
    "spec:",
    "  type: frontend",
]
WORKER = [  # a decode worker whose metadata copy is missing (binding-absent)
    "apiVersion: nvidia.com/v1beta1",
    "kind: DynamoComponentDeployment",
    "metadata:",
    "  name: llama-disagg-vllmdecodeworker",
    "  namespace: dynamo-prod",
    "  annotations:",
    "    nvidia.com/dynamo-component-note: decode",
    "spec:",
    "  type: decode",
    "  podTemplate:",
    "    metadata:",
    "      annotations:",
    f"        {BINDING_KEY}: {BINDING}",
    f"        {CHECKPOINT_NAME}",
    f"        {CANDIDATE}",
]


@pytest.mark.parametrize("nl", BREAKS, ids=repr)
def test_fix_deletes_lines_whatever_their_line_breaks(nl: str, tmp_path: Path) -> None:
    """The reader counts CR, NEL, LS and PS as line breaks too; --fix indexed lines by LF
    only, so a CR-only file crashed with IndexError."""
    target = tmp_path / "frontend.yaml"
    target.write_bytes(lines(*FRONTEND, nl=nl).encode())
    result = lint(target, "--fix")
    assert result.exit_code == 1, result.output  # a file was changed
    # the annotations mapping held only the binding: both lines go, with their breaks
    assert target.read_bytes() == lines(*FRONTEND[:5], *FRONTEND[7:], nl=nl).encode()
    assert lint(target).exit_code == 0


@pytest.mark.parametrize("nl", BREAKS, ids=repr)
def test_fix_inserts_lines_with_the_files_line_breaks(nl: str, tmp_path: Path) -> None:
    target = tmp_path / "worker.yaml"
    target.write_bytes(lines(*WORKER, nl=nl).encode())
    assert lint(target, "--fix").exit_code == 1
    # in its sorted place among the annotations (checkpoint-... < component-...), plain
    # like its sibling, ended by the file's own line break
    fixed = [*WORKER[:6], f"    {BINDING_KEY}: {BINDING}", *WORKER[6:]]
    assert target.read_bytes() == lines(*fixed, nl=nl).encode()
    assert lint(target).exit_code == 0


@pytest.mark.parametrize("final", [True, False], ids=["final-break", "no-final-break"])
def test_the_reported_cr_only_file(final: bool, tmp_path: Path) -> None:
    """The reproducer: does what --fix does to the same file with LF line breaks."""
    text = lines(
        "apiVersion: nvidia.com/v1beta1",
        "kind: DynamoComponentDeployment",
        "metadata:",
        "  annotations:",
        f"    {BINDING_KEY}: {BINDING}",
        "spec:",
        "  type: frontend",
    )
    text = text if final else text.removesuffix("\n")
    cr, lf = tmp_path / "cr.yaml", tmp_path / "lf.yaml"
    cr.write_bytes(text.replace("\n", "\r").encode())
    lf.write_bytes(text.encode())
    assert lint(cr, "--fix").exit_code == lint(lf, "--fix").exit_code == 1
    assert cr.read_bytes() == lf.read_bytes().replace(b"\n", b"\r")
    assert BINDING.encode() not in cr.read_bytes()


def test_mixed_line_breaks_are_each_kept(tmp_path: Path) -> None:
    """Untouched lines keep their own breaks; a new line takes the break of the line it
    follows (here CR, in a file that is mostly LF with some CRLF)."""
    breaks = ["\n", "\r\n", "\n", "\n", "\r\n", "\r", "\n", "\n", "\r\n", "\n", "\n", "\n"]
    breaks += ["\r\n", "\n", "\n"]
    assert len(breaks) == len(WORKER)
    target = tmp_path / "mixed.yaml"
    target.write_bytes("".join(map(str.__add__, WORKER, breaks)).encode())
    assert lint(target, "--fix").exit_code == 1
    new = f"    {BINDING_KEY}: {BINDING}"
    want = [*WORKER[:6], new, *WORKER[6:]]
    want_breaks = [*breaks[:6], breaks[5], *breaks[6:]]
    assert target.read_bytes() == "".join(map(str.__add__, want, want_breaks)).encode()


@pytest.mark.parametrize("nl", BREAKS[1:], ids=repr)
@pytest.mark.parametrize("kind", ["dcd-v1alpha1", "dcd-v1beta1", "pcs"])
@pytest.mark.parametrize(
    "rule", ["binding-absent", "binding-stale", "binding-misplaced", "binding-malformed"]
)
def test_fix_does_the_same_whatever_the_line_breaks(
    rule: str, kind: str, nl: str, tmp_path: Path
) -> None:
    """Inserts, value edits and deletions (in block and flow mappings, around comments) on
    the fixtures give the LF result with every LF replaced by the file's break."""
    text = (FIXTURES / kind / f"{rule}.yaml").read_text()
    lf, other = tmp_path / "lf.yaml", tmp_path / "other.yaml"
    lf.write_bytes(text.encode())
    other.write_bytes(_breaks(text, nl).encode())
    assert lint(other, "--fix").exit_code == lint(lf, "--fix").exit_code == 1
    assert other.read_bytes() == _breaks(lf.read_text(), nl).encode()


def _breaks(text: str, nl: str) -> str:
    """`text` with its line feeds made `nl`, but those around each `---` line: kubectl
    splits documents only at `---` lines ended by LF, so a file broken by CR (or NEL, LS,
    PS) alone is one document to kubectl, and to lint."""
    return "\n---\n".join(part.replace("\n", nl) for part in text.split("\n---\n"))


# --- 2. annotations that are null, or not a mapping -----------------------------------


def _dcd(annotations: list[str], pod_annotations: list[str]) -> str:
    return lines(
        "apiVersion: nvidia.com/v1beta1",
        "kind: DynamoComponentDeployment",
        "metadata:",
        "  namespace: dynamo-prod",
        *annotations,
        "spec:",
        "  podTemplate:",
        "    metadata:",
        *pod_annotations,
    )


POD = ["      annotations:", f"        {CHECKPOINT_NAME}", f"        {CANDIDATE}"]
POD_FIXED = [
    "      annotations:",
    f"        {BINDING_KEY}: {BINDING}",
    f"        {CHECKPOINT_NAME}",
    f"        {CANDIDATE}",
]


@pytest.mark.parametrize(
    ("null", "kept"),
    [
        ("  annotations:", "  annotations:"),
        ("  annotations: ~", "  annotations:"),
        ("  annotations: null", "  annotations:"),
        ("  annotations: ~  # filled by CI", "  annotations:  # filled by CI"),
        ("  annotations:  # filled by CI", "  annotations:  # filled by CI"),
    ],
    ids=["empty", "tilde", "null", "tilde-comment", "empty-comment"],
)
def test_null_annotations_become_a_mapping(null: str, kept: str, tmp_path: Path) -> None:
    """`annotations:` with nothing (or `~`, `null`) reads as no annotations: --fix writes
    the binding under it (it crashed with TypeError); the null's text goes, a comment stays.
    The null is no schema error: the API server prunes a null field that is not nullable
    before it validates (ObjectMeta decodes it as no annotations)."""
    target = tmp_path / "null.yaml"
    target.write_text(_dcd([null], POD))
    before = lint(target)
    assert before.exit_code == 1
    # the API server reads a null field as absent: no schema finding for it
    assert "must be a mapping" not in before.stdout
    assert f"[binding-absent] DCD dynamo-prod/: the metadata annotation {BINDING_KEY}" in (
        before.stdout
    )
    result = lint(target, "--fix")
    assert result.exit_code == 1  # changed (and metadata.name is still missing)
    assert "not fixed" not in result.stderr
    assert target.read_text() == _dcd([kept, f"    {BINDING_KEY}: {BINDING}"], POD_FIXED)
    after = lint(target).stdout
    assert "binding-absent" not in after and "must be a mapping" not in after


def test_null_annotations_at_the_end_of_a_file_without_a_final_break(tmp_path: Path) -> None:
    """The new lines go after the null's line, and the file still ends without a break."""
    target = tmp_path / "eof.yaml"
    target.write_text(
        lines(
            "apiVersion: nvidia.com/v1beta1",
            "kind: DynamoComponentDeployment",
            "spec:",
            "  type: decode",
            "  podTemplate:",
            "    metadata:",
            "      annotations:",
            f"        {BINDING_KEY}: {BINDING}",
            f"        {CHECKPOINT_NAME}",
            f"        {CANDIDATE}",
            "metadata:",
            "  name: w",
            "  namespace: dynamo-prod",
        )
        + "  annotations: ~"
    )
    assert lint(target, "--fix").exit_code == 1
    assert target.read_text().endswith(f"  annotations:\n    {BINDING_KEY}: {BINDING}")
    assert lint(target).exit_code == 0


def test_null_metadata_becomes_a_mapping(tmp_path: Path) -> None:
    """A null `metadata:` gets `annotations:` and the binding under it (a flow `{}` gets
    them in flow style)."""
    snapshot = tmp_path / "snapshot.yaml"  # the checkpoint in the default namespace
    snapshot.write_text(re.sub(r"\n  namespace: .*", "", Path(SNAPSHOT).read_text(), count=1))
    head = ["apiVersion: nvidia.com/v1beta1", "kind: DynamoComponentDeployment"]
    tail = ["spec:", "  type: decode", "  podTemplate:", "    metadata:", *POD]
    for null, fixed in [
        ("metadata: ~", ["metadata:", "  annotations:", "    {key}: {value}"]),
        ("metadata: {}", ['metadata: {{annotations: {{{key}: "{value}"}}}}']),
    ]:
        target = tmp_path / "meta.yaml"
        target.write_text(lines(*head, null, *tail))
        result = CliRunner().invoke(
            cli,
            ["--no-config", "lint", str(target), "--checkpoint", str(snapshot), "--fix"],
            catch_exceptions=False,
        )
        assert result.exit_code == 1, result.output
        assert "not fixed" not in result.stderr
        assert "binding-absent" not in result.stdout
        value = _binding_of(str(snapshot))
        want = [line.format(key=BINDING_KEY, value=value) for line in fixed]
        pod = [
            "      annotations:",
            f"        {BINDING_KEY}: {value}",
            f"        {CHECKPOINT_NAME}",
            f"        {CANDIDATE}",
        ]
        assert target.read_text() == lines(*head, *want, *tail[: -len(POD)], *pod)


def test_null_pcs_annotations_get_the_checkpoint_map(tmp_path: Path) -> None:
    """A PodCliqueSet whose `annotations: ~` should hold the checkpoint map gets it."""
    clean = (FIXTURES / "pcs" / "clean.yaml").read_text()
    map_line = next(line for line in clean.splitlines() if MAP_KEY in line)
    broken = clean.replace(f"  annotations:\n{map_line}\n", "  annotations: ~\n")
    assert broken != clean
    target = tmp_path / "pcs.yaml"
    target.write_text(broken)
    assert lint(target, "--fix").exit_code == 1
    # the map is JSON: written single-quoted, as render writes it
    assert target.read_text() == clean
    assert lint(target).exit_code == 0


@pytest.mark.parametrize(
    ("value", "what", "column"),
    [
        (" some text", "a string", 16),
        (' ""', "a string", 16),
        (" 3", "an integer", 16),
        (" [a, b]", "a list", 16),
        ("\n    - a", "a list", 5),
        (" |\n    text", "a string", 16),
    ],
    ids=["string", "empty-string", "integer", "flow-list", "block-list", "block-scalar"],
)
def test_annotations_that_are_not_a_mapping_are_reported_not_fixed(
    value: str, what: str, column: int, tmp_path: Path
) -> None:
    """Only a person can say what `annotations: some text` meant: the file is left alone,
    with the reason and the place (this crashed with TypeError)."""
    target = tmp_path / "scalar.yaml"
    target.write_text(_dcd([f"  annotations:{value}"], POD))
    before = target.read_bytes()
    plain = lint(target)
    assert plain.exit_code == 1
    assert f"$.metadata.annotations: must be a mapping, not {what}" in plain.stdout
    result = lint(target, "--fix")
    assert result.exit_code == 1
    assert target.read_bytes() == before
    line = 5 if column == 16 else 6
    assert (
        f"dynamo-render lint: not fixed: {target}:{line}:{column}: metadata.annotations is"
        f" {what}, not a mapping; fix it by hand\n"
    ) in result.stderr


def test_a_binding_that_is_not_a_string_is_reported_not_fixed(tmp_path: Path) -> None:
    target = tmp_path / "list.yaml"
    target.write_text(_dcd(["  annotations:", f"    {BINDING_KEY}: [a]"], POD))
    before = target.read_bytes()
    result = lint(target, "--fix")
    assert result.exit_code == 1
    assert target.read_bytes() == before
    assert (
        f"not fixed: {target}:6:43: metadata.annotations.{BINDING_KEY} is a list, not a"
        " string; fix it by hand\n"
    ) in result.stderr


@pytest.mark.parametrize(
    "shape",
    [
        "  podTemplate: ~",  # v1beta1 pod template, null
        "  podTemplate:\n    metadata:",  # its metadata, null
        "  podTemplate:\n    metadata:\n      annotations: ~",
        "  podTemplate: text",
    ],
)
def test_null_or_scalar_pod_template_does_not_crash(shape: str, tmp_path: Path) -> None:
    """Without pod template annotations (and no checkpoint in its spec) the DCD's pods are
    ordinary to the webhook: its metadata binding is stray, a warning, and --fix removes it
    without tripping over the odd pod template."""
    target = tmp_path / "pod.yaml"
    target.write_text(
        lines(*WORKER[:6], f"    {BINDING_KEY}: {BINDING}", "spec:", "  type: decode", shape)
    )
    schema_error = "text" in shape  # a pod template must be a mapping (rule schema)
    result = lint(target)
    assert result.exit_code == (1 if schema_error else 0)
    assert "warning [binding-misplaced]" in result.stdout
    assert lint(target, "--fix").exit_code == 1
    assert BINDING not in target.read_text()
    assert lint(target).exit_code == (1 if schema_error else 0)


@pytest.mark.parametrize("shape", ["~", "text", "[]", "\n    annotations: ~"])
def test_v1alpha1_extra_pod_metadata_shapes_do_not_crash(shape: str, tmp_path: Path) -> None:
    text = (FIXTURES / "dcd-v1alpha1" / "binding-stale.yaml").read_text()
    start = text.index("  extraPodMetadata:")
    end = text.index("  extraPodSpec:")
    target = tmp_path / "alpha.yaml"
    target.write_text(text[:start] + f"  extraPodMetadata: {shape}\n" + text[end:])
    # a null shape reads as no metadata: ordinary pods, a stray (warning) binding; a
    # scalar or list is a schema error besides
    assert lint(target).exit_code == (1 if shape in ("text", "[]") else 0)
    assert lint(target, "--fix").exit_code == 1


@pytest.mark.parametrize("shape", ["~", "", "text", "[]", "{}"])
def test_pcs_clique_annotation_shapes_do_not_crash(shape: str, tmp_path: Path) -> None:
    text = (FIXTURES / "pcs" / "binding-absent.yaml").read_text()
    annotations = (
        "        annotations:\n"
        f"          {CHECKPOINT_NAME}\n"
        '          nvidia.com/dynamo-checkpoint-restore-candidate: "true"\n'
    )
    assert annotations in text
    target = tmp_path / "pcs.yaml"
    target.write_text(text.replace(annotations, f"        annotations: {shape}\n", 1))
    # without its restore metadata the clique is ordinary: its map entry is stray (a
    # warning); a scalar or list is a schema error besides
    assert lint(target).exit_code == (1 if shape in ("text", "[]") else 0)
    assert lint(target, "--fix").exit_code == 1


# --- 3. file names that are not UTF-8 -------------------------------------------------


def test_sarif_uri_percent_encodes_the_names_bytes() -> None:
    from renderer.report.sarif import _uri

    name = os.fsdecode(b"dir/bad\xff \xc3\xa9.yaml")
    assert _uri(name) == "dir/bad%FF%20%C3%A9.yaml"
    assert _uri("<stdin>") == "stdin"


@pytest.mark.skipif(sys.platform == "darwin", reason="file names must be UTF-8 there")
@pytest.mark.parametrize("fmt", ["sarif", "json", "github", "text"])
def test_reports_name_a_file_whose_name_is_not_utf8(fmt: str, tmp_path: Path) -> None:
    """SARIF crashed in quote() (UnicodeEncodeError). Now: SARIF's URI percent-encodes the
    name's bytes and the JSON report escapes them as `\\udcXX` (both stay valid UTF-8
    JSON); the line formats print the bytes as they are."""
    name = b"bad\xff.yaml"
    fixture = FIXTURES / "dcd-v1beta1" / "binding-malformed.yaml"
    (tmp_path / os.fsdecode(name)).write_bytes(fixture.read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "--no-config", "lint", name, "--format", fmt],
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "PYTHONIOENCODING": "ascii:strict", "NO_COLOR": "1"},
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    if fmt == "sarif":
        log = json.loads(proc.stdout.decode("utf-8"))
        results = log["runs"][0]["results"]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
        assert uris == {"bad%FF.yaml"}
    elif fmt == "json":
        findings = json.loads(proc.stdout.decode("utf-8"))["findings"]
        assert findings
        assert {os.fsencode(f["file"]) for f in findings} == {name}
        assert b'"file": "bad\\udcff.yaml"' in proc.stdout
    elif fmt == "github":
        assert proc.stdout.startswith(b"::error file=" + name + b",line=")
    else:
        assert proc.stdout.startswith(name + b":")
