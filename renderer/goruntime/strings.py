"""Go's strings: ToLower, exactly as Go 1.26 maps runes (checked against scripts/go-reference).

Go lowers rune by rune with Unicode's simple mapping; Python's str.lower applies the full
mapping and context, which differ for U+0130 (Go: "i", Python: "i" + U+0307) and a final
sigma (Go: "σ", Python: "ς").
"""

from __future__ import annotations


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
