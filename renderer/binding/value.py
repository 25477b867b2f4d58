"""The binding string `v1/<uid>/<generation>/<sha256>`: format, parse, compare.

Parsing follows the operator's parseAutomaticCheckpointBinding exactly, including what it
tolerates: the generation goes through strconv.ParseInt(s, 10, 64), so `+1` and `01` are
generation 1 (but `1_0`, ` 1`, `0x1` and values beyond int64 are invalid), and the digest
through hex.DecodeString, so upper-case hex is accepted and compares equal to lower-case.
The operator's verify reports an empty value as missing before parsing; `parse_binding`
does the same, so every caller gets that wording for "".
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from renderer.errors import BindingFormatError
from renderer.goruntime.strconv import parse_int
from renderer.goruntime.strconv import quote as go_quote

BINDING_VERSION = "v1"
EXPECTED_FORMAT = "v1/<uid>/<generation>/<sha256>"


@cache
def _hex_64() -> re.Pattern[str]:
    return re.compile(r"[0-9a-fA-F]{64}")


MISSING = "automatic checkpoint binding is missing"
UID_DIFFERS = "automatic checkpoint UID differs"
GENERATION_DIFFERS = "automatic checkpoint generation differs"
PROVENANCE_DIFFERS = "automatic checkpoint provenance differs"


class Binding(NamedTuple):
    """A parsed (or computed) binding; `digest` is 64 lower-case hex."""

    uid: str
    generation: int
    digest: str

    def __str__(self) -> str:
        return f"{BINDING_VERSION}/{self.uid}/{self.generation}/{self.digest}"


def parse_binding(value: str) -> Binding:
    """Parse as the operator does; BindingFormatError carries its exact message."""
    if value == "":
        raise BindingFormatError(MISSING)
    parts = value.split("/")
    if len(parts) != 4:
        raise BindingFormatError(
            f"automatic checkpoint binding has invalid format {go_quote(value)};"
            f" expected {EXPECTED_FORMAT}"
        )
    version, uid, generation_text, digest_text = parts
    if version != BINDING_VERSION:
        raise BindingFormatError(
            f"automatic checkpoint binding version {go_quote(version)} is unsupported"
        )
    if uid == "":
        raise BindingFormatError("automatic checkpoint binding UID is missing")
    generation = parse_int(generation_text)
    if generation is None or generation < 1:
        raise BindingFormatError(
            f"automatic checkpoint binding generation {go_quote(generation_text)} is invalid"
        )
    if not _hex_64().fullmatch(digest_text):
        raise BindingFormatError(
            f"automatic checkpoint binding SHA-256 digest {go_quote(digest_text)} is invalid"
        )
    return Binding(uid=uid, generation=generation, digest=digest_text.lower())


def compare_bindings(expected: Binding, actual: Binding) -> str | None:
    """The operator's mismatch reason for a committed binding against the computed one."""
    if expected.uid != actual.uid:
        return UID_DIFFERS
    if expected.generation != actual.generation:
        return GENERATION_DIFFERS
    if expected.digest != actual.digest:
        return PROVENANCE_DIFFERS
    return None
