"""Build plain values with positions from libyaml parser events, applying go-yaml v2 rules.

The libyaml C parser (through ruamel.yaml.clib) does the scanning; this module turns its
events into dict/list/str/int/float/bool/None in one tight, non-recursive loop, recording
the 1-based position of every key and value by path. Rules it adds on top of libyaml,
because go-yaml v2 behaves differently from the YAML spec or from libyaml:

- `%YAML` other than 1.1 is rejected; `\\/` in double quotes is rejected.
- Merge keys `<<` (a map, an alias to a map, or a sequence of those; earlier maps win;
  every assignment overwrites in document order, as the non-strict Kubernetes reader does).
  As go-yaml's `isMerge`, a key is a merge when its text is `<<` and it is plain and
  untagged, tagged `!` (any style) or tagged `!!merge` (any style); `!!merge foo` is the
  key `foo`, and `"<<"`, `'<<'`, `!!str <<` or an alias to a `<<` scalar are the key `<<`.
- Duplicate keys: a key written literally twice in one mapping is an error naming both
  lines (keys compared as Go compares them: `yes` and `true` are the same key, `1` and
  `"1"` are not, and neither are `1` and `1.0`; `0.0` and `-0.0` are, although their JSON
  keys differ). Overriding a merged key is allowed, as in Kubernetes.
- Map keys are stringified as sigs.k8s.io/yaml does; null, uint64 and collection keys and
  infinite/NaN values are errors.
- Anchors: undefined aliases and self-containing anchors are errors, the number of nodes
  and the characters of scalar text produced by alias expansion are capped (alias bombs,
  including one long string aliased many times), nesting depth is capped, and an
  alias to a collection yields an independent copy (so callers may mutate values).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from math import isfinite, isnan
from typing import Any

from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from renderer.record import Record
from renderer.source.limits import (
    DEFAULT_MAX_ALIAS_CHARS,
    DEFAULT_MAX_ALIAS_NODES,
    DEFAULT_MAX_DEPTH,
)
from renderer.source.model import Mark, Path
from renderer.source.resolve import (
    MERGE_TAG,
    MapKeyError,
    ResolveError,
    go_key,
    resolve_plain,
    resolve_tagged,
)
from renderer.source.text import break_ends
from renderer.source.zerokeys import Zero, ZeroKeyError, go_repr, literal_zero, merged_zero

_INT64_MAX = (1 << 63) - 1
_new_mark = tuple.__new__
_MISSING = object()
_MERGE = object()  # pending-key marker: the next value is a `<<` merge source
_MERGE_TAGS = frozenset({"!", MERGE_TAG})  # tags under which a `<<` key still merges
_OPEN = object()  # anchor whose collection is still being built
_PLAIN_CACHE: dict[str, Any] = {}


class BuildError(Exception):
    """A problem at a 0-based position in the parsed text (the reader adds the file name)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class Document(Record):
    """One YAML document: its value, positions by path, and (optionally) scalar spans."""

    index: int
    value: Any
    root: Mark
    key_marks: dict[Path, Mark]
    value_marks: dict[Path, Mark]
    value_spans: dict[Path, tuple[int, int, str]]
    empty: bool  # nothing but comments, or a bare `---`
    nodes: int  # nodes read so far in the file, this document included
    # (nodes, characters) made by aliases so far in the file, this document included
    aliases: tuple[int, int]

    # Its own __init__: one is made per document read, and the generic one costs about three
    # times the instructions (bench/bench_lint.py's corpus).
    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        index: int,
        value: Any,
        root: Mark,
        key_marks: dict[Path, Mark] | None = None,
        value_marks: dict[Path, Mark] | None = None,
        value_spans: dict[Path, tuple[int, int, str]] | None = None,
        empty: bool = False,
        nodes: int = 0,
        aliases: tuple[int, int] = (0, 0),
    ) -> None:
        self.index = index
        self.value = value
        self.root = root
        self.key_marks = {} if key_marks is None else key_marks
        self.value_marks = {} if value_marks is None else value_marks
        self.value_spans = {} if value_spans is None else value_spans
        self.empty = empty
        self.nodes = nodes
        self.aliases = aliases


def _plain(text: str) -> Any:
    value = _PLAIN_CACHE.get(text, _MISSING)
    if value is _MISSING:
        value = resolve_plain(text)
        if len(_PLAIN_CACHE) > 50_000:
            _PLAIN_CACHE.clear()
        _PLAIN_CACHE[text] = value
    return value


