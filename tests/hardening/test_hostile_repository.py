"""A hostile repository through the real CLI: no false "clean", no write outside the
repository root, no read of a non-regular file, bounded time and memory, safe reports.

The tool runs in CI on pull requests, so every file (`.dynamo-render.yaml` included) may
have been written by an attacker. The corpus files are `tests/hardening/inputs/repo-*.yaml`
(described in tests/hardening/inputs/README.md, section "Hostile repository"); the table
`REPOSITORY_CASES` says which test uses each. Expected verdicts come from what the
operator and Kubernetes do with the object (a DCD whose binding is stale is refused at
admission), never from the tool's own output.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import HOSTILE, REPO

import renderer
from renderer.cli import main

PACKAGE_ROOT = Path(renderer.__file__).parent.parent  # the code under test, for children
SNAPSHOTS = str(REPO / "examples" / "snapshots")
DGD = {
    v: str(REPO / "examples" / f"llama-disagg-{v}" / "dgd.yaml") for v in ("v1alpha1", "v1beta1")
}

REPOSITORY_CASES = {
    # 1. the pre-scan must not skip a DCD whose kind key is spelled another way
    "repo-prescan-kind-spaced.yaml": "prescan",
    "repo-prescan-kind-tagged.yaml": "prescan",
    "repo-prescan-kind-alias.yaml": "prescan",
    # 2. checkpointing enabled, every binding copy and restore annotation removed
    "repo-absent-dcd-v1beta1.yaml": "absent",
    "repo-absent-dcd-v1alpha1.yaml": "absent",
    "repo-absent-pcs.yaml": "absent",
    "repo-absent-pcs-bare.yaml": "absent-dgd-only",
    # 6, 7. reports: a lone surrogate, controls, bidi overrides and line breaks in names
    "repo-surrogate-map-key.yaml": "report",
    "repo-control-names.yaml": "report",
    # 9. messages that must name the real problem
    "repo-dgd-replicas-int32.yaml": "message",
    "repo-dgd-name-number.yaml": "message",
    "repo-dgd-kind-misspelt.yaml": "message",
}


@dataclass
class Result:
    exit_code: int
    output: str  # stdout, then stderr


def invoke(*args: str) -> Result:
    """`dynamo-render ARGS` in-process, through the CLI's own entry point (its error
    handling included); a traceback propagates and fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return Result(code, out.getvalue() + err.getvalue())


def test_every_corpus_file_has_a_row() -> None:
    committed = {p.name for p in HOSTILE.glob("repo-*")}
    assert committed == set(REPOSITORY_CASES)
    readme = (HOSTILE / "README.md").read_text()
    for name in REPOSITORY_CASES:
        assert f"`{name}`" in readme, name


# --- 1. the pre-scan never skips a DCD or PCS -------------------------------------------


@pytest.mark.parametrize("name", [n for n, p in REPOSITORY_CASES.items() if p == "prescan"])
def test_lint_reads_a_dcd_whatever_the_kind_spelling(name: str) -> None:
    # The DCD's bindings name generation 2 of a checkpoint at generation 1: stale. The
    # operator's reader (sigs.k8s.io/yaml) reads `kind : X`, `!!str kind: X` and `*k : X`
    # as the key `kind`, and the decoy `kind: ConfigMap` lines are inside a scalar or list.
    result = invoke(
        "--no-config", "lint", str(HOSTILE / name), "--checkpoint", SNAPSHOTS, "--strict"
    )
    assert result.exit_code == 1, result.output
    assert "[binding-stale] DCD dynamo-prod/llama-disagg-vllmdecodeworker" in result.output
    assert "in 1 file (1 object)" in result.output


# --- 2. checkpointing enabled but every binding removed ---------------------------------


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("repo-absent-dcd-v1beta1.yaml", "v1beta1"),
        ("repo-absent-dcd-v1alpha1.yaml", "v1alpha1"),
        ("repo-absent-pcs.yaml", "v1beta1"),
    ],
)
@pytest.mark.parametrize("with_dgd", [False, True])
def test_checkpoint_enabled_without_any_restore_trace_is_not_clean(
    name: str, version: str, with_dgd: bool
) -> None:
    """Every binding copy and restore annotation removed: the pods are ordinary to the
    webhook (admitted, they start without restoring). A DCD whose spec still enables
    checkpointing is pending, and says which snapshot to render with; a clique keeps no
    sign the webhook reads: only the DGD (render-drift) tells."""
    extra = ["--dgd", DGD[version]] if with_dgd else []
    result = invoke(
        "--no-config", "lint", str(HOSTILE / name), "--checkpoint", SNAPSHOTS, "--strict", *extra
    )
    pcs = name == "repo-absent-pcs.yaml"
    assert result.exit_code == (0 if pcs and not with_dgd else 1), result.output
    assert "[binding-absent]" not in result.output
    pending = re.findall(r"error \[checkpoint-pending\] .*", result.output)
    if pcs:
        assert not pending
        assert ("[render-drift]" in result.output) == with_dgd
    else:
        assert len(pending) == 1, result.output
        assert "the snapshots hold checkpoint-46333b366341a5dbfd4f63b83b7b9fc1" in pending[0]


