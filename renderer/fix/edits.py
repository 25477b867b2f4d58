"""What `lint --fix` changes in a text: `Edit`s (replace a range of characters), applied
all at once against the original text, and the `FixError` that leaves a file alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from renderer.source.model import Mark


class FixError(Exception):
    """This file cannot be edited safely; the message says why (and `mark` where, if known)."""

    def __init__(self, message: str, mark: Mark | None = None) -> None:
        super().__init__(message)
        self.mark = mark


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in pairwise(ordered):
        if before.end > after.start:
            raise FixError("two fixes overlap")
    out = []
    position = 0
    for edit in ordered:
        out.append(text[position : edit.start])
        out.append(edit.text)
        position = edit.end
    out.append(text[position:])
    return "".join(out)
