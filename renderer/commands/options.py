"""Click options more than one command takes, defined once (name, type, metavar, default).

Each command words its own help, since what the option does differs a little between them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from renderer.constants import DEFAULT_MAX_BYTES

F = TypeVar("F", bound=Callable[..., Any])


def trusted_key_option(help_text: str) -> Callable[[F], F]:
    """`--trusted-key KEY` (repeatable), passed as `trusted_keys`."""
    return click.option(
        "--trusted-key", "trusted_keys", multiple=True, metavar="KEY", help=help_text
    )


def crd_option(help_text: str) -> Callable[[F], F]:
    """`--crd FILE` (repeatable), passed as `crds`."""
    return click.option("--crd", "crds", multiple=True, metavar="FILE", help=help_text)


def max_bytes_option(help_text: str = "Refuse input files larger than this.") -> Callable[[F], F]:
    """`--max-bytes N`, at least 1, default DEFAULT_MAX_BYTES."""
    return click.option(
        "--max-bytes",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_BYTES,
        show_default=True,
        help=help_text,
    )
