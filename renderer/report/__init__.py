"""Lint reports, one module per format, registered by name.

Each format module defines `render(result, *, color=False) -> str`, the full text for
stdout. `FORMATS` is also the list of `--format` choices: a new format is one module and
one line here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

FORMATS: dict[str, str] = {
    "text": "renderer.report.text",
    "json": "renderer.report.json",
    "sarif": "renderer.report.sarif",
    "github": "renderer.report.github",
}


class Renderer(Protocol):
    def __call__(self, result: LintResult, *, color: bool = False) -> str: ...


def get_format(name: str) -> Renderer:
    """The `render` function of format `name` (KeyError when unknown)."""
    module = importlib.import_module(FORMATS[name])
    render: Renderer = module.render
    return render


def dump_json(document: Any) -> str:
    """`document` as indented JSON, non-ASCII text as itself. A lone surrogate (a file name
    that is not UTF-8, held with surrogate escapes) is written as its `\\udcXX` escape: the
    text stays valid UTF-8, and a reader that undoes the escapes gets the name's bytes back
    (Python: `os.fsencode(json.loads(text)[...])`). The controls JSON leaves raw (DEL, C1
    controls, NEL), line and paragraph separators and bidi overrides are escaped the same
    way: the decoded values are unchanged, and no name from the input can drive a terminal
    or reorder what a reader sees."""
    import json
    import re

    text = json.dumps(document, indent=2, ensure_ascii=False)
    unsafe = "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
    return re.sub(unsafe, lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
