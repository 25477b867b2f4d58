"""Go `encoding/json` decoding rules for scalars, applied to values the YAML reader produced.

A snapshot reaches the operator as JSON text (YAMLToJSON of the file, then the API server's
JSON). Ints are exact Python ints; a YAML float reaches Go as its Go-formatted text, so
`1.0` arrives as `1` (accepted by an int field) while `1.5` and `1e+21` do not parse with
strconv.ParseInt and are rejected, as Go rejects them. Every function returns None where Go
would fail, and the caller names the field.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from renderer.gojson import format_float

INT32_RANGE = (-(2**31), 2**31 - 1)
INT64_RANGE = (-(2**63), 2**63 - 1)
RANGES = {"int32": INT32_RANGE, "int64": INT64_RANGE}

_GO_INT_TEXT = re.compile(r"-?[0-9]+")


# Lone surrogates cannot come from valid UTF-8 and Go would turn each invalid byte into
# its own U+FFFD; refuse them rather than guess how many bytes the producer wrote.
@cache
def _surrogate() -> re.Pattern[str]:  # compiled on first use: only text beyond ASCII needs it
    return re.compile("[\ud800-\udfff]")


def go_int(value: Any, kind: str) -> int | None:
    """The integer Go stores for a JSON number in an `int32`/`int64` field, else None."""
    low, high = RANGES[kind]
    if type(value) is int:
        number = value
    elif type(value) is float:
        try:
            text = format_float(value)
        except ValueError:  # NaN / Inf: Go cannot even write them as JSON
            return None
        if not _GO_INT_TEXT.fullmatch(text):
            return None
        number = int(text)
    else:
        return None
    if number < low or number > high:
        return None
    return number


def describe(value: Any) -> str:
    """How a value reads in a message: its JSON type, and the value when it is short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean " + ("true" if value else "false")
    if isinstance(value, int):
        return f"number {value}"
    if isinstance(value, float):
        try:
            return f"number {format_float(value)}"
        except ValueError:
            return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def has_surrogate(text: str) -> bool:
    """True when `text` holds a lone surrogate (not representable as UTF-8)."""
    return not text.isascii() and _surrogate().search(text) is not None


def format_path(path: tuple[str | int, ...]) -> str:
    """`spec.job.podTemplateSpec.spec.containers[0].ports[1]`, `metadata.labels["a/b"]`."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif re.fullmatch(r"[A-Za-z0-9_-]+", part):
            out.append(("." if out else "") + part)
        else:
            escaped = part.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'["{escaped}"]')
    return "".join(out) or "<root>"
