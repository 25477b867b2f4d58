"""`resource.Quantity` decoded and re-encoded exactly as apimachinery v0.36.2 does it.

The operator decodes every Quantity field of the checkpoint into a Go `resource.Quantity`
and re-encodes it before hashing, so the digest covers Go's *re-encoded* text, not the
file's spelling. This module reproduces that round trip: `UnmarshalJSON` (quote removal
without unescaping, `strings.TrimSpace`, `ParseQuantity`) followed by `MarshalJSON`
(the kept input text when Go's "already canonical" fast path applies, else the canonical
form). Checked row by row against `vectors/quantity.jsonl` (computed with v0.34.3; Go at
v0.36.2, the operator's pin, gives the same 1,042 rows).

Go does arithmetic on two representations and their quirks show in the output, so both are
modelled: a fast int64 path (int32 scales that wrap, one-shot exponent alignment) and the
arbitrary-precision inf.Dec path (round up to nano, BinarySI cap at 2^63-1). Python ints are
exact; the only thing this module refuses that Go accepts is an inf.Dec computation so large
that Go takes well over ten seconds or never finishes (an exponent that wraps to -2^31, a
huge value that needs a power of ten past 10^300000, or thousands of digits); see the limits
below.
"""

from __future__ import annotations

import functools

from renderer.gojson import encode_string, format_float
from renderer.goruntime.strconv import parse_int

__all__ = ["QuantityError", "marshal_quantity", "marshal_quantity_text"]

FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse numeric part of quantity"

# Limits of the inf.Dec path (numbers over 18 digits, BinarySI fractions, scales below nano).
# MAX_DIGITS bounds the significant digits of the number: Python's int/str conversion stops
# at 4300 digits. Rounding to nano rescales by a power of ten, and what that costs Go depends
# on the direction:
# - MAX_RESCALE bounds the power of ten Go multiplies a large value by (scale below nano):
#   it then strips the factors of ten again one division at a time: about 2 s at 10^5,
#   7 s at 2*10^5, 15 s at 3*10^5, minutes at 10^6, and never near 10^(2^31).
# - MAX_SHRINK bounds the power of ten Go divides a small value by (digits beyond nano):
#   one big power and one division, 0.2 s at 2*10^6 (`1e-1000000` is `1e-9` to Go), 5 s at
#   2*10^7, 16 s at 5*10^7, and gigabytes near 10^(2^31).
# Our own arithmetic never builds those powers. Real resource amounts are far inside all
# three limits.
MAX_DIGITS = 4000
MAX_RESCALE = 300_000
MAX_SHRINK = 50_000_000

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
# Go's unicode.IsSpace (White_Space plus U+0085), what strings.TrimSpace removes.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)

