"""Scalars and keys as YAML text, for the values and keys `lint --fix` writes."""

from __future__ import annotations

import json
import re

_PLAIN_SAFE = re.compile(r"\A[A-Za-z_][A-Za-z0-9._/-]*\Z")


def double(value: str) -> str:
    return json.dumps(value, ensure_ascii=True)


def _single(value: str) -> str:
    if any(c in value for c in "\n\r\t") or not value.isprintable():
        return double(value)
    return "'" + value.replace("'", "''") + "'"


def _plain_ok(value: str) -> bool:
    # letters first and a slash or dot inside: never a YAML 1.1 bool, null or number
    return bool(_PLAIN_SAFE.match(value)) and ("/" in value or "." in value)


def render_scalar(value: str, style: str) -> str:
    """`value` as a YAML scalar, in `style` ("" plain, "'" or '"') when that is safe."""
    if style == "'":
        return _single(value)
    if style == "" and _plain_ok(value):
        return value
    return _single(value) if style == "" else double(value)


def render_key(key: str, quote: str) -> str:
    if quote == "'":
        return _single(key)
    if quote == '"' or not _PLAIN_SAFE.match(key):
        return double(key)
    return key
