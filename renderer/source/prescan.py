"""Cheap pre-scan for `kinds` filtering: skip documents whose kind is provably irrelevant.

Lint runs over GitOps repositories that are mostly other kinds, so documents that cannot
match are dropped before the YAML parser sees them. The text is split at `---` lines
(a line starting with `---` is always a document marker in YAML), and a document is
skipped only when all of this holds; anything else is parsed:

- nothing follows the `---` marker on its line but a comment, and the first content line
  starts at column 0 with a plain key (a block mapping at column 0);
- it has exactly one line `kind: <Name>` at column 0, where Name is a plain identifier
  (no quotes, anchor, tag or flow), optionally followed by a comment;
- the next non-blank, non-comment line starts at column 0 (no multi-line value);
- no line starts with a quote, `?`, `<<`, `{` or `[` (a quoted or explicit key, a merge
  key or a flow collection could set `kind` another way). Indented lines cannot set a
  top-level key of a mapping at column 0;
- Name is neither in `kinds` nor `List`.

Texts with directives (`%` lines) are never split.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from itertools import pairwise

from renderer.source.text import count_breaks

_PLAIN_KIND = re.compile(r"[ \t]+([A-Za-z][A-Za-z0-9]*)[ \t]*(?:#.*)?\r?\Z")
_NEXT_CONTENT = re.compile(r"^(?![ \t]*(?:#.*)?\r?$)(.)", re.MULTILINE)
# Column-0 starts that could set `kind` without a `kind:` line: quoted or explicit keys,
# merge keys, flow mappings. (Plain str searches: much faster than a MULTILINE regex.)
_RISKY_LINE_STARTS = ('\n"', "\n'", "\n?", "\n<<", "\n{", "\n[")
_MARKER_ENDS = frozenset(" \t\r\n")


@dataclass(frozen=True)
class Segment:
    """A slice of the file holding whole documents, with where it starts."""

    text: str
    line_offset: int  # 0-based line of the slice's first line
    char_offset: int
    doc_offset: int  # document index of the slice's first document


def _has_content(text: str) -> bool:
    return _NEXT_CONTENT.search(text) is not None


def _document_starts(text: str) -> list[int]:
    """Offsets of every line that starts with a `---` marker."""
    starts = []
    if text.startswith("---") and (len(text) == 3 or text[3] in _MARKER_ENDS):
        starts.append(0)
    position = text.find("\n---")
    while position >= 0:
        after = position + 4
        if after == len(text) or text[after] in _MARKER_ENDS:
            starts.append(position + 1)
        position = text.find("\n---", after)
    return starts


def _skippable(text: str, kinds: Collection[str]) -> bool:
    """True only when the document's kind is certainly a plain name outside `kinds`."""
    body_start = 0
    if text.startswith("---"):
        # the marker line must carry nothing but a comment (no node on the `---` line)
        end = text.find("\n")
        rest = text[3:end] if end >= 0 else text[3:]
        if rest.strip() and not rest.strip().startswith("#"):
            return False
        body_start = end + 1 if end >= 0 else len(text)
    first = _NEXT_CONTENT.search(text, body_start)
    if first is None or not (first.group(1).isalnum() or first.group(1) in "_/."):
        return False  # empty, indented, or not a plain block-mapping key at column 0
    first_line_kind = text.startswith("kind:")
    if text.count("\nkind:") + first_line_kind != 1:
        return False
    line_start = 0 if first_line_kind else text.find("\nkind:") + 1
    line_end = text.find("\n", line_start)
    if line_end < 0:
        line_end = len(text)
    match = _PLAIN_KIND.match(text, line_start + 5, line_end)
    if match is None:
        return False
    kind = match.group(1)
    if kind in kinds or kind == "List":
        return False
    if any(risky in text for risky in _RISKY_LINE_STARTS):
        return False
    following = _NEXT_CONTENT.search(text, line_end + 1) if line_end < len(text) else None
    return following is None or following.group(1) not in " \t"


def segments(text: str, kinds: Collection[str]) -> list[Segment] | None:
    """The slices to parse, or None when the whole text should be parsed in one go."""
    if "\n%" in text or text.startswith("%"):
        return None
    starts = _document_starts(text)
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
        line += count_breaks(piece)
    if run is not None:
        result.append(Segment(text[run[0] :], run[1], run[0], run[2]))
    return result
