"""Hostile input through the real CLI: exit 2 (or a lint finding), one clear message, no traceback.

Every corpus file in `tests/hardening/inputs/` (and every generated case below) is run through each
command that reads it, in a child process with a 1 GiB address-space limit and a CPU-time
limit, so an alias bomb or runaway recursion shows up as a failure here instead of a hung
CI job. The table `CASES` says, per file, at which stage it must be refused and with what
message; `tests/hardening/inputs/README.md` explains each file. Wall time is not asserted (tests
never do); the slowest runs are printed with `-s` (see `test_report_timings`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from paths import HOSTILE, VECTORS

MINIMAL = (VECTORS / "01-minimal.input.yaml").read_text()
MEMORY_LIMIT = 1 << 30  # 1 GiB of address space for the child
CPU_LIMIT_SECONDS = 20  # a guard against hangs, not a performance assertion
TIMEOUT_SECONDS = 60

# Stages: where in the pipeline a file must be refused.
LOAD = "load"  # the input layer: every command exits 2 with the loader's message
BIND = "bind"  # loads, but the binding engine must refuse the checkpoint (exit 2)
OK = "ok"  # big but valid: must simply work


@dataclass(frozen=True)
class Case:
    stage: str
    message: str  # a substring the one-line message must contain (case-insensitive)
    located: bool = True  # the message names file:line:column


def _deep(opening: str, closing: str, depth: int = 100_000) -> str:
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: "
        + opening * depth
        + "1" * (opening == "{a: ")
        + closing * depth
        + "\n"
    )


def _with_annotation_lines(lines: int) -> str:
    block = "".join(f"      line {i}\n" for i in range(lines))
    return MINIMAL.replace(
        '    "nvidia.com/dynamo-auto-checkpoint": "true"\n',
        '    "nvidia.com/dynamo-auto-checkpoint": "true"\n    "example.com/notes": |\n' + block,
    )


def _with_container_lines(lines: str) -> str:
    return MINIMAL.replace(
        '            image: "busybox:1.36"\n', '            image: "busybox:1.36"\n' + lines
    )


# Big or degenerate files are made at test time instead of being committed.
GENERATED: dict[str, Callable[[], str | bytes]] = {
    "gen-deep-flow-seq-100k.yaml": lambda: _deep("[", "]"),
    "gen-deep-flow-map-100k.yaml": lambda: _deep("{a: ", "}"),
    "gen-deep-block-3000.yaml": lambda: (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n"
        + "".join(" " * (i + 1) + "- \n" for i in range(3000))
    ),
    "gen-unterminated-10k-line-scalar.yaml": lambda: MINIMAL.replace(
        'image: "busybox:1.36"',
        'image: "busybox:1.36\n' + "".join(f"            line {i}\n" for i in range(10_000)),
    ),
    "gen-10k-line-annotation.yaml": lambda: _with_annotation_lines(10_000),
    "gen-alias-bomb-long-string.yaml": lambda: _with_container_lines(
        '            command: [&s "' + "x" * 1_000_000 + '"]\n'
        "            args: [" + ", ".join(["*s"] * 500) + "]\n"
    ),
    "gen-20k-apostrophe-escapes.yaml": lambda: MINIMAL.replace(
        '    - "nvidia.com/finalizer"\n',
        '    - "nvidia.com/finalizer"\n' + '    - "it\\\'s"\n' * 20_000,
    ),
}

CASES: dict[str, Case] = {
    # alias bombs
    "alias-bomb-nested.yaml": Case(LOAD, "aliases expand to more than"),
    "alias-bomb-wide.yaml": Case(LOAD, "aliases expand to more than"),
    "alias-bomb-in-checkpoint.yaml": Case(LOAD, "aliases expand to more than"),
    "gen-alias-bomb-long-string.yaml": Case(LOAD, "aliases expand to more than 4194304 characters"),
    # nesting and size
    "gen-deep-flow-seq-100k.yaml": Case(LOAD, "nesting deeper than"),
    "gen-deep-flow-map-100k.yaml": Case(LOAD, "nesting deeper than"),
    "gen-deep-block-3000.yaml": Case(LOAD, "nesting deeper than"),
    "gen-unterminated-10k-line-scalar.yaml": Case(LOAD, "invalid YAML"),
    "gen-10k-line-annotation.yaml": Case(OK, ""),
    "gen-20k-apostrophe-escapes.yaml": Case(OK, ""),
    # duplicate keys at several depths
    "dup-key-top.yaml": Case(LOAD, 'duplicate key "kind" (first set on line 2)'),
    "dup-key-metadata.yaml": Case(LOAD, 'duplicate key "generation"'),
    "dup-key-labels.yaml": Case(LOAD, 'duplicate key "nvidia.com/snapshot-checkpoint-id"'),
    "dup-key-container.yaml": Case(LOAD, 'duplicate key "image"'),
    "dup-key-bool-spelling.yaml": Case(LOAD, "duplicate key true"),
    # bytes and encodings
    # kubectl decodes invalid UTF-8 as U+FFFD and applies the object (its oracle says so)
    "invalid-utf8.yaml": Case(OK, ""),
    "invalid-utf8-overlong.yaml": Case(OK, ""),
    # a lone surrogate decodes to U+FFFD, and the text after it is then no longer YAML
    "invalid-utf16.yaml": Case(LOAD, "could not find expected ':'"),
    "utf16-no-bom.yaml": Case(LOAD, "NUL byte"),
    "nul-byte.yaml": Case(LOAD, "NUL byte"),
    "control-char.yaml": Case(LOAD, "control character U+0007"),
    "tabs-indentation.yaml": Case(LOAD, "invalid YAML"),
    # documents of the wrong shape
    "bare-scalar.yaml": Case(LOAD, "is a string, not a Kubernetes object"),
    "bare-list.yaml": Case(LOAD, "is a list, not a Kubernetes object"),
    "second-doc-list.yaml": Case(LOAD, "document 2 is a list"),
    "list-items-not-list.yaml": Case(LOAD, "items that are a mapping"),
    # right kind, wrong types (Go decoding fails on these, so must we)
    "labels-as-list.yaml": Case(BIND, "labels"),
    "annotations-as-string.yaml": Case(BIND, "annotations"),
    "generation-as-string.yaml": Case(BIND, "generation"),
    "uid-as-number.yaml": Case(BIND, "uid"),
    "containers-as-map.yaml": Case(BIND, "containers"),
    "image-as-number.yaml": Case(BIND, "image"),
    "job-as-list.yaml": Case(BIND, "job"),
    # huge integers
    "generation-2pow64.yaml": Case(BIND, "generation"),
    "generation-uint64-max.yaml": Case(BIND, "generation"),
    "generation-1e30.yaml": Case(BIND, "generation"),
    "generation-float.yaml": Case(BIND, "generation"),
    "port-2pow64.yaml": Case(BIND, "containerPort"),
    "port-int32-overflow.yaml": Case(BIND, "containerPort"),
}

# DGD inputs for `render -o` (see test_render_never_writes_outside_output_dir).
TRAVERSAL_DGDS = [
    "dgd-name-traversal.yaml",
    "component-name-traversal.yaml",
    "service-key-traversal-v1alpha1.yaml",
    "namespace-traversal.yaml",
]


def _corpus_params() -> list[Any]:
    """The corpus files for the per-command tests: all of them in the full suite; the inner
    loop (-m "not slow") keeps the first file of each stage, since every file and command is
    a child process."""
    first: dict[str, str] = {}
    for name in sorted(CASES):
        first.setdefault(CASES[name].stage, name)
    keep = set(first.values())
    return [
        pytest.param(name, marks=() if name in keep else pytest.mark.slow) for name in sorted(CASES)
    ]


def _limits() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_SECONDS, CPU_LIMIT_SECONDS))


@dataclass
class Run:
    args: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float


TIMINGS: list[tuple[float, str]] = []


def run_cli(*args: str, cwd: Path | None = None) -> Run:
    """`python -m renderer ARGS` in a memory- and CPU-limited child process."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=TIMEOUT_SECONDS,
        preexec_fn=_limits,  # rlimits must be set in the child; pytest is single-threaded
        env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=cwd,
        check=False,
    )
    seconds = time.perf_counter() - start
    TIMINGS.append((seconds, " ".join(args[:2])))
    return Run(list(args), proc.returncode, proc.stdout, proc.stderr, seconds)