def test_a_pcs_stripped_of_every_checkpoint_trace_is_drift_with_the_dgd() -> None:
    path = str(HOSTILE / "repo-absent-pcs-bare.yaml")
    result = invoke("--no-config", "lint", path, "--checkpoint", SNAPSHOTS, "--dgd", DGD["v1beta1"])
    assert result.exit_code == 1, result.output
    assert "error [render-drift] PCS dynamo-prod/llama-disagg" in result.output
    assert "[binding-absent]" not in result.output  # its pods are ordinary: admitted


# --- a repository in a temporary folder -------------------------------------------------

FRONTEND = "dynamocomponentdeployment-llama-disagg-frontend.yaml"
CONFIG = """\
apiVersion: dynamo-render/v1
kind: Config
render:
  - dgd: dgd.yaml
    checkpoints: [snapshots]
    target: dcd
    output: {output}
lint:
  paths: [rendered]
  checkpoints: [snapshots]
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (the working directory): a DGD, its snapshot, and `outside/` beside it."""
    root = tmp_path / "repo"
    (root / "snapshots").mkdir(parents=True)
    (root / ".git").mkdir()
    shutil.copy(DGD["v1beta1"], root / "dgd.yaml")
    for snap in Path(SNAPSHOTS).glob("*.yaml"):
        shutil.copy(snap, root / "snapshots" / snap.name)
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(root)
    return root


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under root with its content (links as their target)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "-> " + str(path.readlink())
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


# --- 3. writes stay inside the repository root ------------------------------------------


@pytest.mark.parametrize("use_config", [False, True])
def test_fix_refuses_a_symlink_leading_out_of_the_repository(repo: Path, use_config: bool) -> None:
    outside = repo.parent / "outside" / "victim.yaml"
    outside.write_bytes((HOSTILE / "repo-prescan-kind-spaced.yaml").read_bytes())  # fixable
    (repo / "rendered").mkdir()
    (repo / "rendered" / "dcd.yaml").symlink_to(outside)
    if use_config:
        (repo / ".dynamo-render.yaml").write_text(CONFIG.format(output="rendered"))
    before = _tree(repo.parent)
    if use_config:
        result = invoke("lint", "--fix")
    else:
        result = invoke("--no-config", "lint", "rendered", "--checkpoint", "snapshots", "--fix")
    assert result.exit_code == 2, result.output
    assert f"refusing to write rendered/dcd.yaml (it resolves to {outside})" in result.output
    assert "outside the repository root" in result.output
    assert _tree(repo.parent) == before


@pytest.mark.parametrize("output", ["../..", "../outside", "ABSOLUTE", "ETC"])
def test_config_output_outside_the_repository_is_refused(repo: Path, output: str) -> None:
    # `/etc/..` + a temporary folder: leaves the root through /etc, lands somewhere harmless
    # (a run of the unfixed code must not write into /etc itself)
    outside = str(repo.parent / "outside")
    output = {"ABSOLUTE": outside, "ETC": "/etc/.." + outside}.get(output, output)
    (repo / ".dynamo-render.yaml").write_text(CONFIG.format(output=output))
    before = _tree(repo.parent)
    for args in (["render"], ["render", "--check"]):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert re.search(r"\.dynamo-render\.yaml:7:13: render\[0\]\.output '", result.output)
        assert f"{output!r} is outside the repository root" in result.output
        assert len(result.output.strip().splitlines()) == 1
    assert _tree(repo.parent) == before


def test_config_output_through_a_symlinked_folder_is_refused(repo: Path) -> None:
    (repo / "rendered").symlink_to(repo.parent / "outside")
    (repo / ".dynamo-render.yaml").write_text(CONFIG.format(output="rendered/llama"))
    before = _tree(repo.parent)
    result = invoke("render")
    assert result.exit_code == 2, result.output
    assert "refusing to write rendered/llama (it resolves to" in result.output
    assert _tree(repo.parent) == before


# --- 4. only regular files are read or replaced in the output folder ---------------------


def _cli(*args: str, cwd: Path, config: bool = False) -> subprocess.CompletedProcess[str]:
    """A child process: a read that never ends must fail the test, not hang it."""
    return subprocess.run(
        [sys.executable, "-m", "renderer", *([] if config else ["--no-config"]), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)},
        check=False,
    )


@pytest.mark.parametrize("entry", ["dev-zero", "fifo", "link-to-file"])
@pytest.mark.parametrize("check", [False, True])
def test_output_folder_entries_must_be_regular_files(repo: Path, entry: str, check: bool) -> None:
    out = repo / "out"
    out.mkdir()
    target = out / FRONTEND
    if entry == "dev-zero":
        target.symlink_to("/dev/zero")
    elif entry == "fifo":
        os.mkfifo(target)
    else:
        (repo.parent / "outside" / "x.yaml").write_text("x: 1\n")
        target.symlink_to(repo.parent / "outside" / "x.yaml")
    extra = ["--check"] if check else []
    run = _cli(
        "render",
        "dgd.yaml",
        "--checkpoint",
        "snapshots",
        "--target",
        "dcd",
        "-o",
        "out",
        *extra,
        cwd=repo,
    )
    assert run.returncode == 2, run.stderr
    assert "not a regular file" in run.stderr and f"out/{FRONTEND}" in run.stderr
    assert "Traceback" not in run.stderr
    assert sorted(p.name for p in out.iterdir()) == [FRONTEND]  # nothing written


