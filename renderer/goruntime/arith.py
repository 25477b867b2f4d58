"""Go's fixed-width integer arithmetic: an int64 result wraps around, it never grows."""

from __future__ import annotations


def wrap_int64(value: int) -> int:
    """The int64 Go holds after an operation whose exact result is `value` (two's complement)."""
    return (value + 2**63) % 2**64 - 2**63