def _materialise(name: str, tmp_path: Path) -> Path:
    """The corpus file (or generated case) copied into tmp_path: commands may write beside it."""
    target = tmp_path / name
    if name in GENERATED:
        content = GENERATED[name]()
        data = content.encode("utf-8") if isinstance(content, str) else content
    else:
        data = (HOSTILE / name).read_bytes()
    target.write_bytes(data)
    return target


def _assert_clean_failure(run: Run, path: Path, case: Case, *, allow_finding: bool) -> None:
    assert "Traceback" not in run.stderr, run.stderr
    assert "Traceback" not in run.stdout
    if allow_finding and run.code == 1:
        # lint reports an unusable snapshot as a finding: it must point into the file.
        text = run.stdout + run.stderr
        assert str(path) in text, text
        if case.located:
            assert re.search(re.escape(str(path)) + r":\d+:\d+", text), text
        return
    assert run.code == 2, (run.args, run.code, run.stdout, run.stderr)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr  # one clear message
    assert lines[0].startswith("dynamo-render: error: "), lines[0]
    if case.located:
        assert re.search(re.escape(str(path)) + r":\d+:\d+: ", lines[0]), lines[0]
    assert case.message.lower() in lines[0].lower(), (case.message, lines[0])


@pytest.fixture(scope="module")
def signing_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from renderer.trust import generate_key_pair

    key = tmp_path_factory.mktemp("keys") / "k.key"
    key.write_bytes(generate_key_pair()[0])
    return key