# `render dgd.yaml` of the repo fixture into out/, as DCDs
RENDER_DCD_TO_OUT = (
    "--no-config",
    "render",
    "dgd.yaml",
    "--checkpoint",
    "snapshots",
    "--target",
    "dcd",
    "-o",
    "out",
)


# --- the output folder: owned files, and one write path for -o and the config ------------


def test_render_removes_the_files_it_wrote_that_no_longer_render(repo: Path) -> None:
    args = list(RENDER_DCD_TO_OUT)
    assert invoke(*args).exit_code == 0
    owned = (repo / "out" / FRONTEND).read_bytes()
    stale = repo / "out" / "dynamocomponentdeployment-llama-disagg-oldworker.yaml"
    stale.write_bytes(owned)  # as if a component had been removed from the DGD
    foreign = {
        "notes.yaml": b"# Source: someone else\nkind: ConfigMap\n",
        "other-dgd.yaml": owned.replace(b"# Source: dgd.yaml", b"# Source: other.yaml"),
        "readme.txt": owned,
    }
    for name, data in foreign.items():
        (repo / "out" / name).write_bytes(data)
    result = invoke(*args, "--check")
    assert result.exit_code == 1, result.output
    assert result.output == f"would remove out/{stale.name}\n"
    assert stale.exists()
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.output == f"removed out/{stale.name}\n"
    assert not stale.exists()
    for name, data in foreign.items():
        assert (repo / "out" / name).read_bytes() == data
    assert invoke(*args, "--check").exit_code == 0


@pytest.mark.parametrize("use_config", [False, True])
def test_an_output_folder_that_cannot_be_created_is_exit_2(repo: Path, use_config: bool) -> None:
    (repo / "blocker").write_text("a file where a folder should be\n")
    if use_config:
        (repo / ".dynamo-render.yaml").write_text(CONFIG.format(output="blocker/out"))
        result = invoke("render")
    else:
        args = ["dgd.yaml", "--checkpoint", "snapshots", "--target", "dcd", "-o", "blocker/out"]
        result = invoke("--no-config", "render", *args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("dynamo-render: error: cannot create blocker/out: ")
    assert len(result.output.strip().splitlines()) == 1


# --- 8. temp files are recognisable, and a killed run's leftovers are removed ------------


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_leftover_temp_files_are_removed_on_the_next_run(repo: Path) -> None:
    out = repo / "out"
    out.mkdir()
    pid = _dead_pid()
    leftover = out / f".{FRONTEND}.dynamo-render-{pid}-0123abcd.tmp"
    leftover.write_text("half")
    kept = {
        ".editor.swp.tmp": "someone else's",
        f".x.yaml.dynamo-render-{os.getpid()}-0123abcd.tmp": "a live writer's",
    }
    for name, data in kept.items():
        (out / name).write_text(data)
    link = out / f".y.yaml.dynamo-render-{pid}-0123abcd.tmp"
    link.symlink_to(repo / "dgd.yaml")
    result = invoke(
        *RENDER_DCD_TO_OUT,
    )
    assert result.exit_code == 0, result.output
    assert not leftover.exists()
    assert link.is_symlink()
    for name, data in kept.items():
        assert (out / name).read_text() == data


def test_fix_removes_leftovers_beside_the_file_it_rewrites(repo: Path) -> None:
    (repo / "rendered").mkdir()
    fixable = repo / "rendered" / "dcd.yaml"
    fixable.write_bytes((HOSTILE / "repo-prescan-kind-spaced.yaml").read_bytes())
    leftover = repo / "rendered" / f".dcd.yaml.dynamo-render-{_dead_pid()}-0123abcd.tmp"
    leftover.write_text("half")
    result = invoke("--no-config", "lint", "rendered", "--checkpoint", "snapshots", "--fix")
    assert result.exit_code == 1, result.output  # fixed: exit 1 says files changed
    assert not leftover.exists()


# --- 5. bounded nodes and documents per file ---------------------------------------------

MEMORY_LIMIT = 1 << 30  # the README's promise: any input under the caps fits in 1 GiB
DCD_HEAD = "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\n"


def _limited(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    import resource

    def limits() -> None:  # in the child, before exec
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))

    return subprocess.run(
        [sys.executable, "-m", "renderer", "--no-config", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)},
        preexec_fn=limits,  # pytest is single-threaded
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("content", "message"),
    [
        # 16 MB, one flow sequence of 8 million one-character items
        (DCD_HEAD + "spec:\n  x: [" + "1," * 8_000_000 + "1]\n", "more than 500000 YAML nodes"),
        # 16 MB of `---` lines: 4 million empty documents
        ("---\n" * 4_000_000, "more than 10000 YAML documents"),
    ],
    ids=["flow-sequence-16mb", "document-markers-16mb"],
)
@pytest.mark.parametrize("command", ["lint", "binding", "render"])
def test_big_files_under_the_byte_cap_are_refused_in_bounded_memory(
    tmp_path: Path, content: str, message: str, command: str
) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(content)
    assert path.stat().st_size < 16 * 1024 * 1024  # under the default byte cap
    run = _limited(command, str(path), cwd=tmp_path)
    assert run.returncode == 2, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr
    (line,) = run.stderr.splitlines()
    assert re.match(rf"dynamo-render: error: {re.escape(str(path))}:\d+:\d+: {message}", line)
    assert "--max-" in line  # says how to raise the cap


