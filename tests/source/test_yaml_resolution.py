"""Scalar resolution rule by rule, as go-yaml v2 (v2.4.x) and sigs.k8s.io/yaml read YAML.

Each expectation follows from the Go source, named in the comment above its table:
go-yaml's `resolve()` (resolve table, ParseInt/ParseUint base 0, the YAML float regex,
ParseFloat, the `0b` fallback, time.Parse layouts), its decoder (timestamps kept as text,
!!binary through base64.StdEncoding), sigs.k8s.io/yaml's key conversion
(strconv.FormatFloat(k, 'g', -1, 32)) and encoding/json's number formatting.
"""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.source import to_go_json
from renderer.source.reader import iter_values
from renderer.source.resolve import format_float32_g, resolve_plain


def read(yaml_text: str) -> str:
    """YAMLToJSON of the first document, as compact JSON with sorted keys."""
    return to_go_json(next(iter_values(yaml_text.encode("utf-8"), "case.yaml"), None))


def read_error(yaml_text: str) -> str:
    with pytest.raises(InputError) as caught:
        read(yaml_text)
    return caught.value.message


# resolveMap: these exact spellings and no others (the map is case-sensitive).
BOOLS_AND_NULLS = [
    *[
        (word, "true")
        for word in ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]
    ],
    *[
        (word, "false")
        for word in ["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]
    ],
    *[(word, "null") for word in ["~", "null", "Null", "NULL"]],
    *[
        (word, f'"{word}"')
        for word in ["yEs", "oN", "oFF", "tRUE", "nULL", "t", "f", "nil", "None", "none", "Nan"]
    ],
]


@pytest.mark.parametrize(("text", "expected"), BOOLS_AND_NULLS)
def test_resolve_table(text: str, expected: str) -> None:
    assert read(f"v: {text}\n") == f'{{"v":{expected}}}'


# A digit or sign: `_` removed, then strconv.ParseInt(s, 0, 64) (0x/0o/0b prefixes in
# either case, a leading 0 means octal), then ParseUint(s, 0, 64) (no sign allowed).
INTEGERS = [
    ("0", "0"),
    ("-0", "0"),  # ParseInt gives int 0: no negative zero for ints
    ("+0", "0"),
    ("0644", "420"),
    ("-0755", "-493"),
    ("0o17", "15"),
    ("0O17", "15"),
    ("0x1F", "31"),
    ("0X1f", "31"),
    ("-0x1F", "-31"),
    ("+0x1F", "31"),
    ("0b101", "5"),
    ("0B101", "5"),
    ("-0b101", "-5"),
    ("1_000", "1000"),
    ("0x_1F", "31"),  # underscores go before ParseInt sees the text
    ("0_7", "7"),
    ("1__0", "10"),
    ("+_1", "1"),
    ("9223372036854775807", "9223372036854775807"),
    ("-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775808", "9223372036854775808"),  # ParseUint: a uint64
    ("18446744073709551615", "18446744073709551615"),
    ("0xFFFFFFFFFFFFFFFF", "18446744073709551615"),
    ("-0x8000000000000000", "-9223372036854775808"),
    ("0b1111111111111111111111111111111111111111111111111111111111111111", "18446744073709551615"),
    # go-yaml's fallback for text starting `0b` that base 0 refused: ParseInt(rest, 2, 64),
    # which accepts a sign after the prefix
    ("0b-101", "-5"),
    ("0b+101", "5"),
    ("0b-0", "0"),
    ("0b_-1", "-1"),
    ("0b-1000000000000000000000000000000000000000000000000000000000000000", "-9223372036854775808"),
]


@pytest.mark.parametrize(("text", "expected"), INTEGERS)
def test_integers(text: str, expected: str) -> None:
    assert read(f"v: {text}\n") == f'{{"v":{expected}}}'


