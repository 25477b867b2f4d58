"""`run_lint`, the library entry point of `dynamo-render lint`: plain results, no printing.

The fixtures are the hand-made broken manifests of tests/fixtures/lint (one wrong binding
each, against the reference vector 02's checkpoint) and their clean twins.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from lint_support import OUTDATED_RULE
from paths import FIXTURES, VECTORS

from renderer.commands.lint import LintArgs, execute
from renderer.errors import UsageError
from renderer.pipeline.lint import run_lint
from renderer.pipeline.requests import LintRequest
from renderer.source import SourceObject

FIXTURES = FIXTURES / "lint" / "dcd-v1beta1"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")


def test_a_stale_binding_is_found_then_fixed_and_the_outcome_says_so(tmp_path: Path) -> None:
    target = tmp_path / "manifest.yaml"
    target.write_text((FIXTURES / "binding-stale.yaml").read_text())
    found = run_lint(
        LintRequest(paths=[str(target)], checkpoints=[SNAPSHOT], disabled_rules=[OUTDATED_RULE])
    )
    assert {f.rule for f in found.findings} == {"binding-stale"}
    assert found.fix is None
    assert found.failed
    fixed = run_lint(
        LintRequest(
            paths=[str(target)],
            checkpoints=[SNAPSHOT],
            fix=True,
            write_roots=[str(tmp_path)],
            disabled_rules=[OUTDATED_RULE],
        )
    )
    assert fixed.fix is not None
    assert fixed.fix.changed_files == [str(target)]
    assert fixed.findings == []  # linted again after the fix: nothing is left
    assert fixed.summary["fixed"] == len(found.findings)
    assert fixed.summary["changedFiles"] == [str(target)]
    assert fixed.failed  # a file changed: exit 1, so a pre-commit hook stops the commit
    assert target.read_text() == (FIXTURES / "clean.yaml").read_text()
    again = run_lint(
        LintRequest(
            paths=[str(target)],
            checkpoints=[SNAPSHOT],
            fix=True,
            write_roots=[str(tmp_path)],
            disabled_rules=[OUTDATED_RULE],
        )
    )
    assert again.fix is None
    assert not again.failed


def _fix(paths: list[str], root: Path) -> LintRequest:
    return LintRequest(
        paths=paths,
        checkpoints=[SNAPSHOT],
        fix=True,
        write_roots=[str(root)],
        disabled_rules=[OUTDATED_RULE],
    )


def test_after_a_fix_only_the_files_it_wrote_are_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from renderer.source.reader import load_bytes

    stale = tmp_path / "a-stale.yaml"
    stale.write_text((FIXTURES / "binding-stale.yaml").read_text())
    unfixable = tmp_path / "b-unverifiable.yaml"
    unfixable.write_text((FIXTURES / "checkpoint-unverifiable.yaml").read_text())
    parsed: list[str] = []

    def counting(data: bytes, name: str, **options: Any) -> list[SourceObject]:
        parsed.append(Path(name).name)
        return load_bytes(data, name, **options)

    monkeypatch.setattr("renderer.source.files.load_bytes", counting)
    fixed = run_lint(_fix([str(tmp_path)], tmp_path))
    # the first read parses both (and the snapshot, read once); linting again after the fix
    # reuses the objects the fix read back from the bytes it wrote, and those of the file
    # whose bytes did not change
    assert parsed == ["a-stale.yaml", "b-unverifiable.yaml", Path(SNAPSHOT).name]
    assert fixed.fix is not None
    assert fixed.fix.changed_files == [str(stale)]
    monkeypatch.undo()
    fresh = run_lint(
        LintRequest(paths=[str(tmp_path)], checkpoints=[SNAPSHOT], disabled_rules=[OUTDATED_RULE])
    )
    assert fresh.findings  # what --fix cannot fix is left
    assert fixed.findings == fresh.findings
    assert stale.read_text() == (FIXTURES / "clean.yaml").read_text()


def test_after_a_fix_lint_reports_the_bytes_on_disk_not_those_it_meant_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from renderer.atomic import write_atomic

    target = tmp_path / "manifest.yaml"
    target.write_text((FIXTURES / "binding-stale.yaml").read_text())
    edited = (FIXTURES / "binding-disagree.yaml").read_bytes()

    def lossy(path: str, data: bytes, **options: Any) -> None:
        write_atomic(path, edited, **options)  # what lands on disk is not what was verified

    monkeypatch.setattr("renderer.fix.write_atomic", lossy)
    fixed = run_lint(_fix([str(target)], tmp_path))
    assert fixed.fix is not None
    assert fixed.fix.changed_files == [str(target)]
    monkeypatch.undo()
    fresh = run_lint(
        LintRequest(paths=[str(target)], checkpoints=[SNAPSHOT], disabled_rules=[OUTDATED_RULE])
    )
    assert "binding-disagree" in {f.rule for f in fresh.findings}
    assert fixed.findings == fresh.findings


def test_the_command_prints_what_run_lint_returns() -> None:
    paths = [str(FIXTURES / "binding-replaced.yaml")]
    outcome = run_lint(LintRequest(paths=paths, checkpoints=[SNAPSHOT]))
    out, err = io.StringIO(), io.StringIO()
    code = execute(LintArgs(paths=paths, checkpoints=[SNAPSHOT], format="json"), out, err)
    report = json.loads(out.getvalue())
    assert code == 1
    assert report["summary"] == outcome.summary
    assert report["findings"] == [f.to_json() for f in outcome.findings]


def test_warnings_fail_only_with_strict() -> None:
    paths = [str(FIXTURES / "checkpoint-unverifiable.yaml")]
    lenient = run_lint(LintRequest(paths=paths))
    assert {f.severity for f in lenient.findings} == {"warning"}
    assert not lenient.failed
    assert run_lint(LintRequest(paths=paths, strict=True)).failed


def test_fix_refuses_stdin_before_reading_anything() -> None:
    with pytest.raises(UsageError, match="--fix cannot rewrite stdin"):
        run_lint(LintRequest(paths=["-"], fix=True))
