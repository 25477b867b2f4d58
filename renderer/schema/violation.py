"""One schema violation: where it is (file, line, column, JSON path) and what is wrong."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from renderer.source.model import Path

# Keys that can follow a dot in a JSONPath; anything else (dots, slashes) goes in brackets.


@cache
def _plain_key() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def json_path(path: Path) -> str:
    """`$.spec.cliques[0].annotations['nvidia.com/x']` (RFC 9535 style) for a value path."""
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _plain_key().match(step):
            parts.append(f".{step}")
        else:
            escaped = step.replace("\\", "\\\\").replace("'", "\\'")
            parts.append(f"['{escaped}']")
    return "".join(parts)


class Violation(NamedTuple):
    """A value that breaks a schema rule; `sort_key` orders a report by position."""

    file: str
    line: int
    column: int
    path: Path
    message: str
    schema: str = ""  # which schema said so: a bundled file name or "CRD <name>"

    @property
    def json_path(self) -> str:
        return json_path(self.path)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        # Paths mix str and int steps, so compare their text, not the tuples.
        return (self.file, self.line, self.column, self.json_path, self.message)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.json_path}: {self.message}"
