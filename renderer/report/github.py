"""GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=RULE::message`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult


def _data(text: str) -> str:
    # the escapes the Actions runner decodes in a command's message
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult, *, color: bool = False) -> str:
    lines = []
    for f in result.findings:
        props = f"file={_property(f.file)},line={f.line},col={f.column},title={_property(f.rule)}"
        lines.append(f"::{f.severity} {props}::{_data(f'[{f.rule}] {f.message}')}")
    return "".join(line + "\n" for line in lines)
