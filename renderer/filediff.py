"""Unified diffs of files the tool would write or remove (`render --diff`), as `diff -u`
and `git diff` print them, so `kubectl diff` and helm-diff users read them as they are used to.

Pure: the caller reads the old bytes. Stable: three lines of context, files in the order
given, a new file against `/dev/null` (and a removed one the other way round). Every line
of either side is escaped as a report line is (no raw ESC, line break or bidi override
from a file reaches a terminal), and a line without a final newline says so. Colour is
added by `colorize`, which the command calls only for a terminal.
"""

from __future__ import annotations

from typing import Final

from renderer.errors import one_line

DEV_NULL: Final = "/dev/null"
_NO_NEWLINE: Final = "\\ No newline at end of file\n"
_COLORS: Final = (
    ("+++ ", "\033[1m"),
    ("--- ", "\033[1m"),
    ("@@", "\033[36m"),
    ("+", "\033[32m"),
    ("-", "\033[31m"),
)
_RESET: Final = "\033[0m"


def _lines(data: bytes | None) -> list[str]:
    """`data` as diff lines: each escaped, ending in a newline, the last one marked when
    the file does not end in one (difflib then shows it as changed, as diff does)."""
    if not data:
        return []
    text = data.decode("utf-8", "replace")
    raw = text.split("\n")
    last_open = raw[-1] != ""
    if not last_open:
        raw.pop()
    lines = [one_line(line.removesuffix("\r")) + "\n" for line in raw]
    if last_open:
        lines[-1] += _NO_NEWLINE
    return lines


def unified(path: str, old: bytes | None, new: bytes | None) -> str:
    """The unified diff turning `old` into `new` at `path` (None: the file is absent);
    empty when they are equal."""
    import difflib  # noqa: PLC0415 - difflib only when a diff is printed, not for colouring one

    if old == new:
        return ""
    name = one_line(path)
    before = name if old is not None else DEV_NULL
    after = name if new is not None else DEV_NULL
    lines = difflib.unified_diff(_lines(old), _lines(new), fromfile=before, tofile=after, n=3)
    text = "".join(lines)
    if not text:  # same lines, different bytes (a CRLF file, say): say so, as diff does
        text = f"--- {before}\n+++ {after}\n(line endings or encoding differ)\n"
    return text


def colorize(diff: str) -> str:
    """`diff` with diff's colours: bold headers, cyan hunks, red removals, green additions."""
    out = []
    for line in diff.splitlines(keepends=True):
        color = next((c for prefix, c in _COLORS if line.startswith(prefix)), None)
        if color is None:
            out.append(line)
            continue
        body = line.removesuffix("\n")
        out.append(f"{color}{body}{_RESET}" + ("\n" if body != line else ""))
    return "".join(out)
