"""YAML bytes to located Kubernetes objects, read exactly as Kubernetes reads them.

`load_bytes` is the one entry point; `files.load_paths` feeds it files, directories and
stdin. Choices made here (each has a test):

- A file is read as `kubectl apply -f` reads it: decoded as kubectl decodes it (invalid
  UTF-8 is U+FFFD), a JSON stream when it starts with `{` (`jsonread`), else YAML cut at
  its `---` lines, each piece's first document read with the sigs.k8s.io/yaml (go-yaml
  v2) rules of `resolve` and `build` (`stream` says when one parse of the whole file
  gives the same). A syntax error in any document is an error (kubectl, too, reads every
  document).
- Duplicate keys: YAMLToJSON keeps the last value, YAMLToJSONStrict rejects them. We reject
  a key written twice in one mapping (naming both lines) because it is almost always a
  mistake that silently changes a digest, but keep Kubernetes' non-strict merge semantics:
  `<<: *base` followed by overrides works, earlier maps in `<<: [*a, *b]` win, and a key
  written before a `<<` is overwritten by the merge (what Kubernetes does).
- Empty documents (only comments, a bare `---`, or `null`) between objects are skipped,
  as kubectl skips them. A file with no object at all is an error ("no Kubernetes
  objects"), unless `allow_empty=True`.
- A document that is a list or scalar, an object without a string `kind` and
  `apiVersion`, or a list whose `items` is not a list, is an error at its position.
- Any object with an `items` key is a list, as kubectl reads it (`objects`): each
  item becomes an object with `item_index` set and its marks keyed by paths relative to
  the item (positions still point into the file).
- `kinds`: objects whose kind is not in it (list items included) are dropped; the
  `prescan` module skips most of them without parsing (never a relevant one).
"""

from __future__ import annotations

import gc
import re
from collections import deque
from collections.abc import Callable, Collection, Generator, Iterator
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scanner import Scanner, ScannerError

from renderer.errors import InputError
from renderer.source import cevents, limits
from renderer.source.build import BuildError, build
from renderer.source.jsonread import is_json_stream, json_documents
from renderer.source.limits import DEFAULT_MAX_ALIAS_NODES, DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from renderer.source.model import SourceObject
from renderer.source.objects import document_objects
from renderer.source.prescan import document_starts, segments
from renderer.source.stream import as_kubectl_feeds, chunks, separators, whole_parse_agrees
from renderer.source.text import (
    check_characters,
    count_breaks,
    decode_as_kubectl,
    decode_input,
    position,
)

if TYPE_CHECKING:
    from renderer.source.build import Document

__all__ = ["DEFAULT_MAX_BYTES", "iter_values", "load_bytes"]


def _event_source(source: bytes | str, pure: bool = False) -> Callable[[], partial[Any]]:
    """libyaml's events; ruamel's pure-Python parser's when asked or when C is missing.
    Each event is the record of its constructor call that `build` reads (see `cevents`).

    The pure parser is taught the one escape go-yaml accepts and it does not: `\\'`.
    """
    try:
        if pure:
            raise ImportError("pure parser requested")
        return cevents.c_events(source)
    except ImportError:
        if isinstance(source, bytes):
            source = source.decode("utf-8")
        yaml = YAML(typ="safe", pure=True)
        yaml.Scanner = _go_scanner()
        events: Iterator[Any] = iter(yaml.parse(source))
        return cevents.as_calls(events.__next__)