def _copy(value: Any) -> Any:
    # marshal version 2 has no back-references, so the copy shares nothing with the anchor.
    if isinstance(value, dict | list):
        return marshal.loads(marshal.dumps(value, 2))
    return value


def _typed(key: Any) -> Any:
    """Identity of a key as a Go map[interface{}] sees it (None for the common str case)."""
    return None if type(key) is str else (type(key), key)


class _Frame:
    __slots__ = (
        "anchor",
        "chars",
        "container",
        "is_map",
        "key",
        "key_mark",
        "key_path",
        "mark",
        "merged",
        "path",
        "size",
        "typed",
        "zero",
    )

    def __init__(
        self, container: Any, path: Path, is_map: bool, anchor: str | None, mark: Mark
    ) -> None:
        self.container = container
        self.mark = mark
        self.path = path
        self.is_map = is_map
        self.anchor = anchor
        self.key: Any = _MISSING  # str key awaiting its value, _MERGE, or _MISSING
        self.key_mark: Mark | None = None
        # (*path, key) of the str key awaiting its value: built once and shared by
        # key_marks and value_marks (one tuple per map entry instead of two saves memory)
        self.key_path: Path = path
        self.size = 1
        self.chars = 0  # characters of scalar text inside, for the alias text budget
        self.merged: set[str] | None = None  # keys set only by a merge so far
        self.typed: dict[str, Any] | None = None  # non-str Go identities of literal keys
        # the float key 0 or -0 (one Go key; at most one per map), once there is one
        self.zero: Zero | None = None


