"""`lint --fix`: surgical text edits of YAML files, verified before they are written.

Each fix is a `FixAction` (set or delete one key of one object). Edits are computed on the
decoded file text from the reader's positions (`load_bytes(..., spans=True)`): a scalar is
replaced within its span in its own quoting style; a missing key is inserted as a new line
at the indentation of its siblings (under a new `annotations:` when there is none, or under
a null one: `annotations:`, `~`); a key line is deleted (in a flow mapping: the entry and
one separating comma). Lines are the reader's (LF, CR LF, CR, NEL, LS and PS each end one),
and a new line ends with the break of the line before it. Every other byte stays as it was.
The edited text is parsed again and must give exactly the intended values (everything else
equal), else the file is left alone and the reason reported (fail closed): so is a value in
the way that is neither a mapping nor null (`annotations: text`), for a person to fix.
Writes are atomic: a temp file in the same directory, then `os.replace`.
"""

from __future__ import annotations

import copy as copying
import json
import os
import re
import secrets
import stat
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path as FsPath
from typing import Any

from renderer.errors import InputError
from renderer.lint.finding import DELETE, SET, Finding, FixAction
from renderer.source.model import Mark, Path, SourceObject

_PLAIN_SAFE = re.compile(r"\A[A-Za-z_][A-Za-z0-9._/-]*\Z")
_UTF8_BOM = b"\xef\xbb\xbf"
_MISSING = object()
# Line breaks as the YAML reader counts them (its marks' lines): CR LF is one; CR, LF, NEL,
# LINE SEPARATOR and PARAGRAPH SEPARATOR are each one.
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_BREAK_CHARS = "\r\n\x85\u2028\u2029"
_BLANK = " \t" + _BREAK_CHARS

ObjectKey = tuple[int, int | None]  # (doc_index, item_index)


class FixError(Exception):
    """This file cannot be edited safely; the message says why (and `mark` where, if known)."""

    def __init__(self, message: str, mark: Mark | None = None) -> None:
        super().__init__(message)
        self.mark = mark


class _Lines:
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


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


@dataclass
class FixReport:
    changed_files: list[str] = field(default_factory=list)
    fixed: int = 0  # findings whose every action was written
    failures: list[str] = field(default_factory=list)  # "file: reason"


# --- scalar and key text -----------------------------------------------------------------


def _double(value: str) -> str:
    return json.dumps(value, ensure_ascii=True)


def _single(value: str) -> str:
    if any(c in value for c in "\n\r\t") or not value.isprintable():
        return _double(value)
    return "'" + value.replace("'", "''") + "'"


def _plain_ok(value: str) -> bool:
    # letters first and a slash or dot inside: never a YAML 1.1 bool, null or number
    return bool(_PLAIN_SAFE.match(value)) and ("/" in value or "." in value)


def render_scalar(value: str, style: str) -> str:
    """`value` as a YAML scalar, in `style` ("" plain, "'" or '"') when that is safe."""
    if style == "'":
        return _single(value)
    if style == "" and _plain_ok(value):
        return value
    return _single(value) if style == "" else _double(value)


def _render_key(key: str, quote: str) -> str:
    if quote == "'":
        return _single(key)
    if quote == '"' or not _PLAIN_SAFE.match(key):
        return _double(key)
    return key


# --- the planner -------------------------------------------------------------------------


def _get(data: Any, path: Path) -> Any:
    node = data
    for part in path:
        if isinstance(node, dict) and isinstance(part, str) and part in node:  # noqa: SIM114
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return _MISSING
    return node