def test_the_caps_can_be_set_on_the_command_line_and_in_the_config(repo: Path) -> None:
    small = repo / "small.yaml"
    small.write_text(DCD_HEAD + "metadata:\n  name: a\nspec:\n  x: [1, 2, 3, 4, 5, 6]\n")
    result = invoke("--no-config", "--max-nodes", "8", "lint", "small.yaml")
    assert result.exit_code == 2, result.output
    assert "small.yaml:4:9:" in result.output and "more than 8 YAML nodes" in result.output
    assert invoke("--no-config", "--max-nodes", "20", "lint", "small.yaml").exit_code == 0
    configmap = "apiVersion: v1\nkind: ConfigMap\n"
    (repo / "two.yaml").write_text(f"{configmap}---\n{configmap}---\n{configmap}")
    (repo / ".dynamo-render.yaml").write_text(
        "apiVersion: dynamo-render/v1\nkind: Config\nmaxDocuments: 2\n"
    )
    result = invoke("lint", "two.yaml")
    assert result.exit_code == 2, result.output
    assert "two.yaml:6:1: more than 2 YAML documents" in result.output
    assert invoke("--max-documents", "3", "lint", "two.yaml").exit_code == 0


# --- 6, 7. reports never crash and never carry raw controls from the input ---------------

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


@pytest.mark.parametrize("fmt", ["text", "github", "sarif", "json"])
@pytest.mark.parametrize("name", ["repo-surrogate-map-key.yaml", "repo-control-names.yaml"])
def test_reports_escape_what_names_carry(tmp_path: Path, name: str, fmt: str) -> None:
    # the file name itself carries a line break, a workflow command and an ESC
    path = tmp_path / "x\n::error::forged\x1b[2J.yaml"
    path.write_bytes((HOSTILE / name).read_bytes())
    # --strict: every finding is an error, so the run fails (its warnings are escaped too)
    run = _cli(
        "lint", str(path), "--checkpoint", SNAPSHOTS, "--strict", "--format", fmt, cwd=tmp_path
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert RAW.search(run.stdout) is None, run.stdout
    if fmt in ("text", "github"):
        lines = run.stdout.splitlines()
        expected = 1  # one line per finding (the control-name DCD: checkpoint-pending)
        assert len(lines) == expected, run.stdout
        if fmt == "github":
            assert all(re.match(r"::(error|warning) file=", line) for line in lines)
    if name == "repo-surrogate-map-key.yaml":
        assert "\\ud800" in run.stdout.replace("\\\\", "\\")


# --- 9. messages that name the real problem ----------------------------------------------
# render checks the DGD against its CRD's schema first, as the API server does before the
# webhooks; the operator's admission (its webhook decoding the DGD into Go types) refuses
# the same inputs on its own, so each case is asserted on both paths.

MESSAGE_CASES = [
    # The CRD declares replicas `format: int32` (at most 2^31 - 1) and Go decodes it into
    # an int32: 2^31 is refused as out of range, not read as a negative number
    (
        "repo-dgd-replicas-int32.yaml",
        ":45:17: $.spec.components[2].replicas: must be at most 2147483647; got 2147483648",
        45,
        "json: cannot unmarshal number 2147483648 into Go struct field"
        " DynamoGraphDeployment.spec.components.2.replicas of type int32",
    ),
    # Kubernetes' ObjectMeta.Name is a string: 123 is a type error, not an empty name
    (
        "repo-dgd-name-number.yaml",
        ":6:9: $.metadata.name: must be a string, not an integer",
        6,
        "json: cannot unmarshal number into Go struct field"
        " DynamoGraphDeployment.metadata.name of type string",
    ),
]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        *[(name, message) for name, message, _, _ in MESSAGE_CASES],
        (
            "repo-dgd-kind-misspelt.yaml",
            ":4:7: kind 'DynamoGraphDeploymnet' is not DynamoGraphDeployment",
        ),
    ],
)
def test_render_messages_name_the_problem(name: str, expected: str) -> None:
    path = str(HOSTILE / name)
    result = invoke("--no-config", "render", path, "--checkpoint", SNAPSHOTS)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"dynamo-render: error: {path}{expected}"), result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(("name", "line", "refusal"), [(n, ln, r) for n, _, ln, r in MESSAGE_CASES])
def test_admission_refuses_what_the_schema_refuses(name: str, line: int, refusal: str) -> None:
    # The refusal text is the pinned operator's, from
    # `../shared/operator-oracle/oracle render FILE --namespace dynamo-prod` (exit 3).
    from renderer.errors import InputError
    from renderer.render import render
    from renderer.source import load_paths

    (dgd,) = load_paths([str(HOSTILE / name)])
    with pytest.raises(InputError) as caught:
        render(dgd, [])
    assert caught.value.message == f"decode DGD: {refusal}"
    assert (caught.value.file, caught.value.line) == (str(HOSTILE / name), line)