def build(  # one loop over events keeps the per-node cost low
    next_event: Callable[[], Any],
    text: str,
    *,
    line_offset: int = 0,
    index_offset: int = 0,
    doc_offset: int = 0,
    spans: bool = False,
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES,
    max_alias_chars: int = DEFAULT_MAX_ALIAS_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    apostrophe_escapes: frozenset[int] = frozenset(),
    max_nodes: int | None = None,
    nodes_before: int = 0,
    max_documents: int | None = None,
    aliases_before: tuple[int, int] = (0, 0),
    unstructured: bool = True,
) -> Iterator[Document]:
    """Yield the documents of an event stream. Raises BuildError (0-based, offsets applied).

    `text` is the original text the events come from (marks index into it).
    `apostrophe_escapes` are offsets of `\\'` escapes that were handed to libyaml as `\\e`
    (go-yaml accepts `\\'`, libyaml does not); they are turned back into `'` here.
    `nodes_before` and `aliases_before` are what earlier parts of the file used of the
    node and alias budgets, which are per file: no document resets them.
    `unstructured`: integers past int64 become the float64 kubectl sends (the objects);
    False keeps go-yaml's uint64, as YAMLToJSON writes it (the YAML-reading vectors).
    """
    check_slash = "\\/" in text
    doc_index = doc_offset - 1
    stack: list[_Frame] = []
    anchors: dict[str, tuple[Any, int, bool, int]] = {}
    # finished maps (and alias copies of them) that hold a float zero key, by id: where
    # it is, for a later merge of that map (the dict itself is kept so the id stays unique)
    zero_maps: dict[int, tuple[dict[str, Any], Zero]] = {}
    alias_nodes, alias_chars = aliases_before
    nodes = nodes_before
    node_cap = max_nodes if max_nodes is not None else 1 << 62
    doc: Document | None = None
    key_marks: dict[Path, Mark] = {}
    value_marks: dict[Path, Mark] = {}
    value_spans: dict[Path, tuple[int, int, str]] = {}
    lo = line_offset + 1

    while True:
        event = next_event()
        kind = event.func
        # --- a node value: scalar, alias, or collection start ---------------------------
        if kind is ScalarEvent:
            anchor, tag, _, text_value, mark, end_mark, style = event.args
            nodes += 1
            if nodes > node_cap:
                raise _too_many_nodes(node_cap, mark, line_offset)
            if tag is None:
                if style:
                    value = text_value
                else:  # _plain, inlined: most scalars are plain and seen before
                    value = _PLAIN_CACHE.get(text_value, _MISSING)
                    if value is _MISSING:
                        value = _plain(text_value)
                if style == '"' and (check_slash or apostrophe_escapes):
                    if check_slash:
                        _check_double_quoted(text, mark, end_mark, line_offset)
                    if apostrophe_escapes:
                        value = _restore_apostrophes(
                            value, text, mark, end_mark, line_offset, apostrophe_escapes
                        )
            elif tag == "!" or (tag[0] == "!" and not tag.startswith("tag:")):
                value = text_value  # non-specific and custom tags: the text, unresolved
            else:
                try:
                    value = resolve_tagged(tag, text_value)
                except ResolveError as exc:
                    raise BuildError(exc.args[0], mark.line + line_offset, mark.column) from None
            size = 1
            chars = len(text_value)
            node_mark = _new_mark(Mark, (mark.line + lo, mark.column + 1))
            if anchor is not None:
                anchors[anchor] = (value, 1, False, chars)
            via_alias = False
            if not stack:  # a scalar document
                if value.__class__ is float and not isfinite(value):
                    raise _unsupported(value, node_mark, line_offset)
                if value.__class__ is int and value > _INT64_MAX and unstructured:
                    value = float(value)  # a uint64: see the mapping value below
                doc = Document(doc_index, value, node_mark, key_marks, value_marks, value_spans)
                continue
            top = stack[-1]
            # go-yaml's isMerge: the text is `<<` and the event is plain-implicit (plain and
            # untagged, or tagged `!` in any style) or the tag is !!merge
            if (
                text_value == "<<"
                and top.is_map
                and top.key is _MISSING
                and ((tag is None and not style) or tag in _MERGE_TAGS)
            ):
                top.key = _MERGE
                top.key_mark = node_mark
                continue
            if spans and not (top.is_map and top.key is _MISSING):
                if not top.is_map:
                    path = (*top.path, len(top.container))
                else:
                    # (a scalar right after `<<` keeps the sentinel in its path, as before)
                    path = top.key_path if top.key is not _MERGE else (*top.path, top.key)  # type: ignore[arg-type]
                value_spans[path] = (
                    mark.index + index_offset,
                    end_mark.index + index_offset,
                    style or "",
                )
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            anchor, _, _, mark, _, _ = event.args
            nodes += 1
            if nodes > node_cap:
                raise _too_many_nodes(node_cap, mark, line_offset)
            is_map = kind is MappingStartEvent
            if len(stack) >= max_depth:
                raise BuildError(
                    f"nesting deeper than {max_depth} levels", mark.line + line_offset, mark.column
                )
            node_mark = _new_mark(Mark, (mark.line + lo, mark.column + 1))
            if stack:
                top = stack[-1]
                if top.is_map:
                    if top.key is _MISSING:
                        raise BuildError(
                            "invalid map key: a sequence or mapping cannot be a key",
                            mark.line + line_offset,
                            mark.column,
                        )
                    # an inline merge source records its positions under the `<<` key
                    path = top.key_path if top.key is not _MERGE else (*top.path, "<<")
                else:
                    path = (*top.path, len(top.container))
            else:
                path = ()
            value_marks[path] = node_mark
            if anchor is not None:
                anchors[anchor] = (_OPEN, 0, False, 0)
            stack.append(_Frame({} if is_map else [], path, is_map, anchor, node_mark))
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            frame = stack.pop()
            value = frame.container
            size = frame.size
            chars = frame.chars
            if frame.anchor is not None:
                anchors[frame.anchor] = (value, size, frame.is_map, chars)
            if frame.zero is not None:
                zero_maps[id(value)] = (value, frame.zero)
            via_alias = False
            node_mark = frame.mark
            if not stack:
                doc = Document(doc_index, value, node_mark, key_marks, value_marks, value_spans)
                continue
            top = stack[-1]
        elif kind is AliasEvent:
            anchor, mark, _ = event.args
            node_mark = _new_mark(Mark, (mark.line + lo, mark.column + 1))
            found = anchors.get(anchor)
            if found is None:
                raise BuildError(
                    f"unknown anchor '{anchor}' referenced", mark.line + line_offset, mark.column
                )
            value, size, is_map, chars = found
            if value is _OPEN:
                raise BuildError(
                    f"anchor '{anchor}' value contains itself", mark.line + line_offset, mark.column
                )
            alias_nodes += size
            alias_chars += chars
            if alias_nodes > max_alias_nodes:
                raise BuildError(
                    f"aliases expand to more than {max_alias_nodes} nodes (alias bomb?)",
                    mark.line + line_offset,
                    mark.column,
                )
            if alias_chars > max_alias_chars:
                raise BuildError(
                    f"aliases expand to more than {max_alias_chars} characters of text"
                    " (alias bomb?)",
                    mark.line + line_offset,
                    mark.column,
                )
            via_alias = True
            if not stack:
                doc = Document(doc_index, _copy(value), node_mark, key_marks, value_marks, {})
                continue
            top = stack[-1]
            if not (top.is_map and top.key is _MISSING):
                original = value
                value = _copy(value)
                if is_map and zero_maps:
                    zero_found = zero_maps.get(id(original))
                    if zero_found is not None:
                        zero_maps[id(value)] = (value, zero_found[1])
        elif kind is DocumentStartEvent:
            mark, _, _, version, _ = event.args
            if version is not None and tuple(version) != (1, 1):
                raise BuildError("found incompatible YAML document", mark.line + line_offset, 0)
            doc_index += 1
            if max_documents is not None and doc_index >= max_documents:
                raise BuildError(
                    f"more than {max_documents} YAML documents in this file (raise the limit"
                    " with --max-documents, or maxDocuments in the config)",
                    mark.line + line_offset,
                    mark.column,
                )
            anchors = {}
            zero_maps = {}
            key_marks, value_marks, value_spans = {}, {}, {}
            doc = None
            continue
        elif kind is DocumentEndEvent:
            mark = event.args[0]
            if doc is None:
                root = _new_mark(Mark, (mark.line + lo, mark.column + 1))
                doc = Document(doc_index, None, root, key_marks, value_marks, value_spans, True)
            doc.nodes = nodes
            doc.aliases = (alias_nodes, alias_chars)
            yield doc
            doc = None
            continue
        elif kind is StreamEndEvent:
            return
        else:  # stream start
            continue

        # --- place the value into its parent ------------------------------------------
        top.size += size
        top.chars += chars
        if not top.is_map:
            container = top.container
            path = (*top.path, len(container))
            if value.__class__ is float and not isfinite(value):
                raise _unsupported(value, node_mark, line_offset)
            if value.__class__ is int and value > _INT64_MAX and unstructured:
                value = float(value)  # a uint64: see the mapping value below
            value_marks[path] = node_mark
            container.append(value)
            continue
        key = top.key
        if key is _MISSING:  # this value is a key
            if value.__class__ is str:
                skey = value
            else:
                try:
                    skey = go_key(value)
                except MapKeyError as exc:
                    line, column = node_mark.line - 1, node_mark.column - 1
                    raise BuildError(exc.args[0], line, column) from None
            container = top.container
            if skey in container:
                _check_duplicate(top, skey, value, node_mark, key_marks)
            if value.__class__ is not str:
                if value.__class__ is float and value == 0:
                    try:
                        literal_zero(top, skey, value, node_mark, key_marks, value_marks)
                    except ZeroKeyError as exc:
                        line, column = node_mark.line - 1, node_mark.column - 1
                        raise BuildError(exc.args[0], line, column) from None
                elif top.zero is not None and top.zero.skey == skey:
                    top.zero.shared = True  # e.g. the int 0 next to the float 0
                if top.typed is None:
                    top.typed = {}
                top.typed[skey] = _typed(value)
            else:
                if top.typed is not None:
                    top.typed.pop(skey, None)
                if top.zero is not None and top.zero.skey == skey:
                    top.zero.shared = True  # the string "0" next to the float 0
            top.key = skey
            top.key_mark = node_mark
            key_path = (*top.path, skey)
            top.key_path = key_path
            key_marks[key_path] = node_mark
            continue
        if key is _MERGE:
            _merge(top, value, via_alias, node_mark, key_marks, value_marks, zero_maps)
            top.key = _MISSING
            continue
        if value.__class__ is float and not isfinite(value):
            raise _unsupported(value, node_mark, line_offset)
        if value.__class__ is int and value > _INT64_MAX and unstructured:
            # go-yaml reads it as a uint64 and YAMLToJSON writes it exactly, but kubectl's
            # decoding of the object (unstructured) holds a number beyond int64 as a float64:
            # the cluster gets the float. `unstructured=False` gives YAMLToJSON's value.
            value = float(value)
        value_marks[top.key_path] = node_mark
        top.container[key] = value
        top.key = _MISSING


