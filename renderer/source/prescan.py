"""Cheap pre-scan for `kinds` filtering: skip documents whose kind is provably irrelevant.

Lint runs over GitOps repositories that are mostly other kinds, so documents that cannot
match are dropped before the YAML parser sees them. The pre-scan must be *sound*: it
skips a document only when a full parse would read it as a mapping whose `kind` is a
plain name outside `kinds` (or would refuse it). Whenever the text is not unambiguously
that, the document is parsed. The argument, rule by rule:

- The text is split at `---` lines. A `---` at column 0 followed by a blank always starts
  a document (inside a quoted scalar or flow collection YAML refuses it; block and plain
  scalars end there). Texts with directives (`%` lines) are never split. The scan reads
  lines as the parser does: a lone CR, NEL, U+2028 and U+2029 break lines too.
- The `---` line carries nothing but a comment, and the first content line is a plain
  key at column 0: the document is a block mapping at column 0.
- Every line starting at column 0 is blank, a comment, a block sequence entry (`- `), or
  a plain key from a small alphabet followed by `:` and a blank (so no quoted, explicit,
  tagged, anchored, aliased or merge key, no `kind :`, no `...`, BOM or tab).
- A quoted scalar or flow collection is the only construct whose continuation lines may
  start at column 0 (block scalars and plain scalars end at a line less indented than
  their parent, which every column-0 line is). Such a construct can only open on a line
  holding `"`, `'`, `[` or `{`; every such line must match the safe-line pattern
  (`_patterns`), a grammar of one block-context line in which each quoted scalar and flow
  collection closes on the line (its quantifiers are possessive, so it tokenizes as the
  parser does, and it gives up on anything it does not model: tags, anchors, aliases,
  explicit keys, comments inside a flow collection, quotes inside plain scalars in flow
  context). A line that is really inside a block scalar or a plain scalar's continuation
  is checked too; that can only make the scan parse more. So every column-0 line is a top-
  level key, seen as it is.
- Exactly one column-0 line is `kind: <Name>`, Name a plain identifier optionally
  followed by a comment, and the next content line starts at column 0 (no multi-line
  value). Name is neither in `kinds` nor `List`.
- No column-0 line is `items:`: kubectl reads any object with an `items` key as a list
  and applies its items, whatever the object's kind.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache
from itertools import pairwise
from typing import NamedTuple

from renderer.source.text import count_breaks


@cache
def _plain_kind() -> re.Pattern[str]:
    return re.compile(r"[ \t]+([A-Za-z][A-Za-z0-9]*)[ \t]*(?:#.*)?\r?\Z")


@cache
def _next_content() -> re.Pattern[str]:
    return re.compile(r"^(?![ \t]*(?:#.*)?\r?$)(.)", re.MULTILINE)


_MARKER_ENDS = frozenset(" \t\r\n")
_OPENERS = ('"', "'", "[", "{")
# A column-0 line (after the first) that is not blank, a comment, a `- ` entry or a plain
# `key:` with a blank after the colon.


@cache
def _odd_column0() -> re.Pattern[str]:
    return re.compile(
        r"\n(?![ \n#]|-(?:[ \t]|\r?$)|[A-Za-z0-9_][A-Za-z0-9_./-]*:(?:[ \t]|\r?$)|\r?$)", re.M
    )


@cache
def _key_line() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*:(?:[ \t]|\r?$)", re.MULTILINE)


# Pieces of the one-line grammar (possessive, so each tokenizes as the parser does).
_DQ = r'"(?:[^"\\\r\n]|\\[^\r\n])*+"'
_SQ = r"'(?:[^'\r\n]|'')*+'"
_QUOTED = f"(?:{_DQ}|{_SQ})"
# plain scalar, block context: no `: `, no ` #`; quotes and brackets inside are text
_FIRST_B = r"(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`]|[-?:](?=\S))"
_PLAIN_B = rf"(?>{_FIRST_B}(?:[^\s:#]|:(?=\S)|(?<=\S)#|[ \t]+(?=[^\s#]))*+)"
# plain scalar, flow context: no flow indicator, and no quote at all (conservative)
_REST_F = r"[^\s:,\[\]{}#'\"]"
_FIRST_F = r"(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`]|[-?:](?=[^\s,\[\]{}'\"]))"
_PLAIN_F = rf"(?>{_FIRST_F}(?:{_REST_F}|:(?=[^\s,\[\]{{}}'\"])|(?<=\S)#|[ \t]+(?={_REST_F}))*+)"
_HEADER = r"[|>](?:[-+]?[1-9]?|[1-9][-+])"  # a block scalar header: its text starts below
# an anchor or tag (its name holds no quote or flow indicator, so it cannot open either),
# and an alias: none of them changes what a quote or bracket after it does
_PROP = r"[&!][^\s,\[\]{}\"']*+[ \t]++"
_PROPS = rf"(?:{_PROP})*+"
_ALIAS = r"\*[^\s,\[\]{}\"']++"
_PREFIX = (  # indentation, `- ` entries, and a `key:` with its blank
    rf" *+(?:-(?=[ \t]|\r?$)[ \t]*+)*+{_PROPS}"
    rf"(?:(?:{_QUOTED}|{_PLAIN_B})[ \t]*+:(?=[ \t]|\r?$)[ \t]*+{_PROPS})?"
)
_TRAIL = r"[ \t]*+(?:(?<![^ \t\n])#.*)?\r?"
# The common flow collection, fast: two levels at most, no quote and no `#` (so nothing in
# it can open or hide a bracket), brackets matched by type.
_FLAT = r"[^\[\]{}\"'#\r\n]*+"
_INNER = rf"(?:\[{_FLAT}\]|\{{{_FLAT}\}})"
_SIMPLE_FLOW = rf"(?:\[(?:{_FLAT}{_INNER})*+{_FLAT}\]|\{{(?:{_FLAT}{_INNER})*+{_FLAT}\}})"
# The safe line is `_PREFIX` + one node + `_TRAIL`; other flow collections: `_flow_end`.


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(safe line, flow start, trail, flow token), compiled on first use: a lint of
    workload files alone never needs them, and compiling costs milliseconds of start-up."""
    return (
        re.compile(
            rf"{_PREFIX}(?:{_QUOTED}|{_SIMPLE_FLOW}|{_PLAIN_B}|{_ALIAS}|{_HEADER})?{_TRAIL}"
        ),
        re.compile(rf"{_PREFIX}(?=[\[{{])"),
        re.compile(_TRAIL),
        re.compile(
            rf"[ \t]*+(?:(?P<open>[\[{{])|(?P<close>[\]}}])|(?P<comma>,)|(?P<colon>:)"
            rf"|(?P<quoted>{_QUOTED})|(?P<plain>{_PLAIN_F}|{_ALIAS})|(?P<props>{_PROP}))"
        ),
    )


