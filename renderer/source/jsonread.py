"""A JSON stream read as `kubectl apply -f` reads one: Go's encoding/json, not YAML.

kubectl decides per file (k8s.io/apimachinery's YAMLOrJSONDecoder): when the first
character that is not Unicode white space, within the first 4096 bytes, is `{`, the whole
file is a stream of JSON values (JSON Lines, objects written back to back), each decoded
by Go's encoding/json; otherwise it is YAML. JSON read as YAML differs: a surrogate-pair
escape, a lone surrogate escape (Go makes it U+FFFD), `\\/`, raw DEL or C1 characters in a
string, integers past int64 (Go makes them float64) and a second value in the file.

Values come from Python's json module (C speed, the same grammar as Go's), adjusted to
Go: integers outside int64 become floats, lone surrogates become U+FFFD, a number out of
float64 range, NaN or Infinity is an error. Positions come from a second pass over each
value's text (a tokenizer that only runs on text the first pass accepted). As for YAML, a
key written twice in one object is refused (Go keeps the last), and the node, document
and depth budgets apply to the file.
"""

from __future__ import annotations

import json
import re
from functools import cache
from math import isinf
from typing import Any

from renderer.errors import InputError
from renderer.source.build import Document
from renderer.source.model import Mark, Path
from renderer.source.text import position

__all__ = ["GO_SPACE", "is_json_stream", "json_documents"]

# unicode.IsSpace: what bytes.TrimLeftFunc skips before kubectl looks for `{`
GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_PEEK = 4096  # bytes kubectl looks at (GuessJSONStream's buffer)
_JSON_SPACE = " \t\n\r"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def is_json_stream(text: str) -> bool:
    """True when kubectl reads this (decoded) file as JSON: `{` is its first character
    after white space, and starts within the first 4096 bytes."""
    size = 0
    for char in text:
        if char not in GO_SPACE:
            return char == "{"
        size += len(char.encode("utf-8"))
        if size >= _PEEK:
            return False
    return False


@cache
def _token() -> re.Pattern[str]:
    # one token of text the json module accepted: a string, a bracket, `,`, `:`, or a bare
    # word (number or literal)
    return re.compile(
        r'[ \t\n\r]*+(?:(?P<s>"(?:[^"\\]|\\.)*+")|(?P<o>[\[{])|(?P<c>[\]}])|(?P<comma>,)'
        r'|(?P<colon>:)|(?P<w>[^ \t\n\r,:\[\]{}"]++))',
        re.DOTALL,
    )


