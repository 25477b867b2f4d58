"""resource.Quantity round trip against Go's own output (tests/vectors/quantity.jsonl)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import VECTORS

from renderer.gojson import format_number
from renderer.goruntime.quantity import (
    FORMAT_ERROR,
    MAX_DIGITS,
    MAX_RESCALE,
    MAX_SHRINK,
    NUMERIC_ERROR,
    SUFFIX_ERROR,
    QuantityError,
    encode_trimmed,
    marshal_quantity,
    marshal_quantity_text,
)

VECTORS = VECTORS / "quantity.jsonl"
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in VECTORS.read_text(encoding="ascii").splitlines() if line
]
STRING_ROWS = [row for row in ROWS if row["kind"] == "string"]
NUMBER_ROWS = [row for row in ROWS if row["kind"] == "number"]
OUT_BY_NUMBER_TOKEN = {row["json"]: row["out"] for row in NUMBER_ROWS}


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['kind']}:{row['json']}"


def _short_id(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:16]}...{text[-8:]}({len(text)} chars)"


def _assert_matches(row: dict[str, Any], produce: Any) -> None:
    if row["error"] is None:
        assert produce() == row["out"]
    else:
        with pytest.raises(QuantityError) as caught:
            produce()
        assert str(caught.value) == row["error"]


def test_vector_file_is_complete() -> None:
    assert len(ROWS) == 1042
    assert len(STRING_ROWS) + len(NUMBER_ROWS) == len(ROWS)
    assert {row["error"] for row in ROWS} == {None, FORMAT_ERROR, SUFFIX_ERROR, NUMERIC_ERROR}


@pytest.mark.parametrize("row", STRING_ROWS, ids=_row_id)
def test_string_rows(row: dict[str, Any]) -> None:
    # `in` is the decoded YAML/JSON string; `json` is what Go's encoder made of it.
    assert json.loads(row["json"]) == row["in"]
    _assert_matches(row, lambda: marshal_quantity(row["in"]))


@pytest.mark.parametrize("row", NUMBER_ROWS, ids=_row_id)
def test_number_rows(row: dict[str, Any]) -> None:
    token = row["json"]
    value = json.loads(token)
    assert type(value) is (float if any(ch in token for ch in ".eE") else int)
    if format_number(value) == token:
        # The reader's value round-trips to the very token Go decoded.
        _assert_matches(row, lambda: marshal_quantity(value))
    else:
        # `1e3`, `1.0`, `-0`...: sigs.k8s.io/yaml would never write this token for the
        # value, so feed the literal text; the reader's value is checked separately below.
        _assert_matches(row, lambda: marshal_quantity_text(token, number=True))


def test_number_rows_whose_token_is_not_go_formatted() -> None:
    """For `1e3` the reader yields 1000.0, which reaches Go as `1000`: where that text is
    itself a vector row, the value must marshal as that row says."""
    differing = [
        row for row in NUMBER_ROWS if format_number(json.loads(row["json"])) != row["json"]
    ]
    assert len(differing) == 25
    cross_checked = 0
    for row in differing:
        go_text = format_number(json.loads(row["json"]))
        if go_text in OUT_BY_NUMBER_TOKEN:
            assert marshal_quantity(json.loads(row["json"])) == OUT_BY_NUMBER_TOKEN[go_text]
            cross_checked += 1
    assert cross_checked >= 10


@pytest.mark.parametrize("row", [r for r in ROWS if r["error"] is None], ids=_row_id)
def test_canonical_form_without_the_fast_path(row: dict[str, Any]) -> None:
    # Rows that decode contain no character Go escapes, so Python's strip equals TrimSpace.
    text = row["in"].strip() if row["kind"] == "string" else row["json"]
    assert encode_trimmed(text, fast_path=False) == row["canonical"]
    assert (row["out"] == text and row["out"] != row["canonical"]) <= row["fast_path"]


def test_null_and_json_literals() -> None:
    # Documented in QUANTITY-AND-YAML.md: null decodes to a zero Quantity, printed "0".
    assert marshal_quantity_text("null", number=True) == "0"
    # true/false reach UnmarshalJSON as their literal text, which is not a quantity.
    for literal in (True, False):
        with pytest.raises(QuantityError, match="regular expression"):
            marshal_quantity(literal)


def test_unencodable_floats_and_types() -> None:
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(QuantityError, match="unsupported value"):
            marshal_quantity(bad)
    with pytest.raises(TypeError):
        marshal_quantity([1])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "1e2147483648",  # wraps to -2^31: Go did not finish within 10 s
        "1e-2147483648",  # -2^31 directly: Go did not finish within 10 s
        "-5e2147483648",
        "1e-2147483647",  # Go builds 10^2147483638 to round it
        "1234567890123456789e2147483000",  # 19 digits: inf.Dec path with a huge rescale
        "1.5e-2147483647",
        f"1e-{MAX_SHRINK + 10}",
        f"1234567890123456789e{MAX_RESCALE}",
        "1" * (MAX_DIGITS + 1),
    ],
    ids=_short_id,
)
def test_arithmetic_go_cannot_finish_fails_closed(text: str) -> None:
    with pytest.raises(QuantityError, match="cannot be encoded exactly"):
        marshal_quantity(text)


def test_large_but_finite_inf_dec_work_is_exact() -> None:
    # QUANTITY-AND-YAML.md rules 7 and 8: sub-nano rounds up to 1n, zero stays 0, and
    # decimal magnitudes are exact whatever their size.
    # Dividing by a huge power of ten is cheap for Go (`1e-1000000` takes it well under a
    # second), so tiny values are answered far beyond the multiplying direction's limit.
    assert marshal_quantity(f"1e-{MAX_RESCALE}") == "1e-9"
    assert marshal_quantity("-1e-1000000") == "-1e-9"
    assert marshal_quantity(f"1e-{MAX_SHRINK}") == "1e-9"
    assert marshal_quantity("0." + "0" * (MAX_RESCALE + 10) + "1Ki") == "1n"
    assert marshal_quantity("-0." + "0" * (MAX_RESCALE - 2) + "1") == "-1n"
    assert marshal_quantity(f"1234567890123456789e{MAX_RESCALE - 12}") == (
        f"1234567890123456789e{MAX_RESCALE - 12}"
    )
    assert marshal_quantity("0." + "0" * (MAX_RESCALE - 10) + "1Ki") == "1n"
    assert marshal_quantity("0e-2147483648") == "0"
    assert marshal_quantity("0." + "0" * 5000 + "Ki") == "0"
    assert marshal_quantity("1" * MAX_DIGITS) == "1" * MAX_DIGITS


# Hypothesis: well-formed quantities (the documented grammar) never hang, and Go's output
# is a fixed point of the round trip.
_SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_EXPONENTS = st.one_of(
    st.integers(-40, 40),
    st.integers(-(2**31) - 40, -(2**31) + 40),
    st.integers(2**31 - 40, 2**31 + 40),
    st.integers(2**32 - 40, 2**32 + 40),
    st.integers(-(2**63), 2**63 - 1),
)


@st.composite
def well_formed_quantities(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text("0123456789", max_size=30))
    frac = draw(st.none() | st.text("0123456789", max_size=30))
    if draw(st.booleans()):
        exponent = draw(_EXPONENTS)
        suffix = (
            draw(st.sampled_from(["e", "E"]))
            + draw(st.sampled_from(["", "+"]) if exponent >= 0 else st.just(""))
            + str(exponent)
        )
    else:
        suffix = draw(st.sampled_from(_SUFFIXES))
    return sign + whole + ("" if frac is None else "." + frac) + suffix


@settings(max_examples=600, deadline=None)
@given(well_formed_quantities())
def test_round_trip_is_idempotent_and_bounded(text: str) -> None:
    try:
        out = marshal_quantity(text)
    except QuantityError:
        return
    # Bounded work: no intermediate value is materialised, so the output stays about the
    # size of the input (a BinarySI fraction grows by at most the 2^60 factor's digits).
    assert len(out) <= len(text) + 32
    try:
        again = marshal_quantity(out)
    except QuantityError as err:
        # The int64 path prints any exponent cheaply, even one its int32 arithmetic wrapped
        # (`1.0000000000000e-2147483636` -> `10e-2147483637`); re-reading a 19-20 digit
        # mantissa with such an exponent takes the inf.Dec path, which Go does not finish.
        assert "cannot be encoded exactly" in str(err)
        assert abs(int(out.rpartition("e")[2])) > MAX_RESCALE - 30
        return
    assert again == out


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        out = marshal_quantity(text)
    except QuantityError as err:
        go_errors = {FORMAT_ERROR, SUFFIX_ERROR, NUMERIC_ERROR}
        assert str(err) in go_errors or "cannot be encoded exactly" in str(err)
        return
    assert marshal_quantity(out) == out
