"""Scalar resolution and map-key stringification exactly as sigs.k8s.io/yaml (go-yaml v2) does.

Kubernetes reads YAML with YAML 1.1 rules through go-yaml v2, then turns the result into
JSON. A scalar read differently here would change a digest, so this module mirrors
go-yaml's `resolve()` and sigs.k8s.io/yaml's key conversion rule by rule:

- plain scalars: a table lookup (booleans incl. `y`/`on`, nulls, `.inf`/`.nan`), then by
  first character: `.` -> Go ParseFloat of the raw text (so `_` between digits is allowed
  and an overflow stays a string); digit or sign -> timestamp check, remove `_`,
  ParseInt(base 0: 0x/0o/0b, leading 0 = octal), ParseUint, the YAML float regex, then
  go-yaml's `0b` fallback (ParseInt(rest, 2), which takes a sign: `0b-101` is -5);
- quoted and block scalars are strings;
- `!!str`/`!!int`/`!!bool`/`!!null`/`!!float`/`!!timestamp` must match what the text
  resolves to (`!!float` accepts ints that fit int64), `!!binary` is standard padded base64
  where only CR and LF are skipped (Go's StdEncoding), any other tag gives a string;
- timestamps keep their original text (go-yaml's backward-compatibility rule).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from functools import cache
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
# The patterns below are compiled on first use: most files hold none of the scalars that
# reach some of them (dates, `.5`, `0b-1`), and a compile costs about as much as reading
# a small file.


@cache
def _float_re() -> re.Pattern[str]:
    return re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")


# Go ParseFloat on text starting with `.`: digits, `_` only between two digits (Go's
# underscoreOK), an optional exponent whose first character after the sign is a digit.
@cache
def _dot_float_re() -> re.Pattern[str]:
    return re.compile(r"\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?\Z")


# go-yaml's fallback for `0b` text base 0 refused: ParseInt(rest, 2, 64) accepts one sign.
@cache
def _signed_binary_re() -> re.Pattern[str]:
    return re.compile(r"0b([-+])([01]+)\Z")


@cache
def _int_re() -> re.Pattern[str]:
    return re.compile(
        r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))\Z"
    )


# Go time.Parse layouts go-yaml tries: "2006-1-2T15:4:5.999999999Z07:00" (and lower-case t),
# "2006-1-2 15:4:5.999999999", "2006-1-2". As time.Parse reads them: one- or two-digit
# fields; fractional seconds after `.` or `,`; a layout space matches one or more spaces;
# the zone is `Z` or a sign with hh:mm (hours up to 24 and minutes up to 60 are accepted).
@cache
def _ts_re() -> re.Pattern[str]:
    return re.compile(
        r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
        r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?"
        r"(?:Z|[-+]([0-9]{2}):([0-9]{2})))"
        r"|(?: +([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?))?\Z"
    )


_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_timestamp(text: str) -> bool:
    match = _ts_re().match(text)
    if match is None:
        return False
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day > (_DAYS[month - 1] if month != 2 else (29 if leap else 28)):
        return False
    groups = match.groups()
    clock = groups[3:6] if groups[3] is not None else groups[8:11]
    if clock[0] is not None:
        hour, minute, second = (int(part) for part in clock)
        if not (hour < 24 and minute < 60 and second < 60):
            return False
    # time.Parse's zone offset range check uses > (24:00 and xx:60 pass)
    return groups[6] is None or (int(groups[6]) <= 24 and int(groups[7]) <= 60)


def _parse_int(plain: str) -> int | None:
    """Go strconv.ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64)."""
    match = _int_re().match(plain)
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
    elif len(decimal) > 20:  # beyond uint64: Go reports a range error (and int() has a limit)
        return None
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
        if _dot_float_re().match(text):
            value = float(text.replace("_", ""))
            if value != _INF:  # Go ParseFloat reports a range error: stays a string
                return value
        return text
    if first not in _NUMBER_START:
        return text
    if len(text) >= 8 and text[4] == "-" and _is_timestamp(text):
        return text  # go-yaml keeps a timestamp's original text
    plain = text.replace("_", "") if "_" in text else text
    number = _parse_int(plain)
    if number is not None:
        return number
    if _float_re().match(plain):
        value = float(plain)
        if value not in (_INF, -_INF):  # Go ParseFloat reports a range error: stays a string
            return value
    if plain.startswith("0b"):
        match = _signed_binary_re().match(plain)
        if match is not None:  # (unsigned `0b...` was already read by ParseInt base 0)
            value = int(match[2], 2)
            value = -value if match[1] == "-" else value
            if _INT64_MIN <= value <= _INT64_MAX:
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


def _binary(text: str) -> str:
    """Go base64.StdEncoding.DecodeString, then the bytes as Go's JSON encoder writes them."""
    if any(char not in _BASE64_CHARS for char in text):
        raise ResolveError("!!binary value contains invalid base64 data")
    try:  # StdEncoding skips only CR and LF; padding is required
        raw = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ResolveError("!!binary value contains invalid base64 data") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        # encoding/json writes U+FFFD for each byte utf8.DecodeRune refuses (size 1), where
        # Python's "replace" would write one for a whole truncated sequence.
        return raw.decode("utf-8", "surrogateescape").translate(_ESCAPED_BYTES)