@cache
def _go_scanner() -> type:
    """ruamel's pure scanner with go-yaml's double-quoted escapes: `\\'` is accepted, and
    an escape naming a surrogate or a code point past U+10FFFF is refused (as libyaml and
    go-yaml refuse it; the pure scanner made a lone surrogate, or crashed in chr())."""
    surrogate = re.compile("[\ud800-\udfff]")

    class GoScanner(Scanner):
        ESCAPE_REPLACEMENTS = {**Scanner.ESCAPE_REPLACEMENTS, "'": "'"}  # noqa: RUF012

        # ruamel looks through every pending simple key for each token: one per open flow
        # collection on the line, so `[[[[...` made that quadratic (80 groups of 250
        # nested `[` took 5 s for 40 KB). Keys are made in order of position and token
        # number, so the stale ones are always the oldest and the nearest is the oldest
        # live one: a queue in creation order (entries checked against the dict, which
        # other methods also delete from) answers both in amortised constant time.
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._key_order: deque[tuple[int, Any]] = deque()

        def save_possible_simple_key(self) -> None:
            super().save_possible_simple_key()
            key = self.possible_simple_keys.get(self.flow_level)
            order = self._key_order
            if key is not None and (not order or order[-1][1] is not key):
                order.append((self.flow_level, key))

        def stale_possible_simple_keys(self) -> None:
            keys, order = self.possible_simple_keys, self._key_order
            line, index = self.reader.line, self.reader.index
            while order:
                level, key = order[0]
                live = keys.get(level)
                if live is not None and live is key:
                    if key.line == line and index - key.index <= 1024:
                        return
                    if key.required:
                        raise ScannerError(
                            "while scanning a simple key",
                            key.mark,
                            "could not find expected ':'",
                            self.reader.get_mark(),
                        )
                    del keys[level]
                order.popleft()

        def next_possible_simple_key(self) -> Any:
            keys, order = self.possible_simple_keys, self._key_order
            while order and keys.get(order[0][0]) is not order[0][1]:
                order.popleft()
            return order[0][1].token_number if order else None

        def scan_to_next_token(self) -> None:
            # libyaml's and go-yaml's rule: tabs separate tokens in flow context and, in
            # block context, wherever a simple key cannot start (so `key:\t# note` is a
            # comment); ruamel's skipped tabs in flow context only.
            peek, forward = self.reader.peek, self.reader.forward
            if self.reader.index == 0 and peek() == "\ufeff":
                forward()
            while True:
                while peek() == " " or (
                    peek() == "\t" and (self.flow_level or not self.allow_simple_key)
                ):
                    forward()
                if peek() == "#":
                    while peek() not in "\0\r\n\x85\u2028\u2029":
                        forward()
                if not self.scan_line_break():
                    return
                if not self.flow_level:
                    self.allow_simple_key = True

        def scan_flow_scalar_non_spaces(self, double: Any, start_mark: Any) -> Any:
            try:
                chunks = super().scan_flow_scalar_non_spaces(double, start_mark)
                bad = double and any(surrogate.search(chunk) for chunk in chunks)
            except ValueError:
                bad = True
            if bad:
                raise ScannerError(
                    "while parsing a quoted scalar",
                    start_mark,
                    "found invalid Unicode character escape code",
                    self.reader.get_mark(),
                )
            return chunks

    return GoScanner


# `\'` escapes handed to libyaml as `\e`, one parse each, before the pure parser takes over.
_MAX_PATCHED_ESCAPES = 8
_MIXED_ESCAPES = "cannot read a string with both"  # build's message for `\e` beside `\'`


def _yaml_error(exc: Exception, name: str, line_offset: int) -> InputError:
    problem = getattr(exc, "problem", None) or str(exc)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    message = f"invalid YAML: {problem}"
    if context and context_mark is not None:
        message += (
            f" ({context} at line {context_mark.line + 1 + line_offset},"
            f" column {context_mark.column + 1})"
        )
    if mark is None:
        return InputError(message, name, 1 + line_offset, 1)
    return InputError(message, name, mark.line + 1 + line_offset, mark.column + 1)


def _documents(
    source: bytes | str,
    text: str,
    name: str,
    *,
    line_offset: int,
    char_offset: int,
    doc_offset: int,
    spans: bool,
    max_alias_nodes: int,
    max_depth: int,
    max_nodes: int | None = None,
    nodes_before: int = 0,
    max_documents: int | None = None,
    aliases_before: tuple[int, int] = (0, 0),
    unstructured: bool = True,
) -> Generator[Document, None, None]:
    """Documents of one run of text, working around two places where libyaml is stricter
    than go-yaml: `:` inside flow plain scalars (`[2025-06-01T00:00:00Z]`), which ruamel's
    pure-Python scanner reads as go-yaml does, and the `\\'` escape, which is handed to
    libyaml as `\\e` and restored (past a few of them, the pure parser reads it). On such
    an error the run is parsed again from the start, skipping documents already yielded."""
    pure = False
    patched = text
    escapes: set[int] = set()
    yielded = 0
    while True:
        feed: bytes | str = source if not escapes else patched
        seen = 0
        try:
            for doc in build(
                _event_source(feed, pure),
                text,
                line_offset=line_offset,
                index_offset=char_offset,
                doc_offset=doc_offset,
                spans=spans,
                max_alias_nodes=max_alias_nodes,
                max_depth=max_depth,
                apostrophe_escapes=frozenset(escapes),
                max_nodes=max_nodes,
                nodes_before=nodes_before,
                max_documents=max_documents,
                aliases_before=aliases_before,
                unstructured=unstructured,
            ):
                seen += 1
                if seen > yielded:
                    yielded = seen
                    yield doc
            return
        except BuildError as exc:
            if escapes and exc.message.startswith(_MIXED_ESCAPES):
                pure, patched = True, text  # the pure parser reads both escapes itself
                escapes.clear()
                continue
            raise InputError(exc.message, name, exc.line + 1, exc.column + 1) from None
        except YAMLError as exc:
            problem = getattr(exc, "problem", None)
            mark = getattr(exc, "problem_mark", None)
            if problem == "found unexpected ':'" and not pure:
                pure = True
                continue
            at = _apostrophe_escape_at(problem, mark, patched)
            if at is not None and not pure:
                if len(escapes) < _MAX_PATCHED_ESCAPES:
                    escapes.add(at)
                    patched = patched[:at] + "\\e" + patched[at + 2 :]
                    continue
                # Each patch costs a parse from the start: past a few, one pass of the
                # pure parser (which reads `\\'` itself) keeps the whole read linear.
                pure = True
                escapes.clear()
                patched = text
                continue
            raise _yaml_error(exc, name, line_offset) from None