# Not an int, then the float regex `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
# on the `_`-free text and ParseFloat; a ParseFloat range error (overflow) leaves a string,
# underflow gives 0. JSON numbers are written as encoding/json writes a float64.
FLOATS = [
    ("09", "9"),  # octal refuses 9, the float regex takes it
    ("08.5", "8.5"),
    ("1e3", "1000"),
    ("2E3", "2000"),
    ("1e+3", "1000"),
    ("1.0e+3", "1000"),
    ("1e-3", "0.001"),
    ("5.", "5"),
    ("-5.e-3", "-0.005"),
    ("+.5", "0.5"),
    ("1_000.5", "1000.5"),
    ("-0.0", "-0"),
    ("1.0", "1"),
    ("1e21", "1e+21"),
    ("1e20", "100000000000000000000"),
    ("1e-7", "1e-7"),
    ("0.000001", "0.000001"),
    ("5e-324", "5e-324"),
    ("1e-400", "0"),
    ("18446744073709551616", "18446744073709552000"),  # beyond uint64: a float64
    ("+18446744073709551615", "18446744073709552000"),  # ParseUint refuses the sign
    ("-9223372036854775809", "-9223372036854776000"),
    ("123456789012345678901234567890", "1.2345678901234568e+29"),
    # A leading `.`: ParseFloat of the raw text, which allows `_` between two digits
    (".5", "0.5"),
    (".5e3", "500"),
    (".5_0", "0.5"),
    (".5_5e1_0", "5500000000"),
    (".5e-400", "0"),
]


@pytest.mark.parametrize(("text", "expected"), FLOATS)
def test_floats(text: str, expected: str) -> None:
    assert read(f"v: {text}\n") == f'{{"v":{expected}}}'


STRINGS = [
    "1e400",  # ParseFloat overflow
    "-1e400",
    ".5e400",  # the same through the `.` branch
    ".9e309",
    "1:20",  # base 60 is deliberately unsupported
    "190:20:30",
    "0x10000000000000000",  # range error, not a float: go-yaml v2.4 has no big.Int step
    "-0x8000000000000001",
    "00x1",
    "0x",
    "0o",
    "0b",
    "0b2",
    "-0b-101",  # the fallback builds "--101"
    "0B-101",  # the fallback looks for lower-case `0b` only
    "0b+1000000000000000000000000000000000000000000000000000000000000000",  # > int64
    "1.2.3",
    "1e",
    ".e3",
    "._5",
    ".5_",
    ".5__5",
    ".5e_1",
    "1,000",
    "0x1p3",  # hexadecimal floats fail the YAML float regex
    "inf",
    "+inf",
    "Infinity",
    ".infinity",
    "<<",  # `<` has no resolve hint: a plain string as a value
    "_1",
    "+",
]


@pytest.mark.parametrize("text", STRINGS)
def test_strings(text: str) -> None:
    assert resolve_plain(text) == text
    assert read(f"v: {text}\n") == to_go_json({"v": text})


def test_long_digit_runs_stay_strings_quickly() -> None:
    # beyond uint64 and beyond float64: Go returns the text; no int() digit limit applies
    assert resolve_plain("1" * 5000) == "1" * 5000
    assert resolve_plain("-" + "9" * 5000) == "-" + "9" * 5000
    assert resolve_plain("0" * 5000 + "1") == 1  # leading zero: octal
    assert resolve_plain("1" * 5000 + ".5") == "1" * 5000 + ".5"


# Special floats decode (resolveMap) but json.Marshal refuses them.
@pytest.mark.parametrize("text", [".inf", ".Inf", ".INF", "+.inf", "-.Inf", ".nan", ".NaN", ".NAN"])
def test_special_floats_fail_json(text: str) -> None:
    assert "unsupported value" in read_error(f"v: {text}\n")


# Timestamps (unquoted, or under !!timestamp) come back as their original text; only
# !!timestamp tells a valid one from an invalid one. Layouts tried with time.Parse:
# "2006-1-2T15:4:5.999999999Z07:00", the same with `t`, "2006-1-2 15:4:5.999999999",
# "2006-1-2": fractions after `.` or `,`; a layout space matches one or more spaces; the zone
# is `Z` or +hh:mm with hh <= 24 and mm <= 60 (time.Parse's range check uses >).
VALID_TIMESTAMPS = [
    "2025-06-01",
    "2025-6-1",
    "2024-02-29",
    "2000-02-29",
    "0000-02-29",
    "2025-06-01T12:00:00Z",
    "2025-06-01t12:00:00Z",
    "2025-06-01T1:2:3Z",
    "2025-06-01T12:00:00.123456789012+01:00",
    "2025-06-01T12:00:00,5Z",
    "2025-06-01T12:00:00+24:00",
    "2025-06-01T12:00:00-24:60",
    "2001-12-14 21:59:43.10",
    "2001-12-14  21:59:43",
    "2001-12-14 21:59:43,10",
]
INVALID_TIMESTAMPS = [
    "2025-13-01",
    "2025-00-01",
    "2025-02-29",
    "1900-02-29",
    "2025-04-31",
    "2025-06-01T24:00:00Z",
    "2025-06-01T23:60:00Z",
    "2025-06-01T23:59:60Z",
    "2025-06-01T12:00:00z",  # the zone letter is upper-case only
    "2025-06-01T12:00:00",  # the T layouts need a zone
    "2025-06-01T12:00:00+25:00",
    "2025-06-01T12:00:00+00:61",
    "2025-06-01T12:00:00+0200",
    "2025-06-01T12:00:00+2:00",
    "2025-06-01T12:00:00.Z",
    "2001-12-14 21:59:43.10 -5",  # the YAML spec example time.Parse cannot read
    "2001-12-14\t21:59:43",
    "20251-01-01",
]


