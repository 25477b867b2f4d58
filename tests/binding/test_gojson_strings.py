"""Go's json.Marshal string escaping, and the ASCII fast path of `encode_string`.

The expected texts are what Go's encoding/json writes (HTML-safe escaping of <, > and &,
the short escapes \\n \\r \\t \\" \\\\, \\u00XX for other C0 controls, \\u2028/\\u2029 escaped,
lone surrogates as U+FFFD). An ASCII string is escaped through a class of the ASCII members
of the full set: every ASCII character must come out as the full class writes it.
"""

from __future__ import annotations

import pytest

from renderer.gojson import _escape_char, _needs_escape, encode_string


@pytest.mark.parametrize(
    ("value", "go"),
    [
        ("plain", '"plain"'),
        ("<a>&b", '"\\u003ca\\u003e\\u0026b"'),
        ('q"\\', '"q\\"\\\\"'),
        ("\n\r\t\x01\x1f", '"\\n\\r\\t\\u0001\\u001f"'),
        ("\x7f", '"\x7f"'),
        ("é\u2028\u2029", '"é\\u2028\\u2029"'),
        ("x\ud800y", '"x\ufffdy"'),
    ],
)
def test_strings_are_escaped_as_go_writes_them(value: str, go: str) -> None:
    assert encode_string(value) == go


def test_every_ascii_character_takes_the_full_class_escape() -> None:
    for code in range(0x80):
        char = chr(code)
        full = '"' + _needs_escape().sub(_escape_char, char) + '"'
        assert encode_string(char) == full, code
        assert encode_string(f"a{char}b") == '"a' + full[1:-1] + 'b"', code
