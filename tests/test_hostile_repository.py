"""A hostile repository through the real CLI: no false "clean", no write outside the
repository root, no read of a non-regular file, bounded time and memory, safe reports.

The tool runs in CI on pull requests, so every file (`.dynamo-render.yaml` included) may
have been written by an attacker. The corpus files are `tests/hostile/repo-*.yaml`
(described in tests/hostile/README.md, section "Hostile repository"); the table
`REPOSITORY_CASES` says which test uses each. Expected verdicts come from what the
operator and Kubernetes do with the object (a DCD whose binding is stale is refused at
admission), never from the tool's own output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from renderer.cli import cli

HERE = Path(__file__).parent
HOSTILE = HERE / "hostile"
REPO = HERE.parent
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
}


def invoke(*args: str) -> Result:
    """`dynamo-render ARGS`; a traceback fails the test instead of becoming exit 1."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


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
def test_checkpoint_enabled_without_any_binding_is_absent(
    name: str, version: str, with_dgd: bool
) -> None:
    extra = ["--dgd", DGD[version]] if with_dgd else []
    result = invoke(
        "--no-config", "lint", str(HOSTILE / name), "--checkpoint", SNAPSHOTS, "--strict", *extra
    )
    assert result.exit_code == 1, result.output
    # both copies of the decode worker's binding are missing (the webhook denies its pods)
    absent = re.findall(r"error \[binding-absent\] (\S+ \S+)", result.output)
    assert len(absent) == 2, result.output


def test_a_pcs_stripped_of_every_checkpoint_trace_is_absent_with_the_dgd() -> None:
    path = str(HOSTILE / "repo-absent-pcs-bare.yaml")
    result = invoke("--no-config", "lint", path, "--checkpoint", SNAPSHOTS, "--dgd", DGD["v1beta1"])
    assert result.exit_code == 1, result.output
    assert result.output.count("error [binding-absent] clique vllmdecodeworker") == 2
