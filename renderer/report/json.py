"""`{"version": 1, "findings": [...], "summary": {...}}` (fields: docs/lint.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.report import dump_json

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

VERSION = 1


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    document = {
        "version": VERSION,
        "findings": [f.to_json() for f in result.findings],
        "suppressed": [s.to_json() for s in result.suppressed],
        "summary": result.summary(),
    }
    return dump_json(document)
