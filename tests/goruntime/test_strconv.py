"""strconv.ParseInt(s, 10, bits) as Go documents it: ErrSyntax for anything but an
optional sign and ASCII digits, ErrRange past the bit size (both: None here)."""

from __future__ import annotations

import pytest

from renderer.goruntime.strconv import parse_int, parse_uint


@pytest.mark.parametrize(
    ("text", "bits", "expected"),
    [
        ("0", 64, 0),
        ("+1", 64, 1),
        ("-0", 64, 0),
        ("007", 64, 7),
        ("9223372036854775807", 64, 2**63 - 1),
        ("-9223372036854775808", 64, -(2**63)),
        ("0009223372036854775807", 64, 2**63 - 1),  # leading zeros do not count
        ("9223372036854775808", 64, None),  # ErrRange
        ("-9223372036854775809", 64, None),
        ("2147483647", 32, 2**31 - 1),
        ("2147483648", 32, None),
        ("", 64, None),  # ErrSyntax
        ("+", 64, None),
        ("--1", 64, None),
        (" 1", 64, None),
        ("1_000", 64, None),  # underscores only with base 0
        ("0x10", 64, None),  # base 10: no prefix
        ("\u0661", 64, None),  # a non-ASCII digit
        ("1" * 5000, 64, None),  # past Python's int() digit limit: refused, not raised
    ],
)
def test_parse_int_is_strconv_parse_int_base_10(text: str, bits: int, expected: int | None) -> None:
    assert parse_int(text, bits) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("18446744073709551615", 2**64 - 1),
        ("18446744073709551616", None),
        ("+1", None),  # ParseUint takes no sign
        ("-0", None),
        ("1" * 5000, None),
    ],
)
def test_parse_uint_is_strconv_parse_uint_base_10(text: str, expected: int | None) -> None:
    assert parse_uint(text) == expected