@pytest.mark.parametrize("text", VALID_TIMESTAMPS)
def test_valid_timestamps_keep_their_text(text: str) -> None:
    expected = to_go_json({"v": text})
    assert read(f'v: !!timestamp "{text}"\n') == expected
    if "  " not in text:
        assert read(f"v: {text}\n") == expected
    assert read(f'"{text}": x\n') == to_go_json({text: "x"})


@pytest.mark.parametrize("text", INVALID_TIMESTAMPS)
def test_invalid_timestamps(text: str) -> None:
    message = read_error(f'v: !!timestamp "{text}"\n')
    assert message == f"cannot decode !!str `{text}` as a !!timestamp"
    if "\t" not in text and "  " not in text:
        assert read(f"v: {text}\n") == to_go_json({"v": text})


# Explicit tags: resolve(tag, text) must give that tag; !!float takes an int or int64 (not a
# uint64); a timestamp is looked for only untagged or under !!timestamp.
TAGGED = [
    ("!!int '12'", "12"),
    ("!!int 0x1F", "31"),
    ("!!float 1", "1"),
    # float64(int): shortest digits, then zeros (encoding/json's 'f' format)
    ("!!float 9223372036854775807", "9223372036854776000"),
    ("!!float -9223372036854775808", "-9223372036854776000"),
    ("!!float .5_0", "0.5"),
    ("!!bool 'on'", "true"),
    ("!!null ''", "null"),
    ("!!null", "null"),
    ("!!str", '""'),
    ("!!str 12", '"12"'),
    ("!!str ~", '"~"'),
    ("! 12", '"12"'),
    ("!foo 12", '"12"'),
    ("!!map 12", '"12"'),
    ("!!merge 12", '"12"'),
    ("!<tag:yaml.org,2002:int> 12", "12"),
    ("!!int 0b-101", "-5"),
]


@pytest.mark.parametrize(("text", "expected"), TAGGED)
def test_tagged(text: str, expected: str) -> None:
    assert read(f"v: {text}\n") == f'{{"v":{expected}}}'


TAG_ERRORS = [
    ("!!int 1.5", "cannot decode !!float `1.5` as a !!int"),
    ("!!int 1e3", "cannot decode !!float `1e3` as a !!int"),
    ("!!int", "cannot decode !!null `` as a !!int"),
    ("!!int 2025-01-01", "cannot decode !!str `2025-01-01` as a !!int"),
    ("!!bool 2025-01-01", "cannot decode !!str `2025-01-01` as a !!bool"),
    ("!!float 18446744073709551615", "cannot decode !!int `18446744073709551615` as a !!float"),
    ("!!float .5e400", "cannot decode !!str `.5e400` as a !!float"),
    ("!!timestamp 2025", "cannot decode !!int `2025` as a !!timestamp"),
    ("!!null foo", "cannot decode !!str `foo` as a !!null"),
    ("!!bool 1", "cannot decode !!int `1` as a !!bool"),
]


@pytest.mark.parametrize(("text", "message"), TAG_ERRORS)
def test_tag_errors(text: str, message: str) -> None:
    assert read_error(f"v: {text}\n") == message