def _signed(repo: Path) -> Path:
    snap = next((repo / "snapshots").glob("*.yaml"))
    assert invoke("snapshot", "keygen", "--out", "k").exit_code == 0
    assert invoke("snapshot", "sign", str(snap), "--key", "k.key").exit_code == 0
    return snap


def test_a_sig_with_crlf_line_endings_says_so(repo: Path) -> None:
    snap = _signed(repo)
    sig = Path(f"{snap}.sig")
    sig.write_bytes(sig.read_bytes().replace(b"\n", b"\r\n"))
    result = invoke("snapshot", "verify", str(snap), "--key", "k.pub")
    assert result.exit_code == 1, result.output
    assert "CR LF (Windows) line endings" in result.output
    assert "unsupported version" not in result.output


def test_a_sig_with_non_canonical_base64_is_refused(repo: Path) -> None:
    import base64

    snap = _signed(repo)
    sig = Path(f"{snap}.sig")
    head, encoded = sig.read_text().rstrip("\n").rsplit(": ", 1)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = encoded[-3]  # the character before `==`: 2 data bits, then 4 padding bits
    changed = encoded[:-3] + alphabet[alphabet.index(last) ^ 1] + "=="
    assert base64.b64decode(changed) == base64.b64decode(encoded)  # same signature bytes
    sig.write_text(f"{head}: {changed}\n")
    result = invoke("snapshot", "verify", str(snap), "--key", "k.pub")
    assert result.exit_code == 1, result.output
    assert "not the canonical base64" in result.output


# --- 10. a named path, a config path or a found config: only regular files, writes inside --


@pytest.mark.parametrize("named", ["file", "folder"])
def test_fix_of_a_named_symlink_leading_out_of_the_repository_is_refused(
    repo: Path, named: str
) -> None:
    # CI names the changed files: a committed link among them must not make its target a
    # write root (the root then covers whatever the link leads to)
    outside = repo.parent / "outside"
    (outside / "dcd.yaml").write_bytes((HOSTILE / "repo-prescan-kind-spaced.yaml").read_bytes())
    if named == "file":
        (repo / "rendered").mkdir()
        (repo / "rendered" / "dcd.yaml").symlink_to(outside / "dcd.yaml")
        target = "rendered/dcd.yaml"
    else:
        (repo / "rendered").symlink_to(outside)
        target = "rendered"
    before = _tree(repo.parent)
    result = invoke("--no-config", "lint", target, "--checkpoint", "snapshots", "--fix")
    assert result.exit_code == 2, result.output
    assert f"refusing to write rendered/dcd.yaml (it resolves to {outside / 'dcd.yaml'})" in (
        result.output
    )
    assert _tree(repo.parent) == before


def test_a_path_named_outside_the_repository_is_still_the_callers_to_fix(repo: Path) -> None:
    outside = repo.parent / "outside"
    (outside / "dcd.yaml").write_bytes((HOSTILE / "repo-prescan-kind-spaced.yaml").read_bytes())
    result = invoke("--no-config", "lint", str(outside), "--checkpoint", "snapshots", "--fix")
    assert "refusing to write" not in result.output
    assert (outside / "dcd.yaml").read_bytes() != (
        HOSTILE / "repo-prescan-kind-spaced.yaml"
    ).read_bytes()


def test_sign_refuses_a_snapshot_folder_linked_out_of_the_repository(repo: Path) -> None:
    outside = repo.parent / "outside"
    for snap in (repo / "snapshots").glob("*.yaml"):
        shutil.copy(snap, outside / "decode.yaml")
    (repo / "linked").symlink_to(outside)
    assert invoke("snapshot", "keygen", "--out", "release").exit_code == 0
    before = _tree(repo.parent)
    result = invoke("snapshot", "sign", "linked/decode.yaml", "--key", "release.key")
    assert result.exit_code == 2, result.output
    assert "refusing to write linked/decode.yaml.sig (it resolves to" in result.output
    assert _tree(repo.parent) == before
    # named as the folder it is, it is the caller's choice
    result = invoke("snapshot", "sign", str(outside / "decode.yaml"), "--key", "release.key")
    assert result.exit_code == 0, result.output
    assert (outside / "decode.yaml.sig").is_file()


