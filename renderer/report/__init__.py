"""Lint reports, one module per format, registered by name.

Each format module defines `render(result, *, color=False) -> str`, the full text for
stdout. `FORMATS` is also the list of `--format` choices: a new format is one module and
one line here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

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
