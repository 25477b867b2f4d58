"""`path:line:column: severity [rule] message`, one finding a line, plus a summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.errors import one_line, report_text

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

_COLORS = {"error": "\033[31m", "warning": "\033[33m"}
_DIM = "\033[2m"
_RESET = "\033[0m"


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    lines = []
    for f in result.findings:
        severity = f"{_COLORS[f.severity]}{f.severity}{_RESET}" if color else f.severity
        rule = f"{_DIM}[{f.rule}]{_RESET}" if color else f"[{f.rule}]"
        # names and keys from the input: no raw ESC, BEL, bidi override or line break
        file, message = one_line(f.file), report_text(f.message)
        lines.append(f"{file}:{f.line}:{f.column}: {severity} {rule} {message}")
    lines.extend(refused_lines(result))
    return "".join(line + "\n" for line in lines)


def refused_lines(result: LintResult) -> list[str]:
    """Suppressed findings the cluster still refuses: shown on every run, never silent."""
    return [
        f"{one_line(s.finding.file)}:{s.finding.line}:{s.finding.column}: suppressed"
        f" {s.finding.severity} [{s.finding.rule}] {report_text(s.finding.message)}"
        f" (suppressed: {report_text(s.justification)}; the cluster still refuses this)"
        for s in result.suppressed
        if s.refused
    ]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_line(result: LintResult) -> str:
    """One line for stderr: counts, and what --fix did."""
    parts = [
        _plural(result.errors, "error"),
        _plural(result.warnings, "warning"),
        f"in {_plural(len(result.files), 'file')} ({_plural(result.objects, 'object')})",
    ]
    text = ", ".join(parts[:2]) + " " + parts[2]
    fixable = sum(1 for f in result.findings if f.fixable)
    if result.changed_files:
        text += f"; fixed {_plural(result.fixed, 'finding')} in"
        text += f" {_plural(len(result.changed_files), 'file')}"
    elif fixable:
        text += f"; {fixable} fixable with --fix"
    if result.suppressed:
        refused = sum(1 for s in result.suppressed if s.refused)
        text += f"; {len(result.suppressed)} suppressed"
        if refused:
            text += f" ({refused} the cluster refuses)"
    if result.skipped:
        text += f"; skipped {_plural(len(result.skipped), 'file')} (not Kubernetes objects)"
    return f"dynamo-render lint: {text}"
