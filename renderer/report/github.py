"""GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=RULE::message`.

Paths are relative to the repository root (the runner attaches annotations by the path
from the checkout's root, wherever the job's working directory is). A multi-line message
(render-drift's diff) reaches the runner as real lines: its breaks are sent as `%0A`,
which the runner decodes inside the message, so no text can start a workflow command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult


def _data(text: str) -> str:
    # the escapes the Actions runner decodes in a command's message
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    from renderer.errors import one_line
    from renderer.report import message_lines, repository_path

    lines = []
    for f in result.findings:
        # names and keys are escaped first (line breaks, controls, bidi overrides), so
        # every finding stays one command on one line
        file = _property(one_line(repository_path(f.file, root)))
        props = f"file={file},line={f.line},col={f.column},title={_property(f.rule)}"
        lines.append(f"::{f.severity} {props}::{_data(message_lines(f'[{f.rule}] {f.message}'))}")
    return "".join(line + "\n" for line in lines)
