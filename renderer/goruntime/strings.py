"""Go's strings: ToLower, TrimSpace and Fields, as Go 1.26 does them (checked against
scripts/go-reference).

Go lowers rune by rune with Unicode's simple mapping; Python's str.lower applies the full
mapping and context, which differ for U+0130 (Go: "i", Python: "i" + U+0307) and a final
sigma (Go: U+03C3, Python: U+03C2). Go's white space (unicode.IsSpace) is not Python's either:
str.strip and str.split also take U+001C..U+001F as space, Go does not.
"""

from __future__ import annotations

import re
from functools import cache

# unicode.IsSpace: the Latin-1 spaces and the Unicode White_Space property.
SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def to_lower(text: str) -> str:
    """strings.ToLower (a lone surrogate, invalid UTF-8 to Go, becomes U+FFFD)."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_rune(ch) for ch in text)


def _lower_rune(ch: str) -> str:
    if ch == "\u0130":
        return "i"
    if "\ud800" <= ch <= "\udfff":
        return "\ufffd"
    return ch.lower()


def is_space(rune: str) -> bool:
    """unicode.IsSpace."""
    return rune in SPACE


def trim_space(text: str) -> str:
    """strings.TrimSpace."""
    return text.strip(SPACE)


@cache
def _field() -> re.Pattern[str]:
    return re.compile(f"[^{SPACE}]+")


def fields(text: str) -> list[str]:
    """strings.Fields: the runs between Go white space."""
    return _field().findall(text)
