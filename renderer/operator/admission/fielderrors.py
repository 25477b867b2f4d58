"""apimachinery's field errors (util/validation/field) and the Invalid status they aggregate to.

The validating webhook collects ``field.ErrorList`` values and returns
``errors.NewInvalid(GroupKind, name, list)``; the text of that error is what the operator
answers. This module rebuilds the same text: the field path (``a.b[2].c[key]``), the error
type word, the bad value (Go's rules: numbers and bools bare, strings quoted as strconv.Quote
does, nil as ``null``, anything else as JSON), the detail, and the aggregate
(one error as is, several as ``[e1, e2]`` with exact duplicates dropped).
"""

from __future__ import annotations

from typing import Any

from renderer.gojson import marshal_any
from renderer.goruntime.strconv import quote as go_quote
from renderer.operator.admission.errors import PathTuple
from renderer.record import FrozenRecord


class Key(FrozenRecord):
    """A map-key path segment, printed ``[key]`` (field.Path.Key)."""

    key: str


Segment = str | int | Key


class Path(FrozenRecord):
    """field.Path: child names, ``[i]`` indexes and ``[key]`` keys."""

    segments: tuple[Segment, ...] = ()

    def child(self, *names: str) -> Path:
        """Path.Child(name, moreNames...)."""
        return Path(self.segments + names)

    def index(self, i: int) -> Path:
        """Path.Index(i)."""
        return Path((*self.segments, i))

    def key(self, k: str) -> Path:
        """Path.Key(k)."""
        return Path((*self.segments, Key(k)))

    def __str__(self) -> str:
        out: list[str] = []
        for seg in self.segments:
            if isinstance(seg, Key):
                out.append(f"[{seg.key}]")
            elif isinstance(seg, int):
                out.append(f"[{seg}]")
            else:
                out.append(("." if out else "") + seg)
        return "".join(out)

    def as_tuple(self) -> PathTuple:
        """The JSON keys and indexes, keys unwrapped."""
        return tuple(s.key if isinstance(s, Key) else s for s in self.segments)


def new_path(*names: str) -> Path:
    """field.NewPath(name, moreNames...)."""
    return Path(names)


REQUIRED = "Required value"
FORBIDDEN = "Forbidden"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"

# A sentinel distinct from None (Go nil, printed "null"): the error type carries no value.
_NO_VALUE: Any = object()


class FieldError(FrozenRecord):
    """field.Error: type, field path, bad value and detail."""

    type: str
    field: Path
    bad_value: Any
    detail: str

    def body(self) -> str:
        """Error.ErrorBody."""
        text = self.type
        if self.bad_value is not _NO_VALUE:
            text += ": " + format_bad_value(self.bad_value)
        if self.detail:
            text += ": " + self.detail
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def required(path: Path, detail: str) -> FieldError:
    """field.Required."""
    return FieldError(REQUIRED, path, _NO_VALUE, detail)


def forbidden(path: Path, detail: str) -> FieldError:
    """field.Forbidden."""
    return FieldError(FORBIDDEN, path, _NO_VALUE, detail)


def invalid(path: Path, value: Any, detail: str) -> FieldError:
    """field.Invalid (``value`` None is Go's nil)."""
    return FieldError(INVALID, path, value, detail)


def duplicate(path: Path, value: Any) -> FieldError:
    """field.Duplicate."""
    return FieldError(DUPLICATE, path, value, "")


def not_supported(path: Path, value: Any, valid: list[str]) -> FieldError:
    """field.NotSupported: the detail lists the quoted valid values."""
    detail = ""
    if valid:
        detail = "supported values: " + ", ".join(go_quote(v) for v in valid)
    return FieldError(NOT_SUPPORTED, path, value, detail)


def format_bad_value(value: Any) -> str:
    """How ErrorBody prints a bad value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


def go_json(value: Any) -> str:
    """Compact json.Marshal text (HTML-safe strings, map keys sorted)."""

    return marshal_any(value)


def aggregate_text(errs: list[FieldError]) -> tuple[str, list[FieldError]]:
    """ErrorList.ToAggregate().Error(), and the errors it kept (duplicate texts dropped)."""
    kept: list[FieldError] = []
    seen: set[str] = set()
    for err in errs:
        text = str(err)
        if text in seen:
            continue
        seen.add(text)
        kept.append(err)
    if len(kept) == 1:
        return str(kept[0]), kept
    return "[" + ", ".join(str(e) for e in kept) + "]", kept


def invalid_status_message(group_kind: str, name: str, errs: list[FieldError]) -> str:
    """errors.NewInvalid(GroupKind, name, errs).Error()."""
    text, _ = aggregate_text(errs)
    return f"{group_kind} {go_quote(name)} is invalid: {text}"
