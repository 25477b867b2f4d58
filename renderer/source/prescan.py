"""Cheap pre-scan for `kinds` filtering: skip documents whose kind is provably irrelevant.

Lint runs over GitOps repositories that are mostly other kinds, so documents that cannot
match are dropped before the YAML parser sees them. The text is split at `---` lines
(a line starting with `---` is always a document marker in YAML), and a document is
skipped only when all of this holds; anything else is parsed:

- it has exactly one line `kind: <Name>` at column 0, where Name is a plain identifier
  (no quotes, anchor, tag or flow), optionally followed by a comment;
- the next non-blank, non-comment line starts at column 0 (no multi-line value);
- no merge key `<<`, quoted `kind` key, explicit `?` key or flow mapping opener `{` at
  the start of a line could set `kind` another way;
- Name is neither in `kinds` nor `List`.

Texts with directives (`%` lines) are never split.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from itertools import pairwise

_DOC_START = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)
_KIND_LINE = re.compile(r"^kind:(.*)$", re.MULTILINE)
_PLAIN_KIND = re.compile(r"[ \t]+([A-Za-z][A-Za-z0-9]*)[ \t]*(?:#.*)?\r?\Z")
_RISKY = re.compile(r"<<|^[ \t]*[\"'{?]|[\"']kind[\"']", re.MULTILINE)
_NEXT_CONTENT = re.compile(r"^(?![ \t]*(?:#.*)?\r?$)(.)", re.MULTILINE)


@dataclass(frozen=True)
class Segment:
    """A slice of the file holding whole documents, with where it starts."""

    text: str
    line_offset: int  # 0-based line of the slice's first line
    char_offset: int
    doc_offset: int  # document index of the slice's first document


def _has_content(text: str) -> bool:
    return _NEXT_CONTENT.search(text) is not None


def _skippable(text: str, kinds: Collection[str]) -> bool:
    found = _KIND_LINE.findall(text)
    if len(found) != 1:
        return False
    match = _PLAIN_KIND.match(found[0])
    if match is None:
        return False
    kind = match.group(1)
    if kind in kinds or kind == "List" or _RISKY.search(text):
        return False
    kind_line = _KIND_LINE.search(text)
    assert kind_line is not None
    following = _NEXT_CONTENT.search(text, kind_line.end() + 1)
    return following is None or following.group(1) not in " \t"


def segments(text: str, kinds: Collection[str]) -> list[Segment] | None:
    """The slices to parse, or None when the whole text should be parsed in one go."""
    if "\n%" in text or text.startswith("%"):
        return None
    starts = [m.start() for m in _DOC_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(text)]
    result: list[Segment] = []
    doc_index = 0
    line = 0
    run: tuple[int, int, int] | None = None  # (char start, line, doc index) of a parse run
    for number, (start, end) in enumerate(pairwise(bounds)):
        piece = text[start:end]
        is_doc = piece.startswith("---") or (number == 0 and _has_content(piece))
        if is_doc and _skippable(piece, kinds):
            if run is not None:
                result.append(Segment(text[run[0] : start], run[1], run[0], run[2]))
                run = None
        elif run is None:
            run = (start, line, doc_index)
        if is_doc:
            doc_index += 1
        line += piece.count("\n")
    if run is not None:
        result.append(Segment(text[run[0] :], run[1], run[0], run[2]))
    return result
