"""internal/features/compatibility: behaviour gated on the DGD's operator origin version.

The defaulting webhook stamps ``nvidia.com/dynamo-operator-origin-version`` at creation; a
gate is on when that version is at least the gate's minimum. A missing or unparsable
annotation keeps the gate off (the DGD predates the behaviour). Versions are parsed as
Masterminds/semver v3.4.0's ``NewVersion`` does by default (coercing: ``v`` prefix, missing
minor/patch, leading zeros in numbers) and compared by its ``Compare``.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from renderer.goruntime.strconv import parse_uint
from renderer.operator import consts

_UINT64_MAX = 2**64 - 1
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


class SemVer(NamedTuple):
    """A parsed version: numbers and the pre-release (build metadata never compares)."""

    major: int
    minor: int
    patch: int
    pre: str = ""


# Masterminds semver's loose version pattern (anchored by fullmatch); `re` caches it.
_LOOSE = (
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)


def parse_version(text: str) -> SemVer | None:
    """NewVersion (coercing): the version, or None where Go returns an error."""
    match = re.fullmatch(_LOOSE, text)
    if match is None:
        return None
    numbers = [int(match.group(1)), 0, 0]
    for i, group in ((1, match.group(2)), (2, match.group(3))):
        if group:
            numbers[i] = int(group[1:])
    if any(n > _UINT64_MAX for n in numbers):
        return None  # strconv.ParseUint range error
    pre = match.group(5) or ""
    metadata = match.group(8) or ""
    if pre and not _valid_prerelease(pre):
        return None
    if metadata and any(not part or set(part) - _ALLOWED for part in metadata.split(".")):
        return None
    return SemVer(numbers[0], numbers[1], numbers[2], pre)


def _valid_prerelease(pre: str) -> bool:
    for part in pre.split("."):
        if not part:
            return False
        if part.isascii() and part.isdigit():
            if len(part) > 1 and part[0] == "0":
                return False
        elif set(part) - _ALLOWED:
            return False
    return True


def compare_versions(a: SemVer, b: SemVer) -> int:
    """Version.Compare: -1, 0 or 1."""
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return -1 if x < y else 1
    if not a.pre and not b.pre:
        return 0
    if not a.pre:
        return 1
    if not b.pre:
        return -1
    sparts, oparts = a.pre.split("."), b.pre.split(".")
    for i in range(max(len(sparts), len(oparts))):
        d = _compare_pre_part(
            sparts[i] if i < len(sparts) else "", oparts[i] if i < len(oparts) else ""
        )
        if d:
            return d
    return 0


def _as_uint(text: str) -> int | None:
    return parse_uint(text)


def _compare_pre_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if not s:
        return -1
    if not o:
        return 1
    si, oi = _as_uint(s), _as_uint(o)
    if si is None and oi is None:
        return 1 if s > o else -1  # byte order equals code-point order for these ASCII parts
    if oi is None:
        return -1
    if si is None:
        return 1
    return 1 if si > oi else -1


class Gate(NamedTuple):
    """Gate: a feature on for DGDs first created by operator ``min_origin_version`` or later."""

    name: str
    min_origin_version: SemVer

    def enabled(self, annotations: dict[str, str] | None) -> bool:
        """Enabled: the origin-version annotation parses and is >= the minimum."""
        origin = (annotations or {}).get(consts.KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION)
        if origin is None:
            return False
        version = parse_version(origin)
        if version is None:
            return False
        return compare_versions(version, self.min_origin_version) >= 0


#: VLLMMultiprocessing: vLLM multinode uses native multiprocessing instead of Ray.
VLLM_MULTIPROCESSING: Final = Gate("VLLMMultiprocessing", SemVer(1, 0, 0))
