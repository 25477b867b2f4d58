"""`lint --fix`: surgical text edits of YAML files, verified before they are written.

Each fix is a `FixAction` (set or delete one key of one object). Edits are computed on the
decoded file text from the reader's positions (`load_bytes(..., spans=True)`): a scalar is
replaced within its span in its own quoting style; a missing key is inserted as a new line
at the indentation of its siblings (under a new `annotations:` when there is none, or under
a null one: `annotations:`, `~`); a key line is deleted (in a flow mapping: the entry and
one separating comma). A JSON file (as kubectl tells one: its first non-blank character
is `{`) stays JSON: entries go in flow form with double-quoted keys, and the edited text
must still decode as JSON. Lines are the reader's (LF, CR LF, CR, NEL, LS and PS each end one),
and a new line ends with the break of the line before it. Every other byte stays as it was.
The edited text is parsed again and must give exactly the intended values (everything else
equal), else the file is left alone and the reason reported (fail closed): so is a value in
the way that is neither a mapping nor null (`annotations: text`), for a person to fix.
Writes are atomic: a temp file in the same directory, then `os.replace`.

Modules: `edits` (an edit, applying edits, `FixError`), `lines` (the reader's lines and
flow ends), `scalars` (YAML text of keys and values), `planner` (the edits per object);
this one reads, verifies and writes files.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from renderer.atomic import write_atomic
from renderer.errors import InputError
from renderer.fix.edits import Edit, FixError, apply_edits
from renderer.fix.lines import Lines
from renderer.fix.planner import Planner
from renderer.fix.scalars import render_scalar
from renderer.lint.engine import LINT_KINDS
from renderer.lint.finding import DELETE, SET, Finding, FixAction
from renderer.source import load_bytes
from renderer.source.files import open_regular
from renderer.source.model import SourceObject
from renderer.source.text import decode_input

if TYPE_CHECKING:
    from renderer.source.files import ReadMemo

# the names importers used when this was one module
__all__ = [
    "Edit",
    "FixError",
    "FixReport",
    "ObjectKey",
    "apply_edits",
    "fix_file",
    "fix_findings",
    "fix_text",
    "render_scalar",
]

_UTF8_BOM = b"\xef\xbb\xbf"

ObjectKey = tuple[int, int | None]  # (doc_index, item_index)


@dataclass
class FixReport:
    changed_files: list[str] = field(default_factory=list)
    fixed: int = 0  # findings whose every action was written
    failures: list[str] = field(default_factory=list)  # "file: reason"


def is_json_text(text: str) -> bool:
    """Whether kubectl reads `text` as JSON: its first character after blanks is `{` (it
    sniffs a stream this way before choosing its decoder)."""
    return text.lstrip(" \t\r\n").startswith("{")


def _json_stream_ok(text: str) -> bool:
    """Whether `text` is a stream of JSON values separated by blanks only."""
    decoder = json.JSONDecoder()
    index, end = 0, len(text)
    try:
        while True:
            while index < end and text[index] in " \t\r\n":
                index += 1
            if index == end:
                return True
            _, index = decoder.raw_decode(text, index)
    except ValueError:
        return False


def fix_text(
    text: str,
    objects: Sequence[SourceObject],
    actions: dict[ObjectKey, list[FixAction]],
) -> tuple[str, dict[ObjectKey, dict[str, Any]]]:
    """The edited text and, per edited object, the data it must parse back to."""
    lines = Lines(text)
    json_syntax = is_json_text(text)
    edits: list[Edit] = []
    expected: dict[ObjectKey, dict[str, Any]] = {}
    for obj in objects:
        key = (obj.doc_index, obj.item_index)
        if key not in actions:
            continue
        planner = Planner(text, lines, obj, json_syntax=json_syntax)
        for action in actions[key]:
            if action.op == SET and action.value is not None:
                edits.extend(planner.set(action.path, action.value))
            elif action.op == DELETE:
                edits.extend(planner.delete(action.path))
        expected[key] = planner.expected
    return apply_edits(text, edits), expected


def _verify(
    name: str,
    *,
    old: Sequence[SourceObject],
    new_data: bytes,
    expected: dict[ObjectKey, dict[str, Any]],
    max_bytes: int,
    kinds: frozenset[str],
) -> list[SourceObject]:
    """The edited file's objects as lint reads them; FixError unless they are the intended
    ones."""
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
    return linted


def fix_file(
    path: str,
    objects: Sequence[SourceObject],
    actions: dict[ObjectKey, list[FixAction]],
    *,
    max_bytes: int,
    kinds: frozenset[str],
    memo: ReadMemo | None = None,
) -> bool:
    """Apply `actions` to the file at `path`; True when it was rewritten. FixError if unsafe.

    With a `memo`, the objects of the bytes written (read back to verify them, as lint
    reads a file) are kept in it, so that linting the file again need not parse it again.
    """
    try:
        with open_regular(path) as handle:
            raw = handle.read()
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
    if is_json_text(text) and _json_stream_ok(text) and not _json_stream_ok(new_text):
        # (the YAML reader below would accept it: kubectl would not)
        raise FixError("the edited file would no longer be JSON")
    data = (_UTF8_BOM if raw.startswith(_UTF8_BOM) else b"") + new_text.encode("utf-8")
    linted = _verify(
        path, old=objects, new_data=data, expected=expected, max_bytes=max_bytes, kinds=kinds
    )
    try:
        # through a symlink: replace the file it points to (keeping the link), with its mode
        target = os.path.realpath(path)
        write_atomic(target, data, mode=stat.S_IMODE(FsPath(target).stat().st_mode))
    except OSError as exc:
        raise FixError(f"cannot write: {exc.strerror or exc}") from None
    if memo is not None:
        memo.put(
            path, data, linted, kinds=kinds, max_bytes=max_bytes, allow_empty=True, spans=False
        )
    return True


def fix_findings(
    objects: Sequence[SourceObject],
    findings: Sequence[Finding],
    *,
    max_bytes: int,
    memo: ReadMemo | None = None,
) -> FixReport:
    """Apply every fixable finding's actions, file by file; unsafe files are left alone.
    `memo`: as in `fix_file`."""
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
            changed = fix_file(
                file, file_objects, actions, max_bytes=max_bytes, kinds=LINT_KINDS, memo=memo
            )
        except FixError as exc:
            where = f":{exc.mark.line}:{exc.mark.column}" if exc.mark is not None else ""
            report.failures.append(f"{file}{where}: {exc}")
            continue
        if changed:
            report.changed_files.append(file)
            report.fixed += sum(1 for f in findings if f.file == file and f.fixable)
    return report
