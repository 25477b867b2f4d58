"""GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=RULE::message`.

Paths are relative to the repository root (the runner attaches annotations by the path
from the checkout's root, wherever the job's working directory is). A multi-line message
(render-drift's diff) reaches the runner as real lines: its breaks are sent as `%0A`,
which the runner decodes inside the message, so no text can start a workflow command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.errors import one_line
from renderer.report import message_lines, repository_path

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult


def _data(text: str) -> str:
    # the escapes the Actions runner decodes in a command's message
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    lines = []
    for f in result.findings:
        # names and keys are escaped first (line breaks, controls, bidi overrides), so
        # every finding stays one command on one line
        file = _property(one_line(repository_path(f.file, root)))
        props = f"file={file},line={f.line},col={f.column},title={_property(f.rule)}"
        lines.append(f"::{f.severity} {props}::{_data(message_lines(f'[{f.rule}] {f.message}'))}")
    for s in result.suppressed:
        if not s.refused:  # accepted and harmless: counted in the summary only
            continue
        f = s.finding
        file = _property(one_line(repository_path(f.file, root)))
        title = _property(f"{f.rule} (suppressed)")
        props = f"file={file},line={f.line},col={f.column},title={title}"
        text = (
            f"[{f.rule}] suppressed ({s.justification}), but the cluster still refuses this:"
            f" {f.message}"
        )
        lines.append(f"::warning {props}::{_data(message_lines(text))}")
    if result.suppressed:  # the count, as the text summary gives it
        refused = sum(1 for s in result.suppressed if s.refused)
        count = f"{len(result.suppressed)} finding{'s' if len(result.suppressed) != 1 else ''}"
        also = f" ({refused} the cluster still refuses)" if refused else ""
        lines.append(f"::notice title=dynamo-render lint::{count} suppressed{also}")
    return "".join(line + "\n" for line in lines)