# !!binary: base64.StdEncoding.DecodeString skips only CR and LF and needs the padding;
# encoding/json then writes U+FFFD for every byte utf8.DecodeRune refuses (one per byte).
BINARY = [
    ("!!binary aGVsbG8=", '"hello"'),
    ("!!binary |\n  aGVs\n  bG8=", '"hello"'),
    ('!!binary "aGVs\\r\\nbG8="', '"hello"'),
    ("!!binary ''", '""'),
    ("!!binary /w==", '"\ufffd"'),
    ("!!binary 4oI=", '"\ufffd\ufffd"'),  # a truncated 3-byte sequence: two bytes, two U+FFFD
    ("!!binary 7aCA", '"\ufffd\ufffd\ufffd"'),  # an encoded surrogate
    ("!!binary 4oKs", '"\u20ac"'),
]


@pytest.mark.parametrize(("text", "expected"), BINARY)
def test_binary(text: str, expected: str) -> None:
    assert read(f"v: {text}\n") == f'{{"v":{expected}}}'


@pytest.mark.parametrize(
    "text",
    [
        "!!binary '%%%'",
        "!!binary aGVsbG8",  # padding missing
        '!!binary "aGVs bG8="',
        '!!binary "aGVs\\tbG8="',
        "!!binary\n  aGVs\n  bG8=",  # a folded plain scalar: the line break became a space
    ],
)
def test_binary_errors(text: str) -> None:
    assert read_error(f"v: {text}\n") == "!!binary value contains invalid base64 data"


# Map keys: sigs.k8s.io/yaml writes int keys with strconv.Itoa, bools as true/false, floats
# with strconv.FormatFloat(k, 'g', -1, 32): rounded to float32, shortest digits (Go 1.26:
# Dragonbox, whose power-of-two case breaks a tie upwards), %e below 1e-4 and from 1e6 on.
KEYS = [
    ("1", "1"),
    ("0644", "420"),
    ("0x10", "16"),
    ("-0b101", "-5"),
    ("yes", "true"),
    ("Off", "false"),
    ("1.0", "1"),
    ("1.5", "1.5"),
    ("1e3", "1000"),
    ("100000.0", "100000"),
    ("1e6", "1e+06"),
    ("1e7", "1e+07"),
    ("0.0001", "0.0001"),
    ("0.00001", "1e-05"),
    ("3.14159265358979", "3.1415927"),
    ("0.1", "0.1"),
    ("-0.0", "-0"),
    ("18446744073709551616", "1.8446744e+19"),
    ("3.4028236e38", ".inf"),  # rounds to infinity in float32
    ("1e39", ".inf"),
    ("-1e39", "-.inf"),
    ("1e-46", "0"),
    ("1.4e-45", "1e-45"),
    ("0.000244140625", "0.00024414063"),  # 2^-12: a tie, broken upwards
    ("1.262177448353619e-29", "1.2621775e-29"),  # 2^-96: the lopsided interval is shorter
    ("1.2379400392853803e+27", "1.2379401e+27"),  # 2^90
    ("2025-06-01", "2025-06-01"),
    ("!!binary aGk=", "hi"),
    ("!!float 1", "1"),
]


@pytest.mark.parametrize(("key", "expected"), KEYS)
def test_keys(key: str, expected: str) -> None:
    assert read(f"{key}: x\n") == to_go_json({expected: "x"})


def test_special_float_keys() -> None:
    assert read(".inf: a\n-.Inf: b\n.nan: c\n") == '{"-.inf":"b",".inf":"a",".nan":"c"}'


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("~", "unsupported map key of type: %!s(<nil>), key: <nil>"),
        ("? ", "unsupported map key of type: %!s(<nil>), key: <nil>"),  # an empty key
        ("18446744073709551615", "unsupported map key of type: uint64, key: 0xffffffffffffffff"),
        ("9223372036854775808", "unsupported map key of type: uint64, key: 0x8000000000000000"),
    ],
)
def test_key_errors(key: str, message: str) -> None:
    assert read_error(f"{key}\n: a\n" if key == "? " else f"{key}: a\n").startswith(message)


def test_int64_keys_are_decimal() -> None:
    assert read("9223372036854775807: a\n-9223372036854775808: b\n") == (
        '{"-9223372036854775808":"b","9223372036854775807":"a"}'
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (2.0**-149, "1e-45"),
        (3.4028234663852886e38, "3.4028235e+38"),
        (2.0**24, "1.6777216e+07"),
        (123456.7, "123456.7"),
        (0.3, "0.3"),
        (-(2.0**-12), "-0.00024414063"),
        (16777217.0, "1.6777216e+07"),  # float32 rounds to even
    ],
)
def test_format_float32_g(value: float, expected: str) -> None:
    assert format_float32_g(value) == expected