def _flow_end(text: str, pos: int, end: int) -> int | None:
    """End of the flow collection at `pos` if it closes before `end`, else None.

    A quoted scalar is accepted only where a node starts (after `[`, `{`, `,` or `:`),
    which is where the parser opens one too; anything unexpected gives None.
    """
    flow_token = _patterns()[3]
    closers: list[str] = []
    node_may_start = True
    previous = ""
    while pos < end:
        token = flow_token.match(text, pos, end)
        if token is None:
            return None
        pos = token.end()
        kind = token.lastgroup
        if kind == "open":
            closers.append("]" if token.group(kind) == "[" else "}")
            node_may_start = True
        elif kind == "close":
            if closers.pop() != token.group(kind):
                return None
            if not closers:
                return pos
            node_may_start = False
        elif kind == "comma":
            node_may_start = True
        elif kind == "colon":
            # a value indicator: followed by a blank or flow indicator, or JSON-like
            if previous not in ("quoted", "close") and pos < end and text[pos] not in " \t,]}":
                return None
            node_may_start = True
        elif kind == "props":
            if not node_may_start:
                return None
        elif not node_may_start:
            return None  # a scalar right after another one: not modelled
        else:
            node_may_start = False
        previous = kind or ""
    return None


def _line_closes(text: str, start: int, end: int) -> bool:
    """The line text[start:end] closes every quoted scalar and flow collection it opens."""
    safe_line, flow_start, trail, _ = _patterns()
    if safe_line.fullmatch(text, start, end) is not None:
        return True
    prefix = flow_start.match(text, start, end)
    if prefix is None:
        return False
    flow_end = _flow_end(text, prefix.end(), end)
    return flow_end is not None and trail.fullmatch(text, flow_end, end) is not None


# Verdicts on short lines seen before: GitOps files repeat many (`value: "true"`).
_VERDICTS: dict[str, bool] = {}
_MAX_VERDICTS = 4096
_MAX_REMEMBERED_LINE = 200