_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_FOR_DECIMAL_EXPONENT = {exp: name for name, exp in _DECIMAL_SUFFIXES.items()}
# Powers of 1024 -> suffix; 1024^0 has no BinarySI suffix (Go's lookup misses and prints none).
_SUFFIX_FOR_1024_POWER = {exp // 10: name for name, exp in _BINARY_SUFFIXES.items()}

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_NANO = 10**9
# Go remainder of the exponent mod 3 -> (multiplier, exponent decrement) that aligns it.
_ALIGN_BY_GO_REMAINDER = {1: (10, 1), -2: (10, 1), 2: (100, 2), -1: (100, 2)}


class QuantityError(ValueError):
    """A Quantity Go refuses to decode (message: Go's error text), or one Go cannot finish."""


def _wrap32(value: int) -> int:
    """The Go int32 that `value` becomes (two's complement wrap-around)."""
    return (value + 2**31) % 2**32 - 2**31


def _go_rem(value: int, divisor: int) -> int:
    """Go's `%`: the remainder takes the sign of the dividend."""
    rem = abs(value) % divisor
    return -rem if value < 0 else rem


def _fits_int64(value: int) -> bool:
    return _INT64_MIN <= value <= _INT64_MAX


def marshal_quantity(value: str | int | float) -> str:
    """What `Quantity.MarshalJSON` emits (unquoted) for a value the YAML/JSON reader produced.

    A `str` is a JSON string token; an `int`/`float` a JSON number, whose text is what
    sigs.k8s.io/yaml writes (`format_float` for floats). Raises QuantityError where Go's
    decoding fails, or where Go would not finish (message contains "cannot be encoded exactly").
    """
    if isinstance(value, str):
        return marshal_quantity_text(value, number=False)
    if isinstance(value, bool):  # before int: bool is an int subclass, but JSON true/false
        return marshal_quantity_text("true" if value else "false", number=True)
    if isinstance(value, int):
        try:
            text = str(value)
        except ValueError as err:  # beyond Python's int/str digit limit
            raise QuantityError(
                f"quantity of {value.bit_length()} bits cannot be encoded exactly"
            ) from err
        return marshal_quantity_text(text, number=True)
    if isinstance(value, float):
        try:
            text = format_float(value)
        except ValueError as err:  # NaN / Inf: Go cannot even write the JSON
            raise QuantityError(str(err)) from err
        return marshal_quantity_text(text, number=True)
    raise TypeError(f"a quantity is a str, int or float, not {type(value).__name__}")


def marshal_quantity_text(text: str, *, number: bool) -> str:
    """Like `marshal_quantity`, from token text: a JSON number's literal text (`number=True`,
    e.g. `1e3` or `1.0` exactly as written) or a string's decoded value (`number=False`).
    """
    if number:
        if text == "null":  # UnmarshalJSON resets to zero, which marshals as "0"
            return "0"
        raw = text
    else:
        # UnmarshalJSON strips the quotes but does not unescape: anything Go's encoder
        # escapes reaches the parser as a backslash sequence and fails the format check.
        raw = encode_string(text)[1:-1]
    return _round_trip(raw.strip(_GO_SPACE))


@functools.lru_cache(maxsize=4096)
def _round_trip(text: str) -> str:
    # Manifests repeat the same few quantities many times; the result is a pure function.
    return encode_trimmed(text)


def encode_trimmed(text: str, *, fast_path: bool = True) -> str:
    """ParseQuantity(text) then MarshalJSON. With fast_path=False, the canonical form Go
    would print if it had not kept the input text (what `String()` gives after a copy)."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return text
    positive, value, num, denom, suffix = _scan(text)
    base, exponent, fmt = _interpret_suffix(suffix)

    mantissa = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            # Go: 15 - len(num) - int32(float32(exponent)*3/10) - 1, exact for 10..60.
            precision = 14 - len(num) - exponent * 3 // 10
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))

    if precision >= 0:
        scale = _wrap32(scale - len(denom))
        if scale >= -9:
            shifted = num + denom  # at most 18 digits here
            magnitude = int(shifted)
            result = magnitude * mantissa
            if _fits_int64(result):
                if fast_path and _keeps_text(fmt, exponent, magnitude, scale, shifted):
                    return text
                return _canonical_int64(result if positive else -result, scale, fmt)
    return _canonical_inf_dec(text, value, base, exponent, fmt)


def _keeps_text(fmt: str, exponent: int, magnitude: int, scale: int, shifted: str) -> bool:
    """Go's "the input is already canonical, reuse the string" test on the int64 path."""
    if fmt == BINARY_SI:
        return exponent % 10 == 0 and magnitude & 7 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """Go's parseQuantityString: (positive, number text, num, denom, suffix).

    Byte-wise in Go; any non-ASCII character ends a run there too, so scanning by code
    point gives the same answers.
    """
    positive = True
    pos = 0
    end = len(text)
    if end and text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""  # only zeros (or nothing): Go drops the sign too
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos]
    if pos >= end:
        return positive, text, num, "", ""
    num = num or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return positive, value, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) for a suffix, as Go's quantitySuffixer.interpret."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = parse_int(suffix[1:])
        if parsed is None:
            raise QuantityError(SUFFIX_ERROR)
        return 10, _wrap32(parsed), DECIMAL_EXPONENT  # Go truncates int64 -> int32
    raise QuantityError(SUFFIX_ERROR)


def _decimal_suffix(exponent: int, fmt: str) -> str:
    if fmt == DECIMAL_EXPONENT:
        return f"e{exponent}" if exponent else ""
    # v0.34.3 ignores a failed lookup: from 10^21 up DecimalSI prints the mantissa alone.
    return _SUFFIX_FOR_DECIMAL_EXPONENT.get(exponent, "")


