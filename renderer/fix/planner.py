"""The planner: the surgical edits that set or delete keys of one object, computed on the
original text from the reader's positions (see `renderer.fix`), and the data the edited
object must parse back to."""

from __future__ import annotations

import copy as copying
from typing import Any

from renderer.fix.edits import Edit, FixError
from renderer.fix.lines import BLANK, Lines, flow_end
from renderer.fix.scalars import double, render_key, render_scalar
from renderer.source.model import Mark, Path, SourceObject
from renderer.yamlout import format_scalar

_MISSING = object()


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


class Planner:
    """Edits for the actions on one object, against the original file text."""

    def __init__(
        self, text: str, lines: Lines, obj: SourceObject, *, json_syntax: bool = False
    ) -> None:
        self.text = text
        self.lines = lines
        self.obj = obj
        # a JSON file stays JSON: flow entries only, keys and values double-quoted
        self.json_syntax = json_syntax
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
        """(key quote, value style) of the mapping's existing entries, to write alike.

        Taken from the first entry whose value could have been written plain (a quoted JSON
        annotation says nothing about how the file quotes a plain value); when there is none,
        the first entry's key quote and a plain value (quoted only where it must be).
        """
        if self.json_syntax:
            return '"', '"'

        def plain_ok(value: str) -> bool:  # the renderer would write it plain
            return not format_scalar(value).startswith(("'", '"'))

        first_key_quote: str | None = None
        for key, offset in self.children(path):
            key_quote = self.text[offset] if self.text[offset] in "\"'" else ""
            if first_key_quote is None:
                first_key_quote = key_quote
            value = _get(self.obj.data, (*path, key))
            if isinstance(value, str) and plain_ok(value):
                span = self.obj.value_spans.get((*path, key))
                return key_quote, span[2] if span is not None and span[2] in "\"'" else ""
        return first_key_quote or "", ""

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
                return [Edit(start, end, double(value) + tail)]
            text = render_scalar(value, style)
            return [Edit(start, end, self._after_blank(start, end, text))]
        if path in self.obj.value_marks:
            current = _get(self.obj.data, path)
            what = (
                "comes from an alias or a merge key (`*name`, `<<`), which --fix does not rewrite"
                if isinstance(current, str)  # a string without a span of its own
                else f"is {_a(current)}, not a string"
            )
            raise FixError(f"{_dotted(path)} {what}; fix it by hand", self.obj.value_marks[path])
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
            or self.json_syntax
            or self.is_flow(path[:-1])
            or self.line_start(start) != self.line_start(self.offset(key_mark))
        ):
            quote = '"' if self.json_syntax else ""
            flow = "{" + ", ".join(self._flow_entry(k, v, quote) for k, v in tree.items()) + "}"
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
        if self.json_syntax or self.is_flow(path):
            flow = self._flow_entry(key, tree, key_quote)
            if not entries:
                mark = self.obj.value_marks.get(path)
                if mark is None:
                    raise FixError(f"no position recorded for {_dotted(path)}")
                start = self.offset(mark)
                close = self.text.find("}", start)
                if close < 0 or self.text[start + 1 : close].strip():
                    raise FixError("unexpected flow mapping")
                return Edit(start, close + 1, "{" + flow + "}")
            # after the last entry's value, past its closing bracket when it is a collection
            after = self._value_end((*path, entries[-1][0]))
            return Edit(after, after, ", " + flow)
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
        head = " " * column + render_key(key, key_quote) + ":"
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
            return f"{render_key(key, key_quote)}: {double(tree)}"
        inner = ", ".join(self._flow_entry(k, v, key_quote) for k, v in tree.items())
        return f"{render_key(key, key_quote)}: {{{inner}}}"

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
            return flow_end(self.text, self.offset(mark))
        span = self.obj.value_spans.get(path)
        return span[1] if span is not None else self._subtree_max(path)

    def _flow_delete(self, path: Path, start: int) -> Edit:
        """Remove `key: value` from a flow mapping with one of its separating commas."""
        end = self._value_end(path)
        after = end
        while after < len(self.text) and self.text[after] in BLANK:
            after += 1
        if self.text.startswith(",", after):  # not the last entry: take the comma after it
            after += 1
            while after < len(self.text) and self.text[after] in " \t":
                after += 1
            return Edit(start, after, "")
        before = start
        while before > 0 and self.text[before - 1] in BLANK:
            before -= 1
        if self.text[before - 1 : before] == ",":  # the last entry: take the comma before it
            return Edit(before - 1, end, "")
        return Edit(start, end, "")


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