FIFO_CONFIGS = {
    "lint.paths": "lint:\n  paths: [pipe.yaml]\n",
    "lint.checkpoints": "lint:\n  paths: [dgd.yaml]\n  checkpoints: [pipe.yaml]\n",
    "trustedKeys": "trustedKeys: [pipe.yaml]\nlint:\n  paths: [dgd.yaml]\n",
    "crds": "crds: [pipe.yaml]\nlint:\n  paths: [dgd.yaml]\n",
    "render.dgd": "render:\n  - dgd: pipe.yaml\n    output: out\n",
    "render.checkpoints": "render:\n  - dgd: dgd.yaml\n    checkpoints: [pipe.yaml]\n"
    "    output: out\n",
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("where", [*FIFO_CONFIGS, "config", "argument", "--checkpoint"])
def test_a_fifo_is_refused_wherever_it_is_named(repo: Path, where: str) -> None:
    # a read of a FIFO nobody writes to never ends; a repository can link one in
    (repo.parent / "outside" / "pipe").parent.mkdir(exist_ok=True)
    os.mkfifo(repo.parent / "outside" / "pipe")
    (repo / "pipe.yaml").symlink_to(repo.parent / "outside" / "pipe")
    header = "apiVersion: dynamo-render/v1\nkind: Config\n"
    if where == "config":
        (repo / ".dynamo-render.yaml").symlink_to(repo.parent / "outside" / "pipe")
        args = ["lint", "dgd.yaml"]
    elif where == "argument":
        args = ["--no-config", "lint", "pipe.yaml"]
    elif where == "--checkpoint":
        args = ["--no-config", "lint", "dgd.yaml", "--checkpoint", "pipe.yaml"]
    else:
        (repo / ".dynamo-render.yaml").write_text(header + FIFO_CONFIGS[where])
        args = ["render", "--check"] if where.startswith("render") else ["lint"]
    run = _cli(*args, cwd=repo, config=True)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert "not a regular file" in run.stderr or "Invalid argument" in run.stderr, run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize(
    ("key", "default"),
    [("maxBytes", 16 * 1024 * 1024), ("maxNodes", 500_000), ("maxDocuments", 10_000)],
)
def test_the_config_may_lower_a_per_file_limit_not_raise_it(
    repo: Path, key: str, default: int
) -> None:
    header = "apiVersion: dynamo-render/v1\nkind: Config\n"
    (repo / ".dynamo-render.yaml").write_text(f"{header}{key}: {default + 1}\n")
    result = invoke("lint", "dgd.yaml")
    assert result.exit_code == 2, result.output
    assert f".dynamo-render.yaml:3:{len(key) + 3}: {key} {default + 1} is above the default" in (
        result.output
    )
    assert "not raise it" in result.output
    (repo / ".dynamo-render.yaml").write_text(f"{header}{key}: {default}\n")
    assert invoke("lint", "dgd.yaml").exit_code == 0


def test_a_folder_nested_deeper_than_the_recursion_limit_is_walked(repo: Path) -> None:
    folder = repo / "deep"
    folder.mkdir()
    for _ in range(sys.getrecursionlimit() + 100):  # one level at a time: parents=True recurses
        folder = folder / "a"
        folder.mkdir()
    shutil.copy(next((repo / "snapshots").glob("*.yaml")), folder / "decode.yaml")
    try:
        for args in (["lint", "deep"], ["binding", "deep"]):
            result = invoke("--no-config", *args)
            assert result.exit_code == 0, result.output[-500:]
            assert "Traceback" not in result.output
    finally:  # bottom up: shutil.rmtree (and pytest's clean-up with it) recurses too
        (folder / "decode.yaml").unlink()
        while folder != repo:
            folder.rmdir()
            folder = folder.parent


def test_written_paths_are_printed_escaped(repo: Path) -> None:
    output = "r\\e[31m\\u202e\\nx\\rq\\u2028"  # YAML escapes: the config itself is clean
    (repo / ".dynamo-render.yaml").write_text(CONFIG.format(output=f'"{output}"'))
    for args in (["render", "--check"], ["render"]):
        result = invoke(*args)
        assert result.exit_code in (0, 1), result.output
        assert RAW.search(result.output) is None, result.output
        assert "r\\x1b[31m\\u202e\\nx\\rq\\u2028/" in result.output
    snapshot = repo / "snap\x1b[2J\n.yaml"
    shutil.copy(next((repo / "snapshots").glob("*.yaml")), snapshot)
    assert invoke("snapshot", "keygen", "--out", "release").exit_code == 0
    for args in (
        ["sign", snapshot.name, "--key", "release.key"],
        ["verify", snapshot.name, "--key", "release.pub"],
    ):
        result = invoke("snapshot", *args)
        assert result.exit_code == 0, result.output
        assert RAW.search(result.output) is None, result.output
        assert "snap\\x1b[2J\\n.yaml" in result.output


DEEP_JSON = "[" * 100_000  # 100 KB: under every cap, deeper than any recursion limit


def test_json_nesting_is_capped_without_recursing() -> None:
    from renderer.gojson import MAX_JSON_DEPTH, TooDeepError, loads

    assert loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    for text in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), DEEP_JSON + "]"):
        with pytest.raises(TooDeepError):
            loads(text)


def test_a_binding_map_nested_too_deep_is_malformed_not_a_crash(repo: Path) -> None:
    grove = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "grove.yaml").read_text()
    key = "    nvidia.com/dynamo-checkpoint-bindings: "
    start = grove.index(key)
    end = grove.index("\n", start)
    (repo / "grove.yaml").write_text(grove[:start] + f"{key}'{DEEP_JSON}'" + grove[end:])
    result = invoke("--no-config", "lint", "grove.yaml", "--checkpoint", "snapshots")
    assert result.exit_code == 1, result.output
    assert "binding-malformed" in result.output
    assert "nested deeper than 256 levels" in result.output