def test_table_covers_the_corpus() -> None:
    """Every committed corpus file has a row (or is a render input), and every row a file."""
    # repo-*: the hostile-repository cases, tabled in tests/hardening/test_hostile_repository.py
    committed = {p.name for p in HOSTILE.glob("*.yaml") if not p.name.startswith("repo-")}
    assert committed == (set(CASES) - set(GENERATED)) | set(TRAVERSAL_DGDS)
    readme = (HOSTILE / "README.md").read_text()
    for name in [*CASES, *TRAVERSAL_DGDS]:
        assert f"`{name}`" in readme, f"{name} is not described in tests/hardening/inputs/README.md"


@pytest.mark.parametrize("name", _corpus_params())
def test_binding_command(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    path = _materialise(name, tmp_path)
    run = run_cli("binding", str(path))
    if case.stage == OK:
        assert (run.code, run.stderr) == (0, ""), run.stderr
        assert re.fullmatch(r"dynamo-prod/checkpoint-a1b2c3d4 v1/\S+/1/[0-9a-f]{64}\n", run.stdout)
        return
    _assert_clean_failure(run, path, case, allow_finding=False)
    assert run.stdout == ""  # no partial output


# Lint skips documents of other kinds without parsing them (a GitOps repository
# is mostly other kinds). These cases hold nothing but a ConfigMap, so lint never reads the
# payload and must pass cleanly; the same payloads inside a DCD must be refused instead
# (test_lint_refuses_hostile_payloads_inside_a_dcd).
LINT_UNRELATED_ONLY = frozenset(
    {
        "alias-bomb-nested.yaml",
        "alias-bomb-wide.yaml",
        "dup-key-bool-spelling.yaml",
        "gen-deep-flow-seq-100k.yaml",
        "gen-deep-flow-map-100k.yaml",
        "gen-deep-block-3000.yaml",
    }
)
# YAML that is not a Kubernetes object (no apiVersion and kind anywhere): lint skips the
# file and counts it, as it skips a Helm values.yaml in a repository.
LINT_NOT_KUBERNETES = frozenset({"bare-scalar.yaml"})
CONFIGMAP_HEADER = "apiVersion: v1\nkind: ConfigMap\n"
DCD_HEADER = "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\n"


def _text_of(name: str) -> str:
    content = GENERATED[name]() if name in GENERATED else (HOSTILE / name).read_bytes()
    return content.decode("utf-8") if isinstance(content, bytes) else content


@pytest.mark.parametrize("name", sorted(LINT_UNRELATED_ONLY))
def test_lint_unrelated_cases_hold_only_a_configmap(name: str) -> None:
    """The table above is true of the files: one ConfigMap document and no other kind."""
    text = _text_of(name)
    assert text.startswith(CONFIGMAP_HEADER), text[:80]
    assert re.findall(r"(?m)^kind:", text) == ["kind:"]
    assert "\n---" not in text


@pytest.mark.parametrize("name", _corpus_params())
def test_lint_command(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    path = _materialise(name, tmp_path)
    run = run_cli("lint", str(path))
    if case.stage == OK:
        assert "Traceback" not in run.stderr
        assert run.code in (0, 1), run.stderr  # a lone valid snapshot: clean or warnings
        return
    if name in LINT_UNRELATED_ONLY:
        # not a DCD, PCS or DynamoCheckpoint: skipped unparsed, within the CPU and memory
        # limits of run_cli; nothing reported, only the summary line on stderr
        assert (run.code, run.stdout) == (0, ""), (run.code, run.stdout, run.stderr)
        assert run.stderr == "dynamo-render lint: 0 errors, 0 warnings in 0 files (0 objects)\n"
        return
    if name in LINT_NOT_KUBERNETES:
        assert (run.code, run.stdout) == (0, ""), (run.code, run.stdout, run.stderr)
        assert run.stderr == (
            "dynamo-render lint: 0 errors, 0 warnings in 0 files (0 objects);"
            " skipped 1 file (not Kubernetes objects)\n"
        )
        return
    _assert_clean_failure(run, path, case, allow_finding=case.stage == BIND)


@pytest.mark.parametrize("name", sorted(LINT_UNRELATED_ONLY))
def test_lint_refuses_hostile_payloads_inside_a_dcd(name: str, tmp_path: Path) -> None:
    """The same payload as a DynamoComponentDeployment is parsed, so it must be refused."""
    case = CASES[name]
    text = _text_of(name)
    path = tmp_path / name
    # same lines (so the same line:column), now a kind lint must read
    path.write_text(DCD_HEADER + text.removeprefix(CONFIGMAP_HEADER))
    run = run_cli("lint", str(path))
    _assert_clean_failure(run, path, case, allow_finding=False)
    assert run.stdout == ""  # no partial report


@pytest.mark.parametrize("name", sorted(LINT_UNRELATED_ONLY))
def test_lint_skips_a_hostile_configmap_beside_a_dcd(name: str, tmp_path: Path) -> None:
    """Skipping is per document: a ConfigMap beside a DCD stays unparsed; the DCD is linted."""
    path = tmp_path / name
    path.write_text(_dcd_with_binding("v1/not-a-binding") + "---\n" + _text_of(name))
    run = run_cli("lint", str(path))
    assert "Traceback" not in run.stderr
    assert run.code == 1, (run.code, run.stdout, run.stderr)
    assert re.match(re.escape(str(path)) + r":7:\d+: error \[binding-malformed\] ", run.stdout)
    assert "1 file (1 object)" in run.stderr


@pytest.mark.parametrize("name", _corpus_params())
def test_snapshot_sign_command(name: str, tmp_path: Path, signing_key: Path) -> None:
    case = CASES[name]
    path = _materialise(name, tmp_path)
    run = run_cli("snapshot", "sign", str(path), "--key", str(signing_key))
    if case.stage == OK:
        assert (run.code, "Traceback" in run.stderr) == (0, False), run.stderr
        assert Path(f"{path}.sig").is_file()
        return
    _assert_clean_failure(run, path, case, allow_finding=False)
    assert not Path(f"{path}.sig").exists()


def _accepts_max_bytes(command: str) -> bool:
    module = importlib.import_module(f"renderer.commands.{command}")
    cmd = module.command
    if command == "snapshot":
        cmd = cmd.commands["sign"]
    return any("--max-bytes" in getattr(p, "opts", []) for p in cmd.params)


@pytest.mark.parametrize("command", ["snapshot", "binding", "lint"])
def test_file_over_the_size_cap(command: str, tmp_path: Path, signing_key: Path) -> None:
    if not _accepts_max_bytes(command):
        pytest.skip(f"`dynamo-render {command}` has no --max-bytes option")
    path = tmp_path / "big.yaml"
    path.write_text(MINIMAL + "# padding\n" * 200)
    extra = ["--key", str(signing_key)] if command == "snapshot" else []
    args = ["snapshot", "sign"] if command == "snapshot" else [command]
    run = run_cli(*args, str(path), *extra, "--max-bytes", "1000")
    _assert_clean_failure(
        run, path, Case(LOAD, "larger than the size limit of 1000 bytes"), allow_finding=False
    )


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("name", TRAVERSAL_DGDS)
def test_render_never_writes_outside_output_dir(name: str, tmp_path: Path) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    dgd = work / name
    dgd.write_bytes((HOSTILE / name).read_bytes())
    out = work / "out"
    out.mkdir()
    before = _tree(tmp_path)
    run = run_cli("render", str(dgd), "-o", str(out), cwd=work)
    assert "Traceback" not in run.stderr
    # Kubernetes names cannot hold `/`: refusing is the documented outcome.
    assert run.code == 2, (run.code, run.stderr)
    assert len(run.stderr.strip().splitlines()) == 1
    written = _tree(tmp_path) - before
    assert all(p.startswith("a/b/out/") for p in written), written
    assert not written, f"nothing may be written on error: {written}"
    assert not Path("/tmp/dynamo-render-escape").exists()


def test_report_timings() -> None:
    """Print the slowest child runs (run with -s); the figures go in reports, not asserts."""
    for seconds, what in sorted(TIMINGS, reverse=True)[:5]:
        print(f"hostile: {seconds:.3f}s {what}")


# --- hostile binding values -------------------------------------------------------------
# The correct binding of the minimal vector, from the reference vectors (never the tool).
def _expected_minimal_binding() -> str:
    import json

    for line in (VECTORS / "expected.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["case"] == "01-minimal":
            return str(row["binding"])
    raise AssertionError("01-minimal missing from expected.jsonl")


GOOD = _expected_minimal_binding()
_, UID, _, HEX = GOOD.split("/")

# (value, must the parser reject it?, why). Values the operator's Go parser might accept
# (upper-case hex, `+1`, `01`) must still never be reported as a valid binding.
BINDING_VALUES: list[tuple[str, bool, str]] = [
    (f"v1/{UID}/1/{HEX}/", True, "trailing slash (5 parts)"),
    (f"/v1/{UID}/1/{HEX}", True, "leading slash"),
    (f"v1//{UID}/1/{HEX}", True, "doubled slash after the version"),
    (f"v1/{UID}//1/{HEX}", True, "doubled slash before the generation"),
    (f"v1/{UID}/1//{HEX}", True, "doubled slash before the digest"),
    (f"v1/{UID}/1/{HEX}/extra", True, "a fifth part"),
    (f"v1//1/{HEX}", True, "empty UID"),
    (f"V1/{UID}/1/{HEX}", True, "upper-case version"),
    (f"v2/{UID}/1/{HEX}", True, "unknown version"),
    (f"v1/{UID}/1/{HEX.upper()}", False, "upper-case hex digest"),
    (f"v1/{UID}/1/{HEX[:-1]}", True, "63 hex digits"),
    (f"v1/{UID}/1/{HEX}0", True, "65 hex digits"),
    (f"v1/{UID}/1/{HEX[:-1]}g", True, "a non-hex digit"),
    (f"v1/{UID}/1/{HEX} ", True, "trailing space"),
    (f"v1/{UID}/+1/{HEX}", False, "generation with a leading +"),
    (f"v1/{UID}/01/{HEX}", False, "generation with a leading zero"),
    (f"v1/{UID}/0_1/{HEX}", True, "generation with an underscore (Python int() takes it)"),
    (f"v1/{UID}/ 1/{HEX}", True, "generation with a space (Python int() takes it)"),
    (f"v1/{UID}/\u0661/{HEX}", True, "Arabic-Indic digit one (Python int() takes it)"),
    (f"v1/{UID}/\uff11/{HEX}", True, "full-width digit one (Python int() takes it)"),
    (f"v1/{UID}/0x1/{HEX}", True, "hex generation"),
    (f"v1/{UID}/0/{HEX}", True, "generation zero"),
    (f"v1/{UID}/-1/{HEX}", True, "negative generation"),
    (f"v1/{UID}/9223372036854775808/{HEX}", True, "generation 2^63 (int64 overflow)"),
    (f"v1/{UID}/18446744073709551617/{HEX}", True, "generation beyond uint64"),
    (f"v1/{UID}/2/{HEX}", False, "stale generation"),
    (f"v1/{UID[:-1]}8/1/{HEX}", False, "another UID"),
    (f"v1/{UID}/1/{HEX[:-1]}5", False, "another digest"),
    ("", True, "empty"),
]
_VALUE_IDS = [why for _, _, why in BINDING_VALUES]


def _value_params() -> list[Any]:
    """BINDING_VALUES for the child-process tests: all of them in the full suite; the inner
    loop keeps the first malformed and the first well-formed wrong value and every sixth
    (test_parse_binding_rejects_malformed_values checks every one in-process)."""
    first = {must_reject: i for i, (_, must_reject, _) in reversed(list(enumerate(BINDING_VALUES)))}
    return [
        pytest.param(
            *row, id=row[2], marks=() if i in first.values() or i % 6 == 0 else pytest.mark.slow
        )
        for i, row in enumerate(BINDING_VALUES)
    ]


@pytest.mark.parametrize(
    "value",
    [v for v, reject, _ in BINDING_VALUES if reject],
    ids=[why for _, reject, why in BINDING_VALUES if reject],
)
def test_parse_binding_rejects_malformed_values(value: str) -> None:
    binding = importlib.import_module("renderer.binding")
    if not hasattr(binding, "parse_binding"):
        pytest.skip("renderer.binding has no parse_binding")
    from renderer.errors import BindingFormatError

    with pytest.raises(BindingFormatError):
        binding.parse_binding(value)


@pytest.mark.parametrize(("value", "must_reject", "why"), _value_params())
def test_binding_verify_never_accepts_a_wrong_value(
    value: str, must_reject: bool, why: str, tmp_path: Path
) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL)
    run = run_cli("binding", str(snap), "--verify", value)
    assert "Traceback" not in run.stderr
    assert run.code in (1, 2), (why, run.code, run.stdout, run.stderr)


def test_binding_verify_accepts_the_reference_value(tmp_path: Path) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL)
    run = run_cli("binding", str(snap), "--verify", GOOD)
    assert run.code == 0, run.stderr


def _dcd_with_binding(value: str) -> str:
    """A committed v1beta1 DCD carrying `value` in both binding copies."""
    quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: llama-decode
  namespace: dynamo-prod
  annotations:
    nvidia.com/dynamo-checkpoint-binding: {quoted}
spec:
  podTemplate:
    metadata:
      annotations:
        nvidia.com/dynamo-checkpoint-binding: {quoted}
        nvidia.com/dynamo-checkpoint-restore-candidate: "true"
        nvidia.com/dynamo-checkpoint-name: checkpoint-a1b2c3d4
        nvidia.com/snapshot-target-containers: main
    spec:
      containers:
        - name: main
          image: busybox:1.36
"""


MISMATCH_RULES = ("binding-malformed", "binding-replaced", "binding-stale", "binding-provenance")


@pytest.mark.parametrize(("value", "must_reject", "why"), _value_params())
def test_lint_never_calls_a_wrong_value_fine(
    value: str, must_reject: bool, why: str, tmp_path: Path
) -> None:
    manifest = tmp_path / "dcd.yaml"
    manifest.write_text(_dcd_with_binding(value))
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL)
    run = run_cli("lint", str(manifest), "--checkpoint", str(snap))
    assert "Traceback" not in run.stderr
    assert run.code == 1, (why, run.code, run.stdout, run.stderr)
    expected = ("binding-malformed", "binding-absent") if must_reject else MISMATCH_RULES
    assert any(f"[{rule}]" in run.stdout for rule in expected), (why, run.stdout)
    assert re.search(re.escape(str(manifest)) + r":\d+:\d+: ", run.stdout), run.stdout