class _Planner:
    """Edits for the actions on one object, against the original file text."""

    def __init__(self, text: str, lines: _Lines, obj: SourceObject) -> None:
        self.text = text
        self.lines = lines
        self.obj = obj
        self.expected: dict[str, Any] = copying.deepcopy(obj.data)

    def offset(self, mark: Mark) -> int:
        return self.lines.starts[mark.line - 1] + mark.column - 1

    def line_start(self, offset: int) -> int:
        return self.lines.start_of(offset)

    def starts_line(self, offset: int) -> bool:
        return self.text[self.line_start(offset) : offset].strip(" ") == ""

    def children(self, path: Path) -> list[tuple[str, int]]:
        """(key, key offset) of the direct entries of the mapping at `path`, in text order."""
        depth = len(path)
        found = [
            (p[-1], self.offset(m))
            for p, m in self.obj.key_marks.items()
            if len(p) == depth + 1 and p[:depth] == path and isinstance(p[-1], str)
        ]
        return sorted(found, key=lambda entry: entry[1])

    def _subtree_max(self, path: Path) -> int:
        depth = len(path)
        best = -1
        for p, (_start, end, _style) in self.obj.value_spans.items():
            if p[:depth] == path:
                best = max(best, end)
        for marks in (self.obj.key_marks, self.obj.value_marks):
            for p, m in marks.items():
                if p[:depth] == path:
                    best = max(best, self.offset(m) + 1)
        if best < 0:
            raise FixError(f"no position recorded for {_dotted(path)}")
        return best

    def subtree_end(self, path: Path) -> int:
        """Offset just past the line holding the end of the entry at `path`."""
        # (a block scalar ends with its line break: then a line starts at `end`)
        return self.lines.next_start(self._subtree_max(path))

    def is_flow(self, path: Path) -> bool:
        mark = self.obj.value_marks.get(path)
        return mark is not None and self.text.startswith("{", self.offset(mark))

    def sibling_styles(self, path: Path) -> tuple[str, str]:
        """(key quote, value style) of the mapping's existing entries, to write alike."""
        key_quote, value_style = "", ""
        for key, offset in self.children(path):
            if self.text[offset] in "\"'":
                key_quote = self.text[offset]
            span = self.obj.value_spans.get((*path, key))
            if span is not None and span[2] in "\"'":
                value_style = span[2]
            break
        return key_quote, value_style

    # set -----------------------------------------------------------------------------

    def set(self, path: Path, value: str) -> list[Edit]:
        if _get(self.expected, path) == value:
            return []
        edits = self._set_edits(path, value)
        _set_path(self.expected, path, value)
        return edits

    def _set_edits(self, path: Path, value: str) -> list[Edit]:
        span = self.obj.value_spans.get(path)
        if span is not None:
            start, end, style = span
            if style in ("|", ">"):
                tail = self.lines.breaks.get(end, "")  # the block's own last line break
                return [Edit(start, end, _double(value) + tail)]
            text = render_scalar(value, style)
            return [Edit(start, end, self._after_blank(start, end, text))]
        if path in self.obj.value_marks:
            raise FixError(
                f"{_dotted(path)} is {_a(_get(self.obj.data, path))}, not a string; fix it by hand",
                self.obj.value_marks[path],
            )
        # climb to the nearest existing node, building what must be created under it
        tree: str | dict[str, Any] = value
        parent, key = path[:-1], path[-1]
        while _get(self.obj.data, parent) is _MISSING:
            if not parent or not isinstance(key, str):
                raise FixError(f"cannot create {_dotted(path)}")
            tree, key, parent = {key: tree}, parent[-1], parent[:-1]
        found = _get(self.obj.data, parent)
        if found is None and parent and isinstance(key, str):
            # `annotations:` (or `~`, `null`) reads as an empty mapping: give it the entry
            return self.fill_null(parent, {key: tree})
        if not isinstance(found, dict) or not isinstance(key, str):
            raise FixError(
                f"{_dotted(parent)} is {_a(found)}, not a mapping; fix it by hand",
                self.obj.value_marks.get(parent),
            )
        return [self.insert(parent, key, tree)]

    def _after_blank(self, start: int, end: int, text: str) -> str:
        """`text` to replace [start, end): an empty null (`key:`) needs a blank before it."""
        if start == end and self.text[start - 1 : start] not in (" ", "\t"):
            return " " + text
        return text

    def fill_null(self, path: Path, tree: dict[str, Any]) -> list[Edit]:
        """Edits that replace the null at `path` with the mapping `tree`: block lines under
        its key when the null sits on its key's line in a block mapping, else a flow mapping
        in its place."""
        span = self.obj.value_spans.get(path)
        key_mark = self.obj.key_marks.get(path)
        if span is None:  # an alias of a null
            raise FixError(f"{_dotted(path)} is null in a form --fix does not rewrite")
        start, end, _style = span
        if (
            key_mark is None
            or self.is_flow(path[:-1])
            or self.line_start(start) != self.line_start(self.offset(key_mark))
        ):
            flow = "{" + ", ".join(self._flow_entry(k, v, "") for k, v in tree.items()) + "}"
            return [Edit(start, end, self._after_blank(start, end, flow))]
        key_offset = self.offset(key_mark)
        column = key_offset - self.line_start(key_offset)
        parent_mark = self.obj.key_marks.get(path[:-1])
        step = column - (parent_mark.column - 1) if parent_mark is not None else 2
        step = step if step > 0 else 2
        at = self.lines.next_start(end)
        nl = self.lines.break_before(at)
        block = "".join(
            line
            for k, v in tree.items()
            for line in self._block(
                k, v, column=column + step, step=step, key_quote="", value_style="", nl=nl
            )
        )
        if at == len(self.text) and not self.lines.ends_with_break():
            block = nl + block.removesuffix(nl)
        edits = [Edit(at, at, block)]
        if start != end:  # `~` or `null`: it goes, with the blanks before it
            while start > 0 and self.text[start - 1] in " \t":
                start -= 1
            edits.insert(0, Edit(start, end, ""))
        return edits

    def insert(self, path: Path, key: str, tree: str | dict[str, Any]) -> Edit:
        key_quote, value_style = self.sibling_styles(path)
        entries = self.children(path)
        if self.is_flow(path):
            flow = self._flow_entry(key, tree, key_quote)
            if not entries:
                start = self.offset(self.obj.value_marks[path])
                close = self.text.find("}", start)
                if close < 0 or self.text[start + 1 : close].strip():
                    raise FixError("unexpected flow mapping")
                return Edit(start, close + 1, "{" + flow + "}")
            last = (*path, entries[-1][0])
            return Edit(self._subtree_max(last), self._subtree_max(last), ", " + flow)
        if not entries:
            raise FixError(f"{_dotted(path)} has no entries to align with")
        column = entries[0][1] - self.line_start(entries[0][1])
        parent_mark = self.obj.key_marks.get(path)
        step = column - (parent_mark.column - 1) if parent_mark is not None else 2
        step = step if step > 0 else 2

        def block(at: int) -> str:
            nl = self.lines.break_before(at)
            return "".join(
                self._block(
                    key,
                    tree,
                    column=column,
                    step=step,
                    key_quote=key_quote,
                    value_style=value_style,
                    nl=nl,
                )
            )

        # Keys already in sorted order (annotation maps as render writes them) get the new
        # key in its sorted place; otherwise (metadata: name, namespace, labels, ...) it goes
        # last, where render puts annotations.
        names = [other for other, _ in entries]
        if names == sorted(names):
            for other, offset in entries:
                if other > key and self.starts_line(offset):
                    at = self.line_start(offset)
                    return Edit(at, at, block(at))
        at = self.subtree_end((*path, entries[-1][0]))
        if at == len(self.text) and not self.lines.ends_with_break():
            # a file without a final line break keeps having none
            nl = self.lines.break_before(at)
            return Edit(at, at, nl + block(at).removesuffix(nl))
        return Edit(at, at, block(at))

    def _block(
        self,
        key: str,
        tree: str | dict[str, Any],
        *,
        column: int,
        step: int,
        key_quote: str,
        value_style: str,
        nl: str,
    ) -> list[str]:
        head = " " * column + _render_key(key, key_quote) + ":"
        if isinstance(tree, str):
            return [f"{head} {render_scalar(tree, value_style)}{nl}"]
        lines = [head + nl]
        for child, subtree in tree.items():
            lines += self._block(
                child,
                subtree,
                column=column + step,
                step=step,
                key_quote=key_quote,
                value_style=value_style,
                nl=nl,
            )
        return lines

    def _flow_entry(self, key: str, tree: str | dict[str, Any], key_quote: str) -> str:
        if isinstance(tree, str):
            return f"{_render_key(key, key_quote)}: {_double(tree)}"
        inner = ", ".join(self._flow_entry(k, v, key_quote) for k, v in tree.items())
        return f"{_render_key(key, key_quote)}: {{{inner}}}"

    # delete --------------------------------------------------------------------------

    def delete(self, path: Path) -> list[Edit]:
        if path not in self.obj.key_marks or _get(self.expected, path) is _MISSING:
            return []
        # removing the last entry of a mapping removes the mapping's own key too, so no
        # `annotations:` with a null value is left behind
        while (
            len(path) > 1
            and isinstance(path[-2], str)
            and len(self.children(path[:-1])) == 1
            and path[:-1] in self.obj.key_marks
        ):
            path = path[:-1]
        offset = self.offset(self.obj.key_marks[path])
        if self.is_flow(path[:-1]):
            edit = self._flow_delete(path, offset)
            _delete_path(self.expected, path)
            return [edit]
        if not self.starts_line(offset):
            raise FixError(f"{_dotted(path)} does not start its own line")
        _delete_path(self.expected, path)
        start, end = self.line_start(offset), self.subtree_end(path)
        if end == len(self.text) and not self.lines.ends_with_break() and start > 0:
            # the last line goes: the line before it becomes the last, without a line break
            start -= len(self.lines.breaks[start])
        return [Edit(start, end, "")]

    def _value_end(self, path: Path) -> int:
        """Offset just past the value at `path`: a scalar, or a whole flow collection."""
        mark = self.obj.value_marks.get(path)
        if mark is not None and self.text.startswith(("{", "["), self.offset(mark)):
            return _flow_end(self.text, self.offset(mark))
        span = self.obj.value_spans.get(path)
        return span[1] if span is not None else self._subtree_max(path)

    def _flow_delete(self, path: Path, start: int) -> Edit:
        """Remove `key: value` from a flow mapping with one of its separating commas."""
        end = self._value_end(path)
        after = end
        while after < len(self.text) and self.text[after] in _BLANK:
            after += 1
        if self.text.startswith(",", after):  # not the last entry: take the comma after it
            after += 1
            while after < len(self.text) and self.text[after] in " \t":
                after += 1
            return Edit(start, after, "")
        before = start
        while before > 0 and self.text[before - 1] in _BLANK:
            before -= 1
        if self.text[before - 1 : before] == ",":  # the last entry: take the comma before it
            return Edit(before - 1, end, "")
        return Edit(start, end, "")


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


