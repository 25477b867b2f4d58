"""Lint reports, one module per format, registered by name.

Each format module defines `render(result, *, color=False, root=None) -> str`, the full
text for stdout. `FORMATS` is also the list of `--format` choices: a new format is one
module and one line here.

`root` is the repository root the CI formats (SARIF, GitHub, GitLab, JUnit) write paths
relative to, whatever the working directory: a job that runs in a subfolder still has its
annotations attached to the right file. The terminal formats keep paths as they were typed.
"""

from __future__ import annotations

import importlib
import json as jsonlib  # `json` would be this package's json.py once that format loads
import os
import re
from typing import TYPE_CHECKING, Any, Protocol

from renderer.errors import report_text

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

FORMATS: dict[str, str] = {
    "text": "renderer.report.text",
    "json": "renderer.report.json",
    "sarif": "renderer.report.sarif",
    "github": "renderer.report.github",
    "gitlab": "renderer.report.gitlab",
    "junit": "renderer.report.junit",
}


class Renderer(Protocol):
    def __call__(
        self, result: LintResult, *, color: bool = False, root: str | None = None
    ) -> str: ...


def get_format(name: str) -> Renderer:
    """The `render` function of format `name` (KeyError when unknown)."""
    module = importlib.import_module(FORMATS[name])
    render: Renderer = module.render
    return render


def inside_root(file: str, root: str | None) -> str | None:
    """`file` (as a finding names it: relative to the working directory, or absolute)
    relative to `root`, with forward slashes, when it lies inside it; else None (stdin's
    `<stdin>`, a path outside the root, no root)."""
    if root is None or (file.startswith("<") and file.endswith(">")):
        return None
    path = os.path.normpath(os.path.abspath(file))  # noqa: PTH100 - no symlink resolved
    if path != root and os.path.commonpath([path, root]) != root:
        return None
    return os.path.relpath(path, root).replace(os.sep, "/")


def repository_path(file: str, root: str | None) -> str:
    """`file` relative to `root` when inside it (`inside_root`), else as it was given."""
    relative = inside_root(file, root)
    return file if relative is None else relative


def message_lines(text: str) -> str:
    """A multi-line message (render-drift's diff) as real lines, each escaped like a
    one-line message: no control character or bidi override from the input survives, and
    the line breaks are the tool's own."""
    return "\n".join(report_text(line) for line in text.split("\n"))


def dump_json(document: Any) -> str:
    """`document` as indented JSON, non-ASCII text as itself. A lone surrogate (a file name
    that is not UTF-8, held with surrogate escapes) is written as its `\\udcXX` escape: the
    text stays valid UTF-8, and a reader that undoes the escapes gets the name's bytes back
    (Python: `os.fsencode(json.loads(text)[...])`). The controls JSON leaves raw (DEL, C1
    controls, NEL), line and paragraph separators and bidi overrides are escaped the same
    way: the decoded values are unchanged, and no name from the input can drive a terminal
    or reorder what a reader sees."""
    text = jsonlib.dumps(document, indent=2, ensure_ascii=False)
    unsafe = "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
    return re.sub(unsafe, lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