def _canonical_int64(value: int, scale: int, fmt: str) -> str:
    """CanonicalizeBytes for an int64Amount (value * 10^scale, scale an int32)."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI:  # scale is always 0 here
        if -1024 < value < 1024:
            return _canonical_int64(value, scale, DECIMAL_SI)
        amount, times = _remove_factors(value, 1024)
        return f"{amount}{_SUFFIX_FOR_1024_POWER.get(times, '')}"
    amount, times = _remove_factors(value, 10)
    exponent = _wrap32(scale + times)
    # Go aligns the exponent once, with its wrapping int32 arithmetic; only if the int64
    # multiply overflows does it redo the work on inf.Dec, which loops until aligned.
    factor, step = _ALIGN_BY_GO_REMAINDER.get(_go_rem(exponent, 3), (1, 0))
    if factor == 1 or _fits_int64(amount * factor):
        return f"{amount * factor}{_decimal_suffix(_wrap32(exponent - step), fmt)}"
    amount, times = _remove_factors(value, 10)
    exponent = _wrap32(_wrap32(-_wrap32(-scale)) + times)
    while _go_rem(exponent, 3) != 0:
        amount *= 10
        exponent = _wrap32(exponent - 1)
    return f"{amount}{_decimal_suffix(exponent, fmt)}"


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    """(value / base^times, times) with times as large as possible (value != 0)."""
    times = 0
    while value % base == 0:
        value //= base
        times += 1
    return value, times


def _too_large(text: str, what: str) -> QuantityError:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return QuantityError(
        f"quantity {shown!r} cannot be encoded exactly: {what}, decimal arithmetic the "
        "operator does not finish"
    )


def _canonical_inf_dec(text: str, value: str, base: int, exponent: int, fmt: str) -> str:
    """The inf.Dec path of ParseQuantity followed by CanonicalizeBytes."""
    negative = value[:1] == "-"
    unsigned = value[1:] if value[:1] in ("+", "-") else value
    whole, _, frac = unsigned.partition(".")
    digits = whole + frac
    if not digits:  # inf.Dec SetString: "no digits read"
        raise QuantityError(NUMERIC_ERROR)
    significant = digits.lstrip("0")
    if not significant:
        return "0"  # zero is not rounded, capped or reformatted
    # inf.Dec scale (value = digits * 10^-scale); SetScale(scale - exponent) wraps in int32.
    scale = _wrap32(len(frac) + _wrap32(-exponent)) if base == 10 else len(frac)
    # Rounding to nano rescales by 10^(9 - scale); Go's int32 shift wraps for huge scales.
    if len(significant) > MAX_DIGITS:
        raise _too_large(text, f"more than {MAX_DIGITS} significant digits")
    if 9 - scale > MAX_RESCALE:
        raise _too_large(text, f"rounding it needs a power of ten beyond 10^{MAX_RESCALE}")
    if scale - 9 > MAX_SHRINK:
        raise _too_large(text, f"rounding it needs a power of ten beyond 10^{MAX_SHRINK}")
    sign = "-" if negative else ""

    if base == 2:
        return sign + _binary_nanos_text(int(significant) << exponent, len(frac))

    mantissa = significant.rstrip("0")
    exp10 = len(significant) - len(mantissa) - scale  # value = mantissa * 10^exp10
    if exp10 < -9:
        # Round up, away from zero, to a multiple of 10^-9 (the dropped digits are non-zero).
        keep = len(mantissa) + exp10 + 9
        rounded = str(int(mantissa[:keep]) + 1) if keep > 0 else "1"
        mantissa = rounded.rstrip("0")
        exp10 = -9 + len(rounded) - len(mantissa)
    return sign + _decimal_text(mantissa, exp10, fmt)


def _binary_nanos_text(magnitude: int, frac_len: int) -> str:
    """Unsigned canonical text of magnitude * 10^-frac_len for a BinarySI input."""
    if frac_len > 9 + len(str(magnitude)):
        nanos = 1  # 0 < magnitude < 10^(frac_len - 9): below one nano, rounded up
    elif frac_len > 9:
        nanos, rest = divmod(magnitude, 10 ** (frac_len - 9))
        nanos += 1 if rest else 0
    else:
        nanos = magnitude * 10 ** (9 - frac_len)
    nanos = min(nanos, _INT64_MAX * _NANO)  # BinarySI is capped, silently, at 2^63-1
    # Below 1, or below 1024, or not whole: Go prints the value as DecimalSI.
    if nanos < 1024 * _NANO or nanos % _NANO:
        digits = str(nanos)
        mantissa = digits.rstrip("0")
        return _decimal_text(mantissa, len(digits) - len(mantissa) - 9, DECIMAL_SI)
    amount, times = _remove_factors(nanos // _NANO, 1024)
    return f"{amount}{_SUFFIX_FOR_1024_POWER.get(times, '')}"


def _decimal_text(mantissa: str, exp10: int, fmt: str) -> str:
    """mantissa (no trailing zeros) * 10^exp10, exponent lowered to a multiple of three."""
    shift = exp10 % 3
    return mantissa + "0" * shift + _decimal_suffix(exp10 - shift, fmt)
