"""Config-driven render on several processes (`render -j N`) says and writes what one does.

The reference is `-j 1` (the entries rendered one after the other in this process), which
the render tests check against the operator oracle's output.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main
from renderer.pipeline import render as render_pipeline

EXAMPLES = REPO / "examples"
HEADER = "apiVersion: dynamo-render/v1\nkind: Config\n"
EXAMPLE_DGDS = ("llama-disagg-v1alpha1", "llama-disagg-v1beta1")


def _repo(root: Path, *, broken: bool = False) -> Path:
    (root / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLES, root / "examples")
    entries = []
    for n in range(3):
        for example in EXAMPLE_DGDS:
            for target in ("dcd", "grove"):
                entries.append(
                    f"  - dgd: examples/{example}/dgd.yaml\n    checkpoints: [examples/snapshots]\n"
                    f"    target: {target}\n    output: out/{n}-{example}-{target}\n"
                )
    if broken:  # the seventh entry names a file that does not exist, the eleventh another
        entries[6] = entries[6].replace("v1beta1/dgd.yaml", "v1beta1/missing.yaml", 1)
        entries[10] = entries[10].replace("v1beta1/dgd.yaml", "v1beta1/gone.yaml", 1)
    (root / ".dynamo-render.yaml").write_text(HEADER + "render:\n" + "".join(entries))
    return root


def _tree(root: Path) -> dict[str, bytes]:
    out = root / "out"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_render_with_two_jobs_writes_and_prints_what_one_job_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _repo(tmp_path / "one")
    two = _repo(tmp_path / "two")
    monkeypatch.chdir(one)
    first = _run(["render", "-j", "1"], capsys)
    monkeypatch.chdir(two)
    second = _run(["render", "-j", "2"], capsys)
    assert first == second
    assert first[0] == 0
    assert _tree(one) == _tree(two)
    assert len(_tree(one)) == 3 * 2 * (3 + 1)  # per example: three DCDs, or one PCS
    # --check after a change: the same listing either way
    victim = sorted((two / "out").rglob("*.yaml"))[5]
    victim.write_text(victim.read_text() + "# edited\n")
    shutil.copy(victim, one / victim.relative_to(two))
    checks = []
    for repo in (one, two):
        monkeypatch.chdir(repo)
        checks.append(_run(["render", "--check", "-j", "2" if repo is two else "1"], capsys))
    assert checks[0] == checks[1]
    assert checks[0][0] == 1
    assert "would write" in checks[0][1]


def test_a_failing_entry_is_reported_as_one_job_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = []
    for jobs in ("1", "2"):
        repo = _repo(tmp_path / jobs, broken=True)
        monkeypatch.chdir(repo)
        results.append(_run(["render", "-j", jobs], capsys))
        assert not (repo / "out").exists()  # nothing written
    assert results[0] == results[1]
    assert results[0][0] == 2
    assert "missing.yaml" in results[0][2]


def test_a_few_entries_render_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import renderer.parallel

    def no_pool() -> object:
        raise AssertionError("a few entries must not start worker processes")

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLES, repo / "examples")
    shutil.copy(EXAMPLES / "dynamo-render.yaml", repo / ".dynamo-render.yaml")
    (repo / "snapshots").mkdir()
    shutil.copytree(EXAMPLES / "snapshots", repo / "snapshots", dirs_exist_ok=True)
    monkeypatch.setattr(renderer.parallel, "_context", no_pool)
    monkeypatch.chdir(repo)
    assert render_pipeline.PARALLEL_MIN_ENTRIES > 1
    assert _run(["render", "-j", "2"], capsys)[0] == 0