def _closes(text: str, start: int, end: int) -> bool:
    if end - start > _MAX_REMEMBERED_LINE:
        return _line_closes(text, start, end)
    line = text[start:end]
    verdict = _VERDICTS.get(line)
    if verdict is None:
        verdict = _line_closes(line, 0, len(line))
        if len(_VERDICTS) < _MAX_VERDICTS:
            _VERDICTS[line] = verdict
    return verdict


class Segment(NamedTuple):
    """A slice of the file holding whole documents, with where it starts."""

    text: str
    line_offset: int  # 0-based line of the slice's first line
    char_offset: int
    doc_offset: int  # document index of the slice's first document


def _has_content(text: str) -> bool:
    return _next_content().search(text) is not None


def document_starts(text: str, limit: int | None = None) -> list[int]:
    """Offsets of every line that starts with a `---` marker (the first `limit` of them)."""
    starts = []
    if text.startswith("---") and (len(text) == 3 or text[3] in _MARKER_ENDS):
        starts.append(0)
    position = text.find("\n---")
    while position >= 0 and (limit is None or len(starts) < limit):
        after = position + 4
        if after == len(text) or text[after] in _MARKER_ENDS:
            starts.append(position + 1)
        position = text.find("\n---", after)
    return starts


def _lines_close(text: str, start: int) -> bool:
    """Every line from `start` holding a quote or bracket closes what it opens."""
    checked: set[int] = set()
    for opener in _OPENERS:  # str.find per character: much faster than a regex class
        found = text.find(opener, start)
        while found >= 0:
            line_start = text.rfind("\n", 0, found) + 1
            line_end = text.find("\n", found)
            if line_end < 0:
                line_end = len(text)
            if line_start not in checked:
                if not _closes(text, line_start, line_end):
                    return False
                checked.add(line_start)
            found = text.find(opener, line_end)
    return True


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
    first = _next_content().search(text, body_start)
    if first is None or _key_line().match(text, first.start()) is None:
        return False  # empty, or not a block mapping at column 0
    first_line_kind = text.startswith("kind:", body_start)
    if text.count("\nkind:", body_start) + first_line_kind != 1:
        return False
    line_start = body_start if first_line_kind else text.find("\nkind:", body_start) + 1
    line_end = text.find("\n", line_start)
    if line_end < 0:
        line_end = len(text)
    match = _plain_kind().match(text, line_start + 5, line_end)
    if match is None:
        return False
    kind = match.group(1)
    if kind in kinds or kind == "List":
        return False
    # kubectl applies the items of any object with an `items` key, whatever its kind
    if text.startswith("items:", body_start) or "\nitems:" in text[body_start:]:
        return False
    following = _next_content().search(text, line_end + 1) if line_end < len(text) else None
    if following is not None and following.group(1) in " \t":
        return False
    # (the first content line was checked above; every later line follows a line feed)
    if _odd_column0().search(text, first.start()) is not None:
        return False
    return _lines_close(text, body_start)


def _lf_only(text: str) -> str:
    """`text` with every line break the parser knows but LF and CR LF (a lone CR, NEL,
    U+2028, U+2029) made an LF: the same length, so offsets stay, and the same lines as
    the parser sees them, for a scan that splits lines at LF."""
    rare = "\x85" in text or "\u2028" in text or "\u2029" in text
    if not rare and ("\r" not in text or text.count("\r") == text.count("\r\n")):
        return text
    return re.sub("\r(?!\n)|[\x85\u2028\u2029]", "\n", text)


def segments(text: str, kinds: Collection[str]) -> list[Segment] | None:
    """The slices to parse, or None when the whole text should be parsed in one go."""
    scan = _lf_only(text)  # decisions on this; the segments are slices of `text`
    if "\n%" in scan or scan.startswith("%"):
        return None
    starts = document_starts(scan)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(text)]
    result: list[Segment] = []
    doc_index = 0
    line = 0
    run: tuple[int, int, int] | None = None  # (char start, line, doc index) of a parse run
    for number, (start, end) in enumerate(pairwise(bounds)):
        piece = scan[start:end]
        is_doc = piece.startswith("---") or (number == 0 and _has_content(piece))
        if is_doc and _skippable(piece, kinds):
            if run is not None:
                result.append(Segment(text[run[0] : start], run[1], run[0], run[2]))
                run = None
        elif run is None:
            run = (start, line, doc_index)
        if is_doc:
            doc_index += 1
        line += count_breaks(text[start:end])
    if run is not None:
        result.append(Segment(text[run[0] :], run[1], run[0], run[2]))
    return result
