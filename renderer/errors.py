"""The exception hierarchy. The CLI turns every one of these into a message and exit code 2."""

from __future__ import annotations

import re
from functools import cache

from renderer.constants import EXIT_ERROR, EXIT_INTERNAL

# What a one-line message must not carry verbatim: line breaks (incl. NEL and U+2028/9),
# other C0/C1 controls (ESC starts a terminal escape sequence) and bidirectional
# overrides (which reorder what the reader sees). Inputs put names and values into
# messages, so these are shown escaped.
_UNSAFE = "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
_NAMED = {"\n": "\\n", "\r": "\\r"}


@cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(_UNSAFE)  # compiled on the first message, not at start-up


def _escape(match: re.Match[str]) -> str:
    return _escape_char(match.group())


def _escape_char(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def one_line(text: str) -> str:
    """`text` with line breaks, control characters and bidi overrides escaped."""
    escaped = _unsafe().sub(_escape, text)
    if not escaped.isascii() and _surrogate_run().search(escaped):
        escaped = _surrogate_run().sub(_escape_bytes, escaped)
    return escaped


@cache
def _surrogate_run() -> re.Pattern[str]:
    # A file name that is not text in the file-system encoding (an ASCII locale, or bytes
    # that are not UTF-8) is held with surrogate escapes and printed back as its bytes;
    # bytes that spell a line break, a control or a bidi override in UTF-8 must not be.
    return re.compile("[\udc80-\udcff]+")


def _escape_bytes(match: re.Match[str]) -> str:
    decoded = match.group().encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    if not _unsafe().search(decoded):
        return match.group()
    return "".join(
        _escape_char(char)
        if _unsafe().fullmatch(char)
        # the character's own bytes, held as surrogate escapes again
        else char.encode("utf-8", "surrogateescape").decode("ascii", "surrogateescape")
        for char in decoded
    )


@cache
def _unsafe_or_surrogate() -> re.Pattern[str]:
    return re.compile(_UNSAFE[:-1] + "\ud800-\udfff]")


def report_text(text: str) -> str:
    """`one_line`, and lone surrogates escaped too (`\ud800`): for report messages, whose
    object names and keys come from the input (a JSON annotation can hold `"\ud800"`) and
    which must encode to UTF-8. File names keep their surrogate escapes (`one_line`): they
    are written back as the bytes they were."""
    return _unsafe_or_surrogate().sub(_escape, text)


class DynamoRenderError(Exception):
    """Base of every error the tool reports to the user (exit code 2)."""

    exit_code = EXIT_ERROR


class InputError(DynamoRenderError):
    """Input that cannot be read: names the file and the 1-based line and column."""

    def __init__(
        self,
        message: str,
        file: str = "<input>",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def location(self) -> str:
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}:{self.column or 1}"

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"


class InternalError(DynamoRenderError):
    """A defect of the tool met on this input (an exception the operator port does not raise
    on purpose): reported at the object it was rendering, with its own exit code, so it is
    never mistaken for the operator refusing the input (nor turned into a lint finding)."""

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return (
            f"{self.where}: internal error (a defect of dynamo-render, not of the input;"
            f" please report it): {self.message}"
        )


class BindingError(InputError):
    """A checkpoint snapshot cannot be bound, or cannot be encoded exactly as the operator would."""


class BindingFormatError(DynamoRenderError):
    """A binding string does not parse (the message is the operator's wording)."""


class UsageError(DynamoRenderError):
    """Options that do not fit together, found after click has parsed them."""