@pytest.mark.parametrize("annotation", ["nvidia.com/dgd-spec", "nvidia.com/dgd-status"])
def test_a_dgd_annotation_nested_too_deep_is_refused_at_the_field(
    repo: Path, annotation: str
) -> None:
    dgd = (repo / "dgd.yaml").read_text()
    anchor = "  annotations:\n"
    assert anchor in dgd
    dgd = dgd.replace(anchor, f"{anchor}    {annotation}: '{DEEP_JSON}'\n", 1)
    (repo / "dgd.yaml").write_text(dgd)
    result = invoke("--no-config", "render", "dgd.yaml", "--checkpoint", "snapshots")
    assert result.exit_code == 2, result.output
    assert f"metadata.annotations.{annotation}" in result.output
    assert "not reproduced" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_dgd_of_a_thousand_components_renders_each_one(repo: Path) -> None:
    # The operator finds a component by scanning the list, once per component; the
    # emulation indexes it instead (a 10,000-component DGD took minutes). Each DCD must
    # still come from its own component.
    dgd = (repo / "dgd.yaml").read_text()
    frontend = re.search(r"(    - name: Frontend\n(?:      .*\n|        .*\n)+?)(    - name:)", dgd)
    assert frontend is not None
    block = frontend.group(1)
    copies = "".join(block.replace("name: Frontend", f"name: Fe{i:04d}") for i in range(1000))
    (repo / "dgd.yaml").write_text(dgd.replace(block, copies + block, 1))
    result = invoke(
        "--no-config", "render", "dgd.yaml", "--checkpoint", "snapshots", "--target", "dcd"
    )
    assert result.exit_code == 0, result.output[-2000:]
    names = re.findall(r"^  name: (llama-disagg-fe\d{4})$", result.output, re.MULTILINE)
    assert names == [f"llama-disagg-fe{i:04d}" for i in range(1000)]
    components = re.findall(r"nvidia.com/dynamo-component: (Fe\d{4})$", result.output, re.M)
    assert sorted(set(components)) == [f"Fe{i:04d}" for i in range(1000)]


CRD_HEAD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dynamocomponentdeployments.nvidia.com
spec:
  group: nvidia.com
  names:
    kind: DynamoComponentDeployment
  versions:
    - name: v1beta1
      served: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
