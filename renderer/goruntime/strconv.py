"""Go's strconv: Quote (fmt's %q of a string) and IsPrint, exactly as Go 1.26 writes them.

Strings reach the operator through Go's decoders, which replace invalid UTF-8 (a lone
surrogate here) with U+FFFD; Quote then writes that rune as it is (it is printable).
"""

from __future__ import annotations

from bisect import bisect_right

_SHORT = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}

# Runes Go's Unicode 15.0 tables call printable and Python 3.11's Unicode 14.0 database
# does not know (assigned in 15.0); inclusive ranges, printed by scripts/go-reference.
_PRINTABLE_SINCE_UNICODE_14 = (
    (0x00CF3, 0x00CF3),
    (0x00ECE, 0x00ECE),
    (0x10EFD, 0x10EFF),
    (0x1123F, 0x11241),
    (0x11B00, 0x11B09),
    (0x11F00, 0x11F10),
    (0x11F12, 0x11F3A),
    (0x11F3E, 0x11F59),
    (0x1342F, 0x1342F),
    (0x13440, 0x13455),
    (0x1B132, 0x1B132),
    (0x1B155, 0x1B155),
    (0x1D2C0, 0x1D2D3),
    (0x1DF25, 0x1DF2A),
    (0x1E030, 0x1E06D),
    (0x1E08F, 0x1E08F),
    (0x1E4D0, 0x1E4F9),
    (0x1F6DC, 0x1F6DC),
    (0x1F774, 0x1F776),
    (0x1F77B, 0x1F77F),
    (0x1F7D9, 0x1F7D9),
    (0x1FA75, 0x1FA77),
    (0x1FA87, 0x1FA88),
    (0x1FAAD, 0x1FAAF),
    (0x1FABB, 0x1FABD),
    (0x1FABF, 0x1FABF),
    (0x1FACE, 0x1FACF),
    (0x1FADA, 0x1FADB),
    (0x1FAE8, 0x1FAE8),
    (0x1FAF7, 0x1FAF8),
    (0x2B739, 0x2B739),
    (0x31350, 0x323AF),
)
_STARTS = tuple(lo for lo, _ in _PRINTABLE_SINCE_UNICODE_14)


def is_print(rune: str) -> bool:
    """strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    if rune.isprintable():
        return True
    code = ord(rune)
    at = bisect_right(_STARTS, code) - 1
    return at >= 0 and code <= _PRINTABLE_SINCE_UNICODE_14[at][1]


def quote(text: str) -> str:
    """strconv.Quote: double-quoted, Go escapes for the rest (\\x, \\u, \\U by size)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = ['"']
    for ch in text:
        code = ord(ch)
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        elif is_print(ch):
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def parse_int(text: str, bit_size: int = 64) -> int | None:
    """strconv.ParseInt(text, 10, bit_size): an optional sign and ASCII digits, in range;
    None where Go returns an error. Bounded: a digit string far past the range is refused
    before Python converts it (its int() refuses over 4,300 digits)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    significant = digits.lstrip("0")
    if len(significant) > len(str(1 << (bit_size - 1))):
        return None
    number = int(significant or "0")
    if text[:1] == "-":
        number = -number
    limit = 1 << (bit_size - 1)
    return number if -limit <= number < limit else None


def parse_uint(text: str, bit_size: int = 64) -> int | None:
    """strconv.ParseUint(text, 10, bit_size): ASCII digits only (no sign), in range."""
    if text[:1] in ("+", "-"):
        return None
    return parse_int(text, bit_size + 1)  # one more bit: the unsigned range, and no sign
