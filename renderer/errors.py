"""The exception hierarchy. The CLI turns every one of these into a message and exit code 2."""

from __future__ import annotations


class DynamoRenderError(Exception):
    """Base of every error the tool reports to the user (exit code 2)."""

    exit_code = 2


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


class BindingError(InputError):
    """A checkpoint snapshot cannot be bound, or cannot be encoded exactly as the operator would."""


class BindingFormatError(DynamoRenderError):
    """A binding string does not parse (the message is the operator's wording)."""


class UsageError(DynamoRenderError):
    """Options that do not fit together, found after click has parsed them."""
