"""The float zero as a map key: 0.0 and -0.0 are one Go map key but two JSON keys.

go-yaml decodes `0.0` and `-0.0` to float64 keys that compare equal, so a Go map holds at
most one of them and keeps the spelling of the last assignment; sigs.k8s.io/yaml then
writes it as the JSON key "0" or "-0". The builder tracks that one key per mapping here:
a second literal write is a duplicate, a merge or a literal key may replace the other
spelling, and a write is ambiguous when the float zero shares its JSON key with another
Go key (the string "0", the int 0). Errors are raised as ZeroKeyError without a position;
the builder adds it, as it does for resolve's MapKeyError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.source.resolve import go_key

if TYPE_CHECKING:
    from renderer.source.build import _Frame
    from renderer.source.model import Mark, Path


class ZeroKeyError(ValueError):
    """A write of the float zero key that go-yaml would treat as a duplicate or that
    cannot be told apart from another key in the JSON result."""


class Zero:
    """Where a map's float64 zero key is: its JSON key ("0" or "-0", the later spelling, as
    a Go map keeps the key of the last assignment), whether it was ever written literally
    (a second literal write is a duplicate), whether another Go key (a string "0", an int
    0) shares that JSON key, making the one dict entry stand for two Go entries, and the
    position of its last write (the key, or the `<<` of a merge)."""

    __slots__ = ("literal", "mark", "shared", "skey")

    def __init__(self, skey: str, literal: bool, shared: bool, mark: Mark) -> None:
        self.skey = skey
        self.literal = literal
        self.shared = shared
        self.mark = mark


def go_repr(key: Any) -> str:
    """A key as go-yaml's error messages spell it (strings quoted)."""
    return f'"{key}"' if isinstance(key, str) else go_key(key)


def _zero_error(kind: str, key: Any, zero: Zero) -> ZeroKeyError:
    twin, first_line = zero.skey, f"first set on line {zero.mark.line}"
    if kind == "duplicate":
        message = (
            f"duplicate key {go_repr(key)} (the float {twin} is the same Go map key,"
            f" {first_line}): each key may appear once in a mapping"
        )
    else:
        message = (
            f"cannot read key {go_repr(key)}: it replaces the merged float key {twin}"
            f" ({first_line}), which shares its JSON key with another key; write each"
            " key once"
        )
    return ZeroKeyError(message)


def _drop_twin(
    top: _Frame, twin: str, key_marks: dict[Path, Mark], value_marks: dict[Path, Mark]
) -> None:
    """Remove the entry of the float zero spelled `twin`: a write of the other spelling
    assigns to the same Go key (0.0 == -0.0), and the Go map keeps the later spelling."""
    del top.container[twin]
    if top.merged is not None:
        top.merged.discard(twin)
    path = (*top.path, twin)
    key_marks.pop(path, None)
    value_marks.pop(path, None)


def literal_zero(  # noqa: PLR0917 - helper of the builder's hot loop
    top: _Frame,
    skey: str,
    key: float,
    mark: Mark,
    key_marks: dict[Path, Mark],
    value_marks: dict[Path, Mark],
) -> None:
    """A literal float key 0 or -0 (the duplicate check has already seen the same
    spelling). Raises ZeroKeyError; the error is at `mark`."""
    zero = top.zero
    if zero is None:
        top.zero = Zero(skey, True, skey in top.container, mark)
        return
    if zero.skey == skey:
        if zero.literal:  # another key (the int 0, the string "0") hid it from typed
            raise _zero_error("duplicate", key, zero)
        zero.literal = True  # overrides a merged float zero: allowed
        zero.mark = mark
        return
    twin = zero.skey
    if zero.literal:
        raise _zero_error("duplicate", key, zero)
    if zero.shared:
        raise _zero_error("ambiguous", key, zero)
    _drop_twin(top, twin, key_marks, value_marks)  # overrides a merged float zero
    if top.typed is not None:
        top.typed.pop(twin, None)
    top.zero = Zero(skey, True, skey in top.container, mark)


def merged_zero(  # noqa: PLR0917 - helper of the builder's merge
    top: _Frame,
    skey: str,
    source: Zero,
    mark: Mark,
    key_marks: dict[Path, Mark],
    value_marks: dict[Path, Mark],
) -> bool:
    """A merge writes a float key 0 or -0; True when the key counts as merged (may be
    overridden later). Raises ZeroKeyError; the error is at `mark`."""
    container = top.container
    zero = top.zero
    if zero is None or zero.skey == skey:
        if zero is None:
            top.zero = Zero(skey, False, source.shared or skey in container, mark)
        else:
            zero.shared = zero.shared or source.shared
            zero.mark = mark
        return skey not in container
    twin = zero.skey
    if zero.shared:
        raise _zero_error("ambiguous", float(skey), zero)
    was_merged = top.merged is not None and twin in top.merged
    _drop_twin(top, twin, key_marks, value_marks)
    typed = top.typed
    if typed is not None and twin in typed:
        identity = typed.pop(twin)
        if skey not in container:
            typed[skey] = identity  # a later literal 0.0 or -0.0 is still a duplicate
    top.zero = Zero(skey, zero.literal, source.shared or skey in container, mark)
    return was_merged and skey not in container
