"""The text as the YAML reader counts it: where lines start, the break that ends each,
and where a flow collection ends (for `lint --fix`'s edits)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from renderer.fix.edits import FixError
from renderer.source.text import BREAK_CHARS, LINE_BREAK

# Line breaks as the YAML reader counts them (its marks' lines), from the input layer.
_BREAK = re.compile(LINE_BREAK)
BLANK = " \t" + BREAK_CHARS


class Lines:
    """Where the lines of a text start, and the break that ends each, as the reader counts."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        # offset just after each break -> the break
        self.breaks = {m.end(): m.group() for m in _BREAK.finditer(text)}
        self.starts = [0, *self.breaks]

    def start_of(self, offset: int) -> int:
        """Offset of the start of the line holding `offset`."""
        return self.starts[bisect_right(self.starts, offset) - 1]

    def next_start(self, offset: int) -> int:
        """`offset` if a line starts there, else where the next one does (or the end)."""
        index = bisect_left(self.starts, offset)
        return self.starts[index] if index < len(self.starts) else self.length

    def ends_with_break(self) -> bool:
        return self.length in self.breaks

    def break_before(self, offset: int) -> str:
        """The break ending the line before the one holding `offset`: the one to write there
        (a file with mixed line breaks gets, at each place, those of its neighbours)."""
        start = self.start_of(offset)
        if start:
            return self.breaks[start]
        return next(iter(self.breaks.values()), "\n")


def _quoted_end(text: str, index: int) -> int:
    """Offset of the closing quote of the quoted scalar opening at `index`."""
    quote = text[index]
    index += 1
    while index < len(text):
        if quote == '"' and text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            if quote == "'" and text.startswith("''", index):
                index += 2  # an escaped single quote
                continue
            return index
        index += 1
    raise FixError("a quoted scalar does not end")


def flow_end(text: str, start: int) -> int:
    """Offset just past the flow collection opening at `start` (quoted scalars skipped)."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        elif char in "\"'" and text[index - 1] in "{[,:" + BLANK:
            index = _quoted_end(text, index)
        elif char == "#" and text[index - 1] in BLANK:
            newline = _BREAK.search(text, index)
            index = len(text) if newline is None else newline.start()
        index += 1
    raise FixError("a flow collection does not end")