_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\r\n")
_ESCAPED_BYTES = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")


def resolve_tagged(tag: str, text: str) -> Any:
    """Value of a scalar with an explicit tag (any style). Raises ResolveError on a mismatch."""
    if tag == STR_TAG:
        return text
    if tag == BINARY_TAG:
        return _binary(text)
    if tag not in _RESOLVABLE:
        return text  # custom tags and `!` give the text unresolved
    # go-yaml looks for a timestamp only untagged or under !!timestamp: `!!int 2025-01-01`
    # is refused as a !!str
    if tag == TIMESTAMP_TAG and text and text[0] in _NUMBER_START and _is_timestamp(text):
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


def _shortest_float32(value: float) -> tuple[str, int]:
    """Digits and decimal exponent Go 1.26 strconv (Dragonbox) writes for a positive float32.

    The shortest decimal inside the float32's rounding interval (both ends included when the
    significand is even); several of that length: the nearest, a tie going to the even one.
    A power of two has a lower neighbour twice as close (its interval is lopsided) and there
    Dragonbox breaks a tie upwards instead.
    """
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    biased, fraction = bits >> 23, bits & 0x7FFFFF
    mantissa = fraction | (1 << 23) if biased else fraction
    exp2 = (biased or 1) - 150
    lopsided = fraction == 0 and biased > 1
    # exact value and interval ends in units of 2^(exp2 - 2)
    if exp2 >= 2:
        scale_num, scale_den = 1 << (exp2 - 2), 1
    else:
        scale_num, scale_den = 1, 1 << (2 - exp2)
    centre = 4 * mantissa
    low = centre - (1 if lopsided else 2)
    high = centre + 2
    closed = mantissa % 2 == 0
    step_power = math.floor(math.log10(value)) + 2  # candidates n * 10^step_power, coarse first
    while True:
        if step_power >= 0:  # one step of n, in interval units: unit_num / unit_den
            unit_num, unit_den = 10**step_power * scale_den, scale_num
        else:
            unit_num, unit_den = scale_den, 10**-step_power * scale_num
        lo_n = -((-low * unit_den) // unit_num)
        hi_n = (high * unit_den) // unit_num
        if not closed:
            if lo_n * unit_num == low * unit_den:
                lo_n += 1
            if hi_n * unit_num == high * unit_den:
                hi_n -= 1
        if lo_n <= hi_n:
            n = (centre * unit_den) // unit_num  # the candidate at or below the value
            if n < lo_n:
                n = lo_n
            else:
                behind = centre * unit_den - n * unit_num
                ahead = (n + 1) * unit_num - centre * unit_den
                if ahead < behind or (ahead == behind and (lopsided or n % 2 == 1)):
                    n += 1
            n = min(n, hi_n)
            if lopsided and exp2 == -77 and n % 2 == 1 and n - 1 >= lo_n:
                n -= 1  # Dragonbox's special case for this binary exponent
            text = str(n).rstrip("0")
            return text, step_power + len(str(n)) - 1
        step_power -= 1


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
    digits, decimal_exponent = _shortest_float32(abs(single))
    exponent = decimal_exponent - len(digits) + 1
    sign = single < 0
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