"""
SLOW_CRDS = {
    # exponential backtracking on 'aaa...a!'
    "pattern": ("                backendFramework:\n                  type: string\n"
                "                  pattern: '^(a+)+$'\n"),
    # every item of a long list against a long enum
    "enum": ("                xs:\n                  type: array\n                  items:\n"
             "                    type: integer\n                    enum: [" +
             ", ".join(str(i) for i in range(5000)) + "]\n"),
    # pairwise comparison of thousands of distinct objects
    "uniqueItems": ("                ys:\n                  type: array\n"
                    "                  x-kubernetes-list-type: set\n"
                    "                  items:\n                    type: object\n"
                    "                    x-kubernetes-preserve-unknown-fields: true\n"),
}  # fmt: skip


@pytest.mark.parametrize("shape", list(SLOW_CRDS))
def test_a_crd_that_makes_a_check_take_hours_is_stopped(
    repo: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    from renderer.schema import check

    monkeypatch.setattr(check, "CRD_CHECK_SECONDS", 0.3)  # 10 s in a real run
    (repo / "crd.yaml").write_text(CRD_HEAD + SLOW_CRDS[shape])
    dcd = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    first = dcd.split("\n---\n")[0]
    if shape == "pattern":
        first = first.replace("backendFramework: vllm", "backendFramework: " + "a" * 40 + "!", 1)
    else:
        items = (
            "[" + ", ".join(str(5000 + i) for i in range(5000)) + "]"
            if shape == "enum"
            else "[" + ", ".join(f"{{k: {i}}}" for i in range(6000)) + "]"
        )
        first = first.replace(
            "\nspec:\n", f"\nspec:\n  {'xs' if shape == 'enum' else 'ys'}: {items}\n", 1
        )
    (repo / "dcd.yaml").write_text(first + "\n")
    result = invoke("--no-config", "lint", "dcd.yaml", "--crd", "crd.yaml")
    assert result.exit_code == 2, result.output[-1000:]
    assert "took over 0.3 s and was stopped" in result.output
    assert re.match(r"dynamo-render: error: dcd\.yaml:\d+:\d+: checking this object", result.output)


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("pattern: '['", "is not a valid JSON Schema: '[' is not a 'regex'"),
        ("minLength: -1", "is not a valid JSON Schema: -1 is less than the minimum of 0"),
        ("DEEP", "the schema is nested too deeply to check"),
    ],
)
def test_a_crd_schema_that_cannot_be_used_is_named_at_its_version(
    repo: Path, keyword: str, message: str
) -> None:
    indent = " " * 18
    if keyword == "DEEP":  # `not` 150 deep: well under the YAML nesting cap
        body = "".join(f"{indent}{'  ' * i}not:\n" for i in range(150))
        body += f"{indent}{'  ' * 150}type: string\n"
    else:
        body = f"{indent}type: string\n{indent}{keyword}\n"
    (repo / "crd.yaml").write_text(CRD_HEAD + "                backendFramework:\n" + body)
    dcd = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    (repo / "dcd.yaml").write_text(dcd)
    result = invoke("--no-config", "lint", "dcd.yaml", "--crd", "crd.yaml")
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("dynamo-render: error: crd.yaml:10:7: CRD "), line
    assert message in line


def test_a_binding_map_naming_a_clique_twice_is_malformed(repo: Path) -> None:
    # Go's decoder keeps the last of two keys, a reviewer reads the first: neither wins
    grove = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "grove.yaml").read_text()
    found = re.search(r"nvidia.com/dynamo-checkpoint-bindings: '\{\"(\w+)\":\"([^\"]+)\"", grove)
    assert found is not None
    clique, binding = found.groups()
    wrong = binding[:-1] + ("0" if binding[-1] != "0" else "1")
    doubled = found.group(0).replace(
        f'{{"{clique}":"{binding}"', f'{{"{clique}":"{wrong}","{clique}":"{binding}"'
    )
    (repo / "grove.yaml").write_text(grove.replace(found.group(0), doubled, 1))
    result = invoke("--no-config", "lint", "grove.yaml", "--checkpoint", "snapshots")
    assert result.exit_code == 1, result.output
    assert "binding-malformed" in result.output
    assert f"the key '{clique}' is given twice" in result.output


def test_fix_says_why_it_leaves_an_aliased_binding_alone(repo: Path) -> None:
    dcd = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    key = "    nvidia.com/dynamo-checkpoint-binding: "
    start = dcd.index(key)
    end = dcd.index("\n", start)
    binding = dcd[start + len(key) : end]
    stale = binding.replace("/1/", "/2/", 1)
    aliased = f"    nvidia.com/note: &b {stale}\n{key}*b"
    (repo / "dcd.yaml").write_text(dcd[:start] + aliased + dcd[end:])
    before = (repo / "dcd.yaml").read_bytes()
    result = invoke("--no-config", "lint", "dcd.yaml", "--checkpoint", "snapshots", "--fix")
    assert result.exit_code == 1, result.output
    assert "comes from an alias or a merge key" in result.output
    assert "is a string, not a string" not in result.output
    assert (repo / "dcd.yaml").read_bytes() == before


def test_a_binding_pasted_on_a_worker_that_is_not_checkpointed_is_misplaced(repo: Path) -> None:
    # decode's binding copied onto the prefill DCD, whose checkpointing is off: its pods
    # restore from nothing, so the copies are stray, not unverifiable
    dcd = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml").read_text()
    binding = re.search(r"nvidia.com/dynamo-checkpoint-binding: (\S+)", dcd)
    assert binding is not None
    documents = dcd.split("\n---\n")
    index = next(i for i, d in enumerate(documents) if "name: llama-disagg-vllmprefill" in d)
    prefill = documents[index]
    assert "dynamo-checkpoint" not in prefill
    line = f"nvidia.com/dynamo-checkpoint-binding: {binding.group(1)}"
    meta = "  annotations:\n"
    template = "      annotations:\n"
    assert meta in prefill and template in prefill
    prefill = prefill.replace(meta, f"{meta}    {line}\n", 1).replace(
        template, f"{template}        {line}\n", 1
    )
    documents[index] = prefill
    (repo / "dcd.yaml").write_text("\n---\n".join(documents))
    # its pods are ordinary to the webhook (no restore metadata, checkpointing off in its
    # spec): admitted, the copies stray (warnings), with or without the DGD
    alone = invoke("--no-config", "lint", "dcd.yaml", "--checkpoint", "snapshots")
    assert alone.exit_code == 0, alone.output
    assert alone.output.count("warning [binding-misplaced]") == 2, alone.output
    args = ("--no-config", "lint", "dcd.yaml", "--checkpoint", "snapshots", "--dgd", "dgd.yaml")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.output.count("warning [binding-misplaced]") == 2, result.output
    assert "checkpointing is not enabled in its spec" in result.output
    fixed = invoke(*args, "--fix")
    assert "fixed 2 findings in 1 file" in fixed.output, fixed.output
    assert (repo / "dcd.yaml").read_text() == dcd


def test_a_singular_binding_on_the_pcs_metadata_is_misplaced(repo: Path) -> None:
    grove = (REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "grove.yaml").read_text()
    found = re.search(r"nvidia.com/dynamo-checkpoint-bindings: .*\n", grove)
    binding = re.search(r"nvidia.com/dynamo-checkpoint-binding: (\S+)", grove)
    assert found is not None and binding is not None
    stray = f"    nvidia.com/dynamo-checkpoint-binding: {binding.group(1)}\n"
    (repo / "grove.yaml").write_text(grove.replace(found.group(0), found.group(0) + stray, 1))
    result = invoke("--no-config", "lint", "grove.yaml", "--checkpoint", "snapshots")
    assert result.exit_code == 0, result.output  # on no pod: admitted, a warning
    assert "warning [binding-misplaced]" in result.output and "on its own metadata" in result.output
    fixed = invoke("--no-config", "lint", "grove.yaml", "--checkpoint", "snapshots", "--fix")
    assert "fixed 1 finding in 1 file" in fixed.output, fixed.output
    assert (repo / "grove.yaml").read_text() == grove
