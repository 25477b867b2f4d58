"""Scalar resolution and map-key stringification exactly as sigs.k8s.io/yaml (go-yaml v2) does.

Kubernetes reads YAML with YAML 1.1 rules through go-yaml v2, then turns the result into
JSON. A scalar read differently here would change a digest, so this module mirrors
go-yaml's `resolve()` and sigs.k8s.io/yaml's key conversion rule by rule:

- plain scalars: a table lookup (booleans incl. `y`/`on`, nulls, `.inf`/`.nan`), then by
  first character: `.` -> ParseFloat; digit or sign -> timestamp check, remove `_`,
  ParseInt(base 0: 0x/0o/0b, leading 0 = octal), ParseUint, then the YAML float regex;
- quoted and block scalars are strings;
- `!!str`/`!!int`/`!!bool`/`!!null`/`!!float`/`!!timestamp` must match what the text
  resolves to (`!!float` accepts ints), `!!binary` is base64, any other tag gives a string;
- timestamps keep their original text (go-yaml's backward-compatibility rule).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from typing import Any

TAG_PREFIX = "tag:yaml.org,2002:"
STR_TAG = TAG_PREFIX + "str"
INT_TAG = TAG_PREFIX + "int"
FLOAT_TAG = TAG_PREFIX + "float"
BOOL_TAG = TAG_PREFIX + "bool"
NULL_TAG = TAG_PREFIX + "null"
TIMESTAMP_TAG = TAG_PREFIX + "timestamp"
BINARY_TAG = TAG_PREFIX + "binary"
MERGE_TAG = TAG_PREFIX + "merge"
_RESOLVABLE = frozenset({STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG, TIMESTAMP_TAG})

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1


class ResolveError(ValueError):
    """A tagged scalar whose text does not fit its tag (the caller adds file:line:column)."""


_INF = math.inf
# go-yaml's resolveMap: exact spellings only (case as listed).
_TABLE: dict[str, Any] = {"": None, "~": None, "null": None, "Null": None, "NULL": None}
for _word in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"):
    _TABLE[_word] = True
for _word in ("n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"):
    _TABLE[_word] = False
for _word in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    _TABLE[_word] = _INF
for _word in ("-.inf", "-.Inf", "-.INF"):
    _TABLE[_word] = -_INF
for _word in (".nan", ".NaN", ".NAN"):
    _TABLE[_word] = math.nan

_NUMBER_START = frozenset("0123456789+-")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_DOT_FLOAT_RE = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?\Z")
_INT_RE = re.compile(
    r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))\Z"
)
# Go time.Parse layouts go-yaml tries: "2006-1-2T15:4:5.999999999Z07:00" (and lower-case t),
# "2006-1-2 15:4:5.999999999", "2006-1-2".
_TS_RE = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))"
    r"|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?))?\Z"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_timestamp(text: str) -> bool:
    match = _TS_RE.match(text)
    if match is None:
        return False
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day > (_DAYS[month - 1] if month != 2 else (29 if leap else 28)):
        return False
    groups = match.groups()
    clock = groups[3:6] if groups[3] is not None else groups[6:9]
    if clock[0] is not None:
        hour, minute, second = (int(part) for part in clock)
        return hour < 24 and minute < 60 and second < 60
    return True


def _parse_int(plain: str) -> int | None:
    """Go strconv.ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64)."""
    match = _INT_RE.match(plain)
    if match is None:
        return None
    sign, hexa, octo, bina, zero_octal, decimal = match.groups()
    if hexa is not None:
        value = int(hexa, 16)
    elif octo is not None:
        value = int(octo, 8)
    elif bina is not None:
        value = int(bina, 2)
    elif zero_octal is not None:
        value = int(zero_octal, 8)
    else:
        value = int(decimal)
    if sign == "-":
        value = -value
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if not sign and value <= _UINT64_MAX:  # ParseUint takes no sign; a uint64 in Go
        return value
    return None


def resolve_plain(text: str) -> Any:
    """Value of an untagged plain scalar, as go-yaml v2 resolves it."""
    try:
        return _TABLE[text]
    except KeyError:
        pass
    first = text[0]
    if first == ".":
        if _DOT_FLOAT_RE.match(text):
            return float(text)
        return text
    if first not in _NUMBER_START:
        return text
    if len(text) >= 8 and text[4] == "-" and _is_timestamp(text):
        return text  # go-yaml keeps a timestamp's original text
    plain = text.replace("_", "") if "_" in text else text
    number = _parse_int(plain)
    if number is not None:
        return number
    if _FLOAT_RE.match(plain):
        value = float(plain)
        if value not in (_INF, -_INF):  # Go ParseFloat reports a range error: stays a string
            return value
    return text


def _short(tag: str) -> str:
    return "!!" + tag[len(TAG_PREFIX) :] if tag.startswith(TAG_PREFIX) else tag


def _tag_of(value: Any) -> str:
    if value is None:
        return NULL_TAG
    if isinstance(value, bool):
        return BOOL_TAG
    if isinstance(value, int):
        return INT_TAG
    if isinstance(value, float):
        return FLOAT_TAG
    return STR_TAG


def resolve_tagged(tag: str, text: str) -> Any:
    """Value of a scalar with an explicit tag (any style). Raises ResolveError on a mismatch."""
    if tag == STR_TAG:
        return text
    if tag == BINARY_TAG:
        try:
            raw = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ResolveError("!!binary value contains invalid base64 data") from exc
        return raw.decode("utf-8", "replace")
    if tag not in _RESOLVABLE:
        return text  # custom tags and `!` give the text unresolved
    if text and text[0] in _NUMBER_START and _is_timestamp(text):
        value: Any = text
        found = TIMESTAMP_TAG
    else:
        value = resolve_plain(text) if text else None
        found = _tag_of(value)
    if found == tag:
        return value
    if tag == FLOAT_TAG and found == INT_TAG and value <= _INT64_MAX:  # uint64 is not converted
        return float(value)
    raise ResolveError(f"cannot decode {_short(found)} `{text}` as a {_short(tag)}")


def format_float32_g(value: float) -> str:
    """Go strconv.FormatFloat(value, 'g', -1, 32): how sigs.k8s.io/yaml writes float map keys."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        single = value * math.inf  # beyond float32, as Go's float32() conversion gives
    if math.isinf(single):  # also a value that only rounds to infinity in float32
        return ".inf" if value > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    text = ""
    for precision in range(1, 10):  # shortest digits that round-trip through float32
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    from decimal import Decimal  # imported on the first float32 value, not at start-up

    sign, digit_tuple, exponent = Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent += len(digit_tuple) - len(digits)
    decimal_exponent = len(digits) - 1 + exponent
    prefix = "-" if sign else ""
    # shortest 'g' switches to %e when exp < -4 or exp >= 6 (eprec is 6 when shortest)
    if decimal_exponent < -4 or decimal_exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        sign_char = "-" if decimal_exponent < 0 else "+"
        return f"{prefix}{mantissa}e{sign_char}{abs(decimal_exponent):02d}"
    if exponent >= 0:
        return prefix + digits + "0" * exponent
    point = len(digits) + exponent
    if point > 0:
        return prefix + digits[:point] + "." + digits[point:]
    return prefix + "0." + "0" * -point + digits


class MapKeyError(ValueError):
    """A map key sigs.k8s.io/yaml cannot turn into a JSON object key."""


def go_key(key: Any) -> str:
    """The JSON object key sigs.k8s.io/yaml makes of a decoded YAML map key."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        if key > _INT64_MAX:
            raise MapKeyError(f"unsupported map key of type: uint64, key: {key:#x}")
        return str(key)
    if isinstance(key, float):
        return format_float32_g(key)
    if key is None:
        raise MapKeyError("unsupported map key of type: %!s(<nil>), key: <nil>")
    raise MapKeyError("invalid map key: a sequence or mapping cannot be a key")
