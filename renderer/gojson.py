"""Go `encoding/json` text rules: HTML-safe string escaping, float64 formatting, and
json.Marshal of an untyped value (`marshal_any`).

Both the YAML reader (numbers reach Kubernetes as Go-formatted JSON) and the binding
encoder (the digest is over Go's bytes) need exactly these rules, so they live here once.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from typing import Any

_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
# Everything Go's encoder rewrites: C0 controls, quote, backslash, the HTML-unsafe
# trio, the two JavaScript line separators, and lone surrogates (invalid UTF-8 in Go).
# Compiled on first use, and only for a string beyond ASCII: the class's ranges beyond
# Latin-1 cost ten times as much to compile as its ASCII members, all an ASCII string needs.
_NEEDS_ESCAPE_CLASS = '[\x00-\x1f"\\\\<>&\u2028\u2029\ud800-\udfff]'
_NEEDS_ESCAPE_ASCII = re.compile('[\x00-\x1f"\\\\<>&]')


@cache
def _needs_escape() -> re.Pattern[str]:
    return re.compile(_NEEDS_ESCAPE_CLASS)


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    if "\ud800" <= ch <= "\udfff":
        return "\ufffd"
    return f"\\u{ord(ch):04x}"


def encode_string(value: str) -> str:
    """Return `value` as a quoted JSON string, byte-for-byte as Go's json.Marshal writes it."""
    pattern = _NEEDS_ESCAPE_ASCII if value.isascii() else _needs_escape()
    return '"' + pattern.sub(_escape_char, value) + '"'


def format_float(value: float) -> str:
    """Format a float64 as Go's encoding/json does (shortest digits, 'f' or 'e' by magnitude).

    Raises ValueError for NaN and infinities, which Go refuses to encode.
    """
    if math.isnan(value):
        raise ValueError("json: unsupported value: NaN")
    if math.isinf(value):
        raise ValueError(f"json: unsupported value: {'+' if value > 0 else '-'}Inf")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    from decimal import Decimal  # noqa: PLC0415 - decimal only once a non-zero float is encoded

    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exponent += len(digit_tuple) - len(digits)
    prefix = "-" if sign else ""
    magnitude = abs(value)
    if 1e-6 <= magnitude < 1e21:
        if exponent >= 0:
            return prefix + digits + "0" * exponent
        point = len(digits) + exponent
        if point > 0:
            return prefix + digits[:point] + "." + digits[point:]
        return prefix + "0." + "0" * -point + digits
    decimal_exponent = len(digits) - 1 + exponent
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    # strconv writes at least two exponent digits; encoding/json then trims "e-07" to "e-7".
    exp_text = f"{abs(decimal_exponent):02d}"
    if decimal_exponent < 0 and len(exp_text) == 2 and exp_text[0] == "0":
        exp_text = exp_text[1]
    return f"{prefix}{mantissa}e{'-' if decimal_exponent < 0 else '+'}{exp_text}"


def format_number(value: int | float) -> str:
    """JSON text of a YAML-read number: exact decimal for ints, Go formatting for floats."""
    if isinstance(value, bool):
        raise TypeError("bool is not a number")
    if isinstance(value, int):
        return str(value)
    return format_float(value)


def _utf8_key(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


def marshal_any(value: Any, *, float64_numbers: bool = False, ordered: bool = False) -> str:
    """json.Marshal of an untyped value (``map[string]any``, ``[]any``, scalars): compact,
    HTML-safe strings, map keys sorted by their UTF-8 bytes. Integers are written as the
    int64 they are in an unstructured object; ``float64_numbers`` writes every number as
    the float64 json.Unmarshal into ``any`` makes of it; ``ordered`` keeps each dict's own
    key order (a value already encoded in Go's field order). ValueError for NaN or an
    infinity (Go has no JSON text for them), TypeError for a value JSON does not hold.

    Recursive, one frame per level (plain loops, no generator frames): readers cap nesting
    (256 levels) well below Python's recursion limit."""
    if value is None or value.__class__ is bool:
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, int):
        return format_float(float(value)) if float64_numbers else str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, list | tuple):
        items = []
        for item in value:
            items.append(marshal_any(item, float64_numbers=float64_numbers, ordered=ordered))
        return "[" + ",".join(items) + "]"
    if isinstance(value, dict):
        members = []
        for key in value if ordered else sorted(value, key=_utf8_key):
            text = marshal_any(value[key], float64_numbers=float64_numbers, ordered=ordered)
            members.append(encode_string(key) + ":" + text)
        return "{" + ",".join(members) + "}"
    raise TypeError(f"no Go JSON form for {type(value).__name__}")


# JSON read from an input (an annotation holding a preserved spec, a binding map) is
# processed by recursive code; past this depth it is refused rather than risk Python's
# recursion limit. Go reads up to 10,000 levels, so an emulation site that meets this
# says the operator's result is not reproduced instead of guessing.
MAX_JSON_DEPTH = 256


class TooDeepError(ValueError):
    """JSON nested deeper than MAX_JSON_DEPTH (readable to Go, not read here)."""


def loads(raw: str | bytes, *, unique_keys: bool = False) -> Any:
    """`json.loads`, refusing JSON nested deeper than MAX_JSON_DEPTH with TooDeepError
    (a ValueError: callers that treat unreadable JSON as such keep doing so); with
    `unique_keys`, an object naming a key twice is a ValueError too (Go keeps the last)."""
    try:
        value = json.loads(raw, object_pairs_hook=_unique if unique_keys else None)
    except RecursionError:
        raise TooDeepError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    stack = [(value, 1)]
    while stack:  # (iterative: the point is not to recurse)
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise TooDeepError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} is given twice")
        found[key] = value
    return found
