"""What a rule reports: one problem at one place, plus how `--fix` would repair it."""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple

from renderer.record import FrozenRecord, field
from renderer.source.model import Path, SourceObject

Severity = Literal["error", "warning"]
ERROR: Final = "error"
WARNING: Final = "warning"
SEVERITIES: Final[tuple[Severity, ...]] = (ERROR, WARNING)

# Fix operations on one value of one object (paths as in SourceObject marks).
FixOp = Literal["set", "delete"]
SET: Final = "set"  # write `value` at `path`, inserting the key (and its parents) when absent
DELETE: Final = "delete"  # remove the key at `path`


class FixAction(NamedTuple):
    """A machine-readable repair: one `set` or `delete` of one key of one object.

    Two findings may carry the same action (a stale clique binding and the map entry
    that disagrees with it both want the map rewritten); `--fix` applies it once.
    """

    op: FixOp
    path: Path
    value: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "path": list(self.path)}
        if self.op == SET:
            out["value"] = self.value
        return out


class Finding(FrozenRecord):
    """One problem, ordered by file, line, column and rule (see `sort_key`)."""

    rule: str
    severity: Severity
    message: str
    hint: str
    file: str
    line: int
    column: int
    doc_index: int = 0
    kind: str = ""
    namespace: str = ""
    name: str = ""
    item_index: int | None = None
    fixes: tuple[FixAction, ...] = field(default=(), compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, self.column, self.rule, self.message)

    @property
    def fixable(self) -> bool:
        return bool(self.fixes)

    def with_severity(self, severity: Severity) -> Finding:
        return Finding(
            self.rule,
            severity,
            self.message,
            self.hint,
            self.file,
            self.line,
            self.column,
            self.doc_index,
            self.kind,
            self.namespace,
            self.name,
            self.item_index,
            self.fixes,
        )

    def to_json(self) -> dict[str, Any]:
        """The `findings[]` entry of the json report (field list in docs/lint.md)."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "docIndex": self.doc_index,
            "itemIndex": self.item_index,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "fix": [action.to_json() for action in self.fixes],
        }


def finding_at(
    obj: SourceObject,
    path: Path,
    *,
    rule: str,
    severity: Severity,
    message: str,
    hint: str,
    key: bool = False,
    fixes: tuple[FixAction, ...] = (),
) -> Finding:
    """A finding at `path` of `obj`: its value (or key), else its nearest recorded parent key."""
    mark = obj.mark(path, key=key)
    if not key and tuple(path) not in obj.value_marks:
        # absent value: point at the nearest parent *key* that exists
        mark = obj.mark(path, key=True)
    return Finding(
        rule=rule,
        severity=severity,
        message=message,
        hint=hint,
        file=obj.file,
        line=mark.line,
        column=mark.column,
        doc_index=obj.doc_index,
        kind=obj.kind,
        namespace=obj.namespace,
        name=obj.name,
        item_index=obj.item_index,
        fixes=fixes,
    )