def _too_many_nodes(cap: int, mark: Any, line_offset: int) -> BuildError:
    return BuildError(
        f"more than {cap} YAML nodes in this file (raise the limit with --max-nodes,"
        " or maxNodes in the config)",
        mark.line + line_offset,
        mark.column,
    )


def _unsupported(value: float, mark: Mark, line_offset: int) -> BuildError:
    spelled = "NaN" if isnan(value) else ("+Inf" if value > 0 else "-Inf")
    return BuildError(
        f"json: unsupported value: {spelled} (JSON has no infinities or NaN; quote it)",
        mark.line - 1,
        mark.column - 1,
    )


def _check_duplicate(
    top: _Frame, skey: str, key: Any, mark: Mark, key_marks: dict[Path, Mark]
) -> None:
    merged = top.merged
    if merged is not None and skey in merged:
        merged.discard(skey)  # an explicit key overriding a merged one: allowed
        return
    earlier = top.typed.get(skey) if top.typed is not None else None
    if earlier != _typed(key):
        # Go keeps both keys (e.g. 1 and "1") and the JSON result depends on map order;
        # Kubernetes' non-strict reader accepts it, so do we (last one wins).
        return
    first = key_marks.get((*top.path, skey))
    first_line = f" (first set on line {first.line})" if first is not None else ""
    raise BuildError(
        f"duplicate key {go_repr(key)}{first_line}: each key may appear once in a mapping",
        mark.line - 1,
        mark.column - 1,
    )


