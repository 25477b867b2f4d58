"""Raw bytes to checked text: size cap, encoding (BOM, UTF-8/UTF-16), forbidden characters.

These checks run before the YAML parser so that every error can name a line and column
(libyaml itself reports a bad byte only as a stream offset).
"""

from __future__ import annotations

import re
from functools import cache

from renderer.errors import InputError

# YAML 1.1 printable set, as go-yaml's reader enforces it: tab, LF, CR, printable ASCII,
# NEL, and the non-control, non-surrogate rest of Unicode except U+FFFE/U+FFFF. Written as
# the complement (C0 controls but tab/LF/CR, DEL and C1 controls but NEL, surrogates,
# U+FFFE/U+FFFF): the same set, but compiling the negated class took 3 ms of every start-up.
# Compiled on first use, and only for text that is not all ASCII: a class with ranges beyond
# Latin-1 costs ten times as much to compile as its ASCII part, which is all ASCII text needs.
_FORBIDDEN_CLASS = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
_FORBIDDEN_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # its ASCII members


@cache
def forbidden() -> re.Pattern[str]:
    """The forbidden characters (the whole class, for text beyond ASCII)."""
    return re.compile(_FORBIDDEN_CLASS)


# Line breaks as libyaml and go-yaml count them (YAML 1.1): CR LF is one break; CR, LF,
# NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR are each one. Every position this module
# reports counts lines the same way, so it agrees with the parser's own marks.
LINE_BREAK = "\r\n|[\r\n\x85\u2028\u2029]"  # a regular expression
BREAK_CHARS = "\r\n\x85\u2028\u2029"
_RARE_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def break_ends(text: str, end: int) -> tuple[int, int]:
    """(number of line breaks in text[:end], offset just after the last one, or 0)."""
    if not any(b in text for b in _RARE_BREAKS):  # the common case: LF only
        return text.count("\n", 0, end), text.rfind("\n", 0, end) + 1

    count = last = 0
    for match in re.finditer(LINE_BREAK, text[:end]):
        count += 1
        last = match.end()
    return count, last


def count_breaks(text: str) -> int:
    """Line breaks in `text`, counted as the parser counts them."""
    return break_ends(text, len(text))[0]


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a character offset."""
    breaks, line_start = break_ends(text, offset)
    return breaks + 1, offset - line_start + 1


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    before = data[:offset].decode("utf-8", "replace")
    return position(before, len(before))


def _check_size(data: bytes, name: str, max_bytes: int) -> None:
    if len(data) > max_bytes:
        line, column = _byte_position(data, max_bytes)
        raise InputError(
            f"file is larger than the size limit of {max_bytes} bytes (raise it with --max-bytes)",
            name,
            line,
            column,
        )


def decode_input(data: bytes, name: str, max_bytes: int) -> tuple[str, bytes]:
    """Return (text without a leading BOM, UTF-8 bytes for the parser). Raises InputError.

    Strict: invalid UTF-8 or UTF-16 and characters YAML forbids are errors. This is what
    sigs.k8s.io/yaml reads; `decode_as_kubectl` is what `kubectl apply -f` reads."""
    _check_size(data, name, max_bytes)
    if data[:4] in (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00"):
        raise InputError("UTF-32 is not supported (Kubernetes reads UTF-8 or UTF-16)", name, 1, 1)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        # go-yaml v2 reads UTF-16 with a byte order mark, so we do too.
        codec = "utf-16-le" if data[:2] == b"\xff\xfe" else "utf-16-be"
        try:
            text = data[2:].decode(codec)
        except UnicodeDecodeError as exc:
            good = data[2 : 2 + exc.start].decode(codec, "replace")
            line, column = position(good, len(good))
            raise InputError(
                f"invalid UTF-16 at byte offset {exc.start + 2} ({exc.reason})", name, line, column
            ) from None
        _check_characters(text, name)
        return text, text.encode("utf-8")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _byte_position(data, exc.start)
        bad = data[exc.start]
        raise InputError(
            f"invalid UTF-8: byte 0x{bad:02X} at byte offset {exc.start} ({exc.reason})",
            name,
            line,
            column,
        ) from None
    _check_characters(text, name)
    return text, data


def decode_as_kubectl(data: bytes, name: str, max_bytes: int) -> tuple[str, bytes]:
    """(text, UTF-8 bytes of it) as `kubectl apply -f` decodes a file before reading it:
    a UTF-8 byte order mark is dropped, a UTF-16 one selects UTF-16, and anything else is
    UTF-8 in which every invalid sequence becomes U+FFFD (golang.org/x/text's decoder,
    which replaces a maximal invalid subpart as Python's "replace" does). No character
    is refused here: which ones are depends on whether the stream is YAML or JSON
    (`check_characters` is the YAML rule)."""
    _check_size(data, name, max_bytes)
    if data[:4] in (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00"):
        raise InputError("UTF-32 is not supported (Kubernetes reads UTF-8 or UTF-16)", name, 1, 1)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16-le" if data[:2] == b"\xff\xfe" else "utf-16-be"
        text = data[2:].decode(codec, "replace")
        return text, text.encode("utf-8")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        return data.decode("utf-8"), data
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        return text, text.encode("utf-8")


def check_characters(text: str, name: str) -> None:
    """InputError at the first character YAML (go-yaml's reader) refuses."""
    _check_characters(text, name)


# The allowed ASCII characters: an ASCII text is clean when deleting these leaves nothing
# (one table lookup a byte, eight times faster than the search, which then finds the place).
_ALLOWED_ASCII = b"\t\n\r" + bytes(range(0x20, 0x7F))


def _check_characters(text: str, name: str) -> None:
    is_ascii = text.isascii()
    if is_ascii and not text.encode("ascii").translate(None, _ALLOWED_ASCII):
        return
    found = (_FORBIDDEN_ASCII if is_ascii else forbidden()).search(text)
    if found is None:
        return
    line, column = position(text, found.start())
    char = found.group()
    if char == "\x00":
        hint = " (is this a UTF-16 file without a byte order mark?)" if "\x00" in text[:2] else ""
        raise InputError(f"NUL byte is not allowed in YAML{hint}", name, line, column)
    raise InputError(
        f"control character U+{ord(char):04X} is not allowed in YAML", name, line, column
    )