def _apostrophe_escape_at(problem: object, mark: Any, text: str) -> int | None:
    """Offset of the `\\'` escape an "unknown escape" error points at (libyaml marks the
    backslash, ruamel's pure parser the character after it)."""
    if not isinstance(problem, str) or not problem.startswith("found unknown escape character"):
        return None
    if mark is None:
        return None
    index: int = mark.index
    for at in (index, index - 1):
        if at >= 0 and text[at : at + 2] == "\\'":
            return at
    return None


def load_bytes(
    data: bytes,
    name: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kinds: Collection[str] | None = None,
    spans: bool = False,
    allow_empty: bool = False,
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> list[SourceObject]:
    """Read a YAML stream into Kubernetes objects, in document order.

    `name` is the file name used in positions and errors. `kinds` keeps only objects of
    those kinds (List items included). `spans=True` also fills `value_spans`.
    `allow_empty=True` returns [] for a file without objects instead of failing.
    Raises InputError (file, 1-based line and column) for anything Kubernetes would not
    read, or that this tool refuses on purpose (see the module docstring).
    """
    # The values built here are trees (aliases and merges are copied), so reference
    # counting frees them; pausing the cyclic collector saves ~25% on large streams.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(data, name, max_bytes, kinds, spans, allow_empty, max_alias_nodes, max_depth)
    finally:
        if gc_was_enabled:
            gc.enable()


def _load(  # noqa: PLR0917 - private body of load_bytes
    data: bytes,
    name: str,
    max_bytes: int,
    kinds: Collection[str] | None,
    spans: bool,
    allow_empty: bool,
    max_alias_nodes: int,
    max_depth: int,
) -> list[SourceObject]:
    text, feed = decode_as_kubectl(data, name, max_bytes)
    max_nodes, max_documents = limits.max_nodes(), limits.max_documents()
    objects: list[SourceObject] = []
    found_content = False
    if is_json_stream(text):
        for doc in json_documents(
            text,
            name,
            spans=spans,
            max_depth=max_depth,
            max_nodes=max_nodes,
            max_documents=max_documents,
        ):
            if doc.value is not None:
                found_content = True
                objects.extend(document_objects(doc, name, kinds))
    else:
        check_characters(text, name)
        _check_document_count(text, name, max_documents)
        lines = separators(text, name)
        if whole_parse_agrees(text, lines):
            found_content = _read_whole(
                text, feed, name, kinds, spans, max_alias_nodes, max_depth, objects
            )
        else:
            found_content = _read_chunks(
                text, lines, name, kinds, spans, max_alias_nodes, max_depth, objects
            )
    if not found_content and not allow_empty:
        raise InputError(
            "no Kubernetes objects in this file (it is empty or only comments)", name, 1, 1
        )
    return objects


def _read_whole(  # noqa: PLR0917 - private helper of _load
    text: str,
    feed: bytes,
    name: str,
    kinds: Collection[str] | None,
    spans: bool,
    max_alias_nodes: int,
    max_depth: int,
    objects: list[SourceObject],
) -> bool:
    """The stream in one parse (with the pre-scan's shortcuts when `kinds` is given), its
    objects appended to `objects`; True when it has content."""
    parts = segments(text, kinds) if kinds is not None else None
    runs: list[tuple[bytes | str, str, int, int, int]]
    if parts is None:
        runs = [(feed, text, 0, 0, 0)]
    else:
        runs = [(p.text, p.text, p.line_offset, p.char_offset, p.doc_offset) for p in parts]
    if runs and not text.endswith("\n"):
        # kubectl's line reader ends the last line with a line break (a block scalar
        # there keeps it)
        source, part_text, line_offset, char_offset, doc_offset = runs[-1]
        if char_offset + len(part_text) == len(text):
            tail: bytes | str = b"\n" if isinstance(source, bytes) else "\n"
            runs[-1] = (source + tail, part_text, line_offset, char_offset, doc_offset)  # type: ignore[operator]
    found_content = parts is not None and sum(len(p.text) for p in parts) < len(text)
    parse = _parser(name, spans, max_alias_nodes, max_depth)
    nodes = 0  # the node and alias budgets are per file: runs continue the counts
    aliases = (0, 0)
    for source, part_text, line_offset, char_offset, doc_offset in runs:
        for doc in parse(
            source,
            part_text,
            line_offset=line_offset,
            char_offset=char_offset,
            doc_offset=doc_offset,
            nodes_before=nodes,
            aliases_before=aliases,
        ):
            nodes, aliases = doc.nodes, doc.aliases
            found_content |= _collect(doc, name, kinds, objects)
    return found_content


def _read_chunks(  # noqa: PLR0917 - private helper of _load
    text: str,
    lines: list[tuple[int, int]],
    name: str,
    kinds: Collection[str] | None,
    spans: bool,
    max_alias_nodes: int,
    max_depth: int,
    objects: list[SourceObject],
) -> bool:
    """The stream as kubectl reads one that a single parse would read otherwise: each
    piece between separator lines alone, its first document only (`stream`)."""
    parse = _parser(name, spans, max_alias_nodes, max_depth)
    found_content = False
    nodes = 0
    aliases = (0, 0)
    line = 0
    previous = 0
    for number, chunk in enumerate(chunks(text, lines)):
        line += count_breaks(text[previous : chunk.start])
        previous = chunk.start
        piece, moved = as_kubectl_feeds(text[chunk.start : chunk.end])
        if not piece.strip():
            continue
        documents = parse(
            piece.encode("utf-8"),
            piece,
            line_offset=line,
            char_offset=chunk.start,
            doc_offset=number,
            spans=spans and not moved,
            nodes_before=nodes,
            aliases_before=aliases,
        )
        doc = next(documents, None)  # go-yaml's Unmarshal: the first document only
        documents.close()
        if doc is None:
            continue
        nodes, aliases = doc.nodes, doc.aliases
        found_content |= _collect(doc, name, kinds, objects)
    return found_content


def _parser(
    name: str, spans: bool, max_alias_nodes: int, max_depth: int
) -> Callable[..., Generator[Document, None, None]]:
    """`_documents` with what is the same for every run of one file bound: its name and
    the caps (the file's own budgets are passed on from run to run by the caller)."""
    return partial(
        _documents,
        name=name,
        spans=spans,
        max_alias_nodes=max_alias_nodes,
        max_depth=max_depth,
        max_nodes=limits.max_nodes(),
        max_documents=limits.max_documents(),
    )


def _collect(
    doc: Document, name: str, kinds: Collection[str] | None, objects: list[SourceObject]
) -> bool:
    """Append a read document's objects to `objects`; False for an empty document."""
    if doc.empty or doc.value is None:
        return False
    objects.extend(document_objects(doc, name, kinds))
    return True


def _check_document_count(text: str, name: str, cap: int) -> None:
    """Refuse more than `cap` `---` markers before anything is split or parsed: 16 MB of
    them is 4 million documents, which would take the pre-scan and parser a minute."""
    if text.count("---") < cap:
        return

    starts = document_starts(text, limit=cap + 1)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # a document before the first marker
    if len(starts) <= cap:
        return
    line, column = position(text, starts[cap])
    raise InputError(
        f"more than {cap} YAML documents in this file (raise the limit with --max-documents,"
        " or maxDocuments in the config)",
        name,
        line,
        column,
    )


def iter_values(
    data: bytes,
    name: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Iterator[Any]:
    """Yield each document's plain value (None for an empty one), parsing lazily.

    This is the per-document equivalent of sigs.k8s.io/yaml's YAMLToJSON without the
    Kubernetes-object checks: taking only the first value reproduces a single YAMLToJSON
    call (later documents are then never parsed).
    """
    text, feed = decode_input(data, name, max_bytes)
    _check_document_count(text, name, limits.max_documents())
    for doc in _documents(
        feed,
        text,
        name,
        line_offset=0,
        char_offset=0,
        doc_offset=0,
        spans=False,
        max_alias_nodes=max_alias_nodes,
        max_depth=max_depth,
        max_nodes=limits.max_nodes(),
        max_documents=limits.max_documents(),
        unstructured=False,
    ):
        yield doc.value