def _merge(  # noqa: PLR0917 - private helper of the hot loop
    top: _Frame,
    value: Any,
    via_alias: bool,
    mark: Mark,
    key_marks: dict[Path, Mark],
    value_marks: dict[Path, Mark],
    zero_maps: dict[int, tuple[dict[str, Any], Zero]],
) -> None:
    if isinstance(value, dict):
        sources = [value]
    elif isinstance(value, list) and not via_alias and all(isinstance(v, dict) for v in value):
        sources = list(reversed(value))  # earlier maps take precedence: apply them last
    else:
        raise BuildError(
            "map merge requires map or sequence of maps as the value",
            mark.line - 1,
            mark.column - 1,
        )
    container = top.container
    if top.merged is None:
        top.merged = set()
    merged = top.merged
    key_mark = top.key_mark or mark
    for source in sources:
        found = zero_maps.get(id(source)) if zero_maps else None
        source_zero = found[1] if found is not None else None
        for skey, item in source.items():
            if source_zero is not None and skey == source_zero.skey:
                try:
                    counts = merged_zero(top, skey, source_zero, key_mark, key_marks, value_marks)
                except ZeroKeyError as exc:
                    line, column = key_mark.line - 1, key_mark.column - 1
                    raise BuildError(exc.args[0], line, column) from None
                if counts:
                    merged.add(skey)
            else:
                if top.zero is not None and top.zero.skey == skey:
                    top.zero.shared = True  # another key next to the float zero
                if skey not in container:
                    merged.add(skey)
            container[skey] = _copy(item)
            path = (*top.path, skey)
            key_marks[path] = key_mark
            value_marks[path] = mark


def _check_double_quoted(text: str, start: Any, end: Any, line_offset: int) -> None:
    """go-yaml rejects the `\\/` escape that libyaml accepts."""
    raw = text[start.index : end.index]
    position = 0
    while True:
        position = raw.find("\\", position)
        if position < 0 or position + 1 >= len(raw):
            return
        if raw[position + 1] == "/":
            breaks, line_start = break_ends(raw, position)
            line = start.line + line_offset + breaks
            column = position - line_start if breaks else start.column + position
            raise BuildError("found unknown escape character '\\/'", line, column)
        position += 2


def _restore_apostrophes(  # noqa: PLR0917 - private helper of the hot loop
    value: str, text: str, start: Any, end: Any, line_offset: int, escapes: frozenset[int]
) -> str:
    if not any(start.index <= offset < end.index for offset in escapes):
        return value
    if "\\e" in text[start.index : end.index]:
        raise BuildError(
            "cannot read a string with both \\' and \\e escapes; write ' unescaped",
            start.line + line_offset,
            start.column,
        )
    return value.replace("\x1b", "'")