def _flow_end(text: str, start: int) -> int:
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
        elif char in "\"'" and text[index - 1] in "{[,:" + _BLANK:
            index = _quoted_end(text, index)
        elif char == "#" and text[index - 1] in _BLANK:
            newline = _BREAK.search(text, index)
            index = len(text) if newline is None else newline.start()
        index += 1
    raise FixError("a flow collection does not end")


def _set_path(data: dict[str, Any], path: Path, value: Any) -> None:
    """Set `path` to `value`, making mappings of what is missing or null on the way (the
    planner has already refused any other value in the way)."""
    node: Any = data
    for part in path[:-1]:
        if isinstance(node, dict) and node.get(part) is None:
            node[part] = {}
        node = node[part]
    node[path[-1]] = value


def _dotted(path: Path) -> str:
    return ".".join(map(str, path))


def _a(value: Any) -> str:
    """What a YAML value is, for a message: "a string", "a list", ..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "null" if value is None else "a mapping"


def _delete_path(data: dict[str, Any], path: Path) -> None:
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


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


def fix_text(
    text: str,
    objects: Sequence[SourceObject],
    actions: dict[ObjectKey, list[FixAction]],
) -> tuple[str, dict[ObjectKey, dict[str, Any]]]:
    """The edited text and, per edited object, the data it must parse back to."""
    lines = _Lines(text)
    edits: list[Edit] = []
    expected: dict[ObjectKey, dict[str, Any]] = {}
    for obj in objects:
        key = (obj.doc_index, obj.item_index)
        if key not in actions:
            continue
        planner = _Planner(text, lines, obj)
        for action in actions[key]:
            if action.op == SET and action.value is not None:
                edits.extend(planner.set(action.path, action.value))
            elif action.op == DELETE:
                edits.extend(planner.delete(action.path))
        expected[key] = planner.expected
    return apply_edits(text, edits), expected


# --- files ---------------------------------------------------------------------------------


def _verify(
    name: str,
    *,
    old: Sequence[SourceObject],
    new_data: bytes,
    expected: dict[ObjectKey, dict[str, Any]],
    max_bytes: int,
    kinds: frozenset[str],
) -> None:
    from renderer.source import load_bytes

    # read as lint read it: documents of other kinds are skipped unparsed (lint never
    # checked their YAML, and no edit touches them), so they cannot block a fix
    try:
        linted = load_bytes(new_data, name, max_bytes=max_bytes, kinds=kinds, allow_empty=True)
    except InputError as exc:
        raise FixError(f"the edited file would not parse ({exc.message})") from None
    new = {(o.doc_index, o.item_index): o.data for o in linted if o.kind in kinds}
    want = {(o.doc_index, o.item_index): o.data for o in old}
    want.update(expected)
    if new != want:
        raise FixError("the edited file would not read back as intended")


def _write_atomic(path: str, data: bytes) -> None:
    # through a symlink: replace the file it points to, and keep the link
    target = FsPath(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def fix_file(
    path: str,
    objects: Sequence[SourceObject],
    actions: dict[ObjectKey, list[FixAction]],
    *,
    max_bytes: int,
    kinds: frozenset[str],
) -> bool:
    """Apply `actions` to the file at `path`; True when it was rewritten. FixError if unsafe."""
    from renderer.source.text import decode_input

    try:
        raw = FsPath(path).read_bytes()
    except OSError as exc:
        raise FixError(f"cannot read: {exc.strerror}") from None
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise FixError("UTF-16 files are not rewritten")
    try:
        text, _ = decode_input(raw, path, max_bytes)
    except InputError as exc:
        raise FixError(exc.message) from None
    new_text, expected = fix_text(text, objects, actions)
    if new_text == text:
        return False
    data = (_UTF8_BOM if raw.startswith(_UTF8_BOM) else b"") + new_text.encode("utf-8")
    _verify(path, old=objects, new_data=data, expected=expected, max_bytes=max_bytes, kinds=kinds)
    try:
        _write_atomic(path, data)
    except OSError as exc:
        raise FixError(f"cannot write: {exc.strerror or exc}") from None
    return True


def fix_findings(
    objects: Sequence[SourceObject], findings: Sequence[Finding], *, max_bytes: int
) -> FixReport:
    """Apply every fixable finding's actions, file by file; unsafe files are left alone."""
    from renderer.lint.engine import LINT_KINDS

    by_file: dict[str, dict[ObjectKey, list[FixAction]]] = {}
    for finding in findings:
        per_object = by_file.setdefault(finding.file, {})
        wanted = per_object.setdefault((finding.doc_index, finding.item_index), [])
        for action in finding.fixes:
            if action not in wanted:
                wanted.append(action)
    report = FixReport()
    for file, actions in by_file.items():
        if not any(actions.values()):
            continue
        file_objects = [o for o in objects if o.file == file]
        try:
            changed = fix_file(file, file_objects, actions, max_bytes=max_bytes, kinds=LINT_KINDS)
        except FixError as exc:
            where = f":{exc.mark.line}:{exc.mark.column}" if exc.mark is not None else ""
            report.failures.append(f"{file}{where}: {exc}")
            continue
        if changed:
            report.changed_files.append(file)
            report.fixed += sum(1 for f in findings if f.file == file and f.fixable)
    return report