@cache
def _number() -> re.Pattern[str]:
    return re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _go_int(text: str) -> int | float:
    """Go: ParseInt(text, 10, 64), else ParseFloat (sigs.k8s.io/json keeps int64s)."""
    try:
        value = int(text)
    except ValueError:  # more digits than Python converts: far beyond int64
        return float(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else float(text)


@cache
def _decoder() -> json.JSONDecoder:
    return json.JSONDecoder(parse_int=_go_int)


def _fix_surrogates(value: Any) -> Any:
    """Lone surrogates (Python keeps them) as U+FFFD (what Go decodes them to)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_fix_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_fix_surrogates(k): _fix_surrogates(v) for k, v in value.items()}
    return value


class _Budget:
    __slots__ = ("max_depth", "max_nodes", "nodes")

    def __init__(self, nodes: int, max_nodes: int, max_depth: int) -> None:
        self.nodes = nodes
        self.max_nodes = max_nodes
        self.max_depth = max_depth


class _Lines:
    """1-based positions of offsets visited in increasing order, in linear time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.simple = "\r" not in text or text.count("\r") == text.count("\r\n")
        self.line = 1
        self.line_start = 0
        self.last = 0

    def mark(self, offset: int) -> Mark:
        if not self.simple:
            return Mark(*position(self.text, offset))
        text = self.text
        breaks = text.count("\n", self.last, offset)
        if breaks:
            self.line += breaks
            self.line_start = text.rfind("\n", self.last, offset) + 1
        self.last = offset
        return Mark(self.line, offset - self.line_start + 1)


def _key_text(token: str, cache: dict[str, str]) -> str:
    key = cache.get(token)
    if key is None:
        key = json.loads(token)
        if _SURROGATE.search(key):
            key = _SURROGATE.sub("\ufffd", key)
        cache[token] = key
    return key


def _marks(  # noqa: PLR0917 - one tokenizer loop
    text: str,
    start: int,
    end: int,
    name: str,
    lines: _Lines,
    budget: _Budget,
    spans: bool,
) -> tuple[dict[Path, Mark], dict[Path, Mark], dict[Path, tuple[int, int, str]]]:
    """Key and value positions (and scalar spans) of the value text[start:end], which the
    json module accepted; raises InputError for what Go or this tool refuses in it."""
    token = _token().match
    key_marks: dict[Path, Mark] = {}
    value_marks: dict[Path, Mark] = {}
    value_spans: dict[Path, tuple[int, int, str]] = {}
    keys: dict[str, str] = {}
    # frames: [is_map, path, next index or pending key, keys seen (map) -> line]
    stack: list[list[Any]] = []
    expect_key = False
    pos = start
    while pos < end:
        found = token(text, pos)
        if found is None:  # cannot happen on accepted text; refuse rather than guess
            line, column = position(text, pos)
            raise InputError("invalid JSON", name, line, column)
        pos = found.end()
        group = found.lastgroup or ""
        at = found.start(group)
        if group in ("comma", "colon"):
            expect_key = group == "comma" and bool(stack) and stack[-1][0]
            continue
        if group == "c":
            stack.pop()
            expect_key = False
            continue
        mark = lines.mark(at)
        budget.nodes += 1
        if budget.nodes > budget.max_nodes:
            raise InputError(
                f"more than {budget.max_nodes} JSON values in this file (raise the limit with"
                " --max-nodes, or maxNodes in the config)",
                name,
                mark.line,
                mark.column,
            )
        if expect_key:  # an object key (always a string in accepted JSON)
            top = stack[-1]
            key = _key_text(found.group(group), keys)
            seen: dict[str, int] = top[3]
            if key in seen:
                raise InputError(
                    f'duplicate key "{key}" (first set on line {seen[key]}): each key may'
                    " appear once in an object",
                    name,
                    mark.line,
                    mark.column,
                )
            seen[key] = mark.line
            top[2] = key
            key_marks[(*top[1], key)] = mark
            expect_key = False
            continue
        if stack:
            top = stack[-1]
            if top[0]:
                path: Path = (*top[1], top[2])
            else:
                path = (*top[1], top[2])
                top[2] += 1
        else:
            path = ()
        value_marks[path] = mark
        if group == "o":
            if len(stack) >= budget.max_depth:
                raise InputError(
                    f"nesting deeper than {budget.max_depth} levels", name, mark.line, mark.column
                )
            is_map = found.group(group) == "{"
            stack.append([is_map, path, None if is_map else 0, {}])
            expect_key = is_map
            continue
        word = found.group(group)
        if group == "w" and word not in ("true", "false", "null"):
            if _number().match(word) is None:
                raise InputError(f"invalid JSON: {word} is not a JSON value", name, *mark)
            if isinf(float(word)):  # Go's ParseFloat: out of range
                raise InputError(
                    f"json: cannot unmarshal number {word} into Go value of type float64",
                    name,
                    *mark,
                )
        if spans:
            value_spans[path] = (at, found.end(), '"' if group == "s" else "")
    return key_marks, value_marks, value_spans


def _too_deep(text: str, start: int, name: str, max_depth: int) -> InputError:
    """The error for a value nested past Python's recursion limit: where it passes ours."""
    depth = 0
    in_string = False
    escaped = False
    for offset in range(start, len(text)):
        char = text[offset]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                line, column = position(text, offset)
                return InputError(f"nesting deeper than {max_depth} levels", name, line, column)
        elif char in "]}":
            depth -= 1
    line, column = position(text, start)
    return InputError(f"nesting deeper than {max_depth} levels", name, line, column)


def json_documents(
    text: str,
    name: str,
    *,
    spans: bool,
    max_depth: int,
    max_nodes: int,
    max_documents: int,
) -> list[Document]:
    """Each top-level value of a JSON stream as a Document (`null` as an empty one), as
    kubectl's json.Decoder reads them one after the other. Raises InputError."""
    decoder = _decoder()
    lines = _Lines(text)
    budget = _Budget(0, max_nodes, max_depth)
    fix_surrogates = _SURROGATE_ESCAPE.search(text) is not None
    documents: list[Document] = []
    pos = 0
    size = len(text)
    while True:
        while pos < size and text[pos] in _JSON_SPACE:
            pos += 1
        if pos >= size:
            return documents
        if len(documents) >= max_documents:
            line, column = position(text, pos)
            raise InputError(
                f"more than {max_documents} JSON values in this file (raise the limit with"
                " --max-documents, or maxDocuments in the config)",
                name,
                line,
                column,
            )
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            line, column = position(text, exc.pos)
            raise InputError(f"invalid JSON: {exc.msg}", name, line, column) from None
        except RecursionError:
            raise _too_deep(text, pos, name, max_depth) from None
        key_marks, value_marks, value_spans = _marks(text, pos, end, name, lines, budget, spans)
        if fix_surrogates:
            value = _fix_surrogates(value)
        root = value_marks[()]
        documents.append(
            Document(
                len(documents),
                value,
                root,
                key_marks,
                value_marks,
                value_spans,
                value is None,
                budget.nodes,
            )
        )
        pos = end
