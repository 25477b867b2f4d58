"""Where kubectl splits a YAML stream into documents, and when one parse can stand for it.

`kubectl apply -f` (k8s.io/apimachinery's YAMLReader) reads a YAML file line by line,
lines ending at LF, and cuts it at every line that starts with `---`: the rest of such a
line must be white space or a comment (anything else, `--- !!map`, `----`, is refused:
"invalid Yaml document separator"), and the line itself is dropped. Each piece is then
decoded alone, by go-yaml's Unmarshal, which reads its first document only (text after a
`...` line is never parsed) and sees a final line break kubectl adds when the file has
none. So a `%TAG` or `%YAML` directive never reaches the document after its `---` (the
directive's piece has no document: kubectl refuses it), and a lone CR is no line end for
the split (a `---` after one does not start an object kubectl sends).

Parsing the whole stream at once (what the pre-scan and one libyaml parser do, quickly)
gives the same documents exactly when nothing of the above can differ: no line starting
with `...` or `%`, no line break other than LF and CR LF, no byte order mark inside, and
every separator line a YAML document marker too (`---`, then nothing or a blank). Any
other stream is read piece by piece (`chunks`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from renderer.errors import InputError
from renderer.source.jsonread import GO_SPACE
from renderer.source.text import position

__all__ = ["Chunk", "chunks", "separators", "whole_parse_agrees"]

_GO_SPACE_CHARS = "".join(sorted(GO_SPACE))


class Chunk(NamedTuple):
    """A piece of the stream kubectl decodes alone: text[start:end]."""

    start: int
    end: int


@cache
def _marker_line() -> re.Pattern[str]:
    # a separator line that is a YAML document marker as well, with at most a comment
    return re.compile(r"---(?:[ \t]++(?:#[^\n]*+)?)?\r?\Z")


def separators(text: str, name: str) -> list[tuple[int, int]]:
    """(start, end) of every separator line (end past its LF, if any). Raises InputError,
    as kubectl does, at a line that starts with `---` and holds more than a comment."""
    found: list[tuple[int, int]] = []
    start = 0 if text.startswith("---") else text.find("\n---") + 1
    while start > 0 or (start == 0 and text.startswith("---")):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        rest = text[start + 3 : end].strip(_GO_SPACE_CHARS)
        if rest and rest[0] != "#":
            line, column = position(text, start + 3)
            shown = rest if len(rest) <= 40 else rest[:40] + "..."
            raise InputError(
                f"invalid YAML document separator: {shown!r} (kubectl accepts only a comment"
                " after ---)",
                name,
                line,
                column,
            )
        found.append((start, end))
        following = text.find("\n---", end - 1)
        start = following + 1 if following >= 0 else -1
    return found


def whole_parse_agrees(text: str, lines: list[tuple[int, int]]) -> bool:
    """True when one YAML parse of `text` yields kubectl's documents (see the module
    docstring); False means: read it by `chunks`."""
    if text.startswith(("...", "%")) or "\n..." in text or "\n%" in text:
        return False
    if "\x85" in text or "\u2028" in text or "\u2029" in text or "\ufeff" in text:
        return False
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return False
    marker = _marker_line()
    return all(marker.match(text[start:end].rstrip("\n")) for start, end in lines)


def chunks(text: str, lines: list[tuple[int, int]]) -> list[Chunk]:
    """The pieces between separator lines (empty ones included, as places)."""
    result = []
    previous = 0
    for start, end in lines:
        result.append(Chunk(previous, start))
        previous = end
    result.append(Chunk(previous, len(text)))
    return result


def as_kubectl_feeds(piece: str) -> tuple[str, bool]:
    """The text go-yaml decodes for a piece: each line's CR LF made LF (kubectl's line
    reader) when that matters (a lone CR in it), and a final LF. Returns (text, whether
    characters moved, so that offsets into the piece no longer hold)."""
    moved = False
    if "\r\n" in piece and piece.count("\r") != piece.count("\r\n"):
        piece = piece.replace("\r\n", "\n")
        moved = True
    if not piece.endswith("\n"):
        piece += "\n"
    return piece, moved
