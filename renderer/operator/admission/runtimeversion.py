"""internal/runtimeversion (image-tag compatibility versions) and the semver parsers it uses.

``parse_image_version`` follows ParseImageVersion: the tag after the last ``:`` that comes
after the last ``/`` (a ``@digest`` cut off first), trimmed, must be a semantic version with
an optional ``v``/``V`` (prerelease and build allowed, the core is what counts).
``strict_semver`` is Masterminds ``StrictNewVersion``; ``loose_semver_ok`` asks its
``NewVersion`` at v3.4.0 (coercing), whose one emulation is compatibility.parse_version.
"""

from __future__ import annotations

import re

from renderer.goruntime.strconv import quote as go_quote
from renderer.goruntime.strings import trim_space
from renderer.operator.compatibility import parse_version
from renderer.operator.errors import OperatorError

_IDENT = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"


# imageTagPattern (anchored by fullmatch); `re` compiles it on first use and caches it.
_IMAGE_TAG = (
    r"[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    rf"(?:-({_IDENT}(?:\.{_IDENT})*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)


_UINT64_MAX = (1 << 64) - 1


class VersionError(OperatorError):
    """The text is not a version the operator accepts (message as Go words it)."""


def _image_tag(image: str) -> str:
    ref = trim_space(image)
    digest = ref.find("@")
    if digest >= 0:
        ref = ref[:digest]
    last_slash = ref.rfind("/")
    last_colon = ref.rfind(":")
    if last_colon <= last_slash:
        return ""
    return ref[last_colon + 1 :]


def _prerelease_ok(pre: str) -> bool:
    # Numeric identifiers may not have leading zeros (validatePrerelease).
    return all(not (p.isdigit() and len(p) > 1 and p[0] == "0") for p in pre.split("."))


def strict_semver(value: str) -> tuple[int, int, int]:
    """StrictNewVersion: MAJOR.MINOR.PATCH[-pre][+build], no ``v``, no leading zeros."""
    m = re.fullmatch(
        r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
        r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?",
        value,
    )
    if m is None or (m.group(4) and not _prerelease_ok(m.group(4))):
        raise VersionError("invalid semantic version")
    core = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if max(core) > _UINT64_MAX:
        raise VersionError("invalid semantic version")
    return core


def loose_semver_ok(value: str) -> bool:
    """Whether Masterminds NewVersion (v3.4.0, CoerceNewVersion on) parses ``value``."""
    return parse_version(value) is not None


def parse_image_version(image: str) -> tuple[int, int, int]:
    """ParseImageVersion: the (major, minor, patch) of the image tag, or VersionError."""
    tag = _image_tag(image)
    if tag == "":
        raise VersionError(f"image {go_quote(image)} does not contain a tag")
    trimmed = trim_space(tag)
    if re.fullmatch(_IMAGE_TAG, trimmed) is None:
        raise VersionError(
            f'image tag {go_quote(tag)} must contain a semantic version such as "1.1.0"'
        )
    bare = trimmed[1:] if trimmed[:1] in ("v", "V") else trimmed
    try:
        return strict_semver(bare)
    except VersionError:
        raise VersionError(
            f'image tag {go_quote(tag)} must contain a semantic version such as "1.1.0"'
        ) from None


def parse(value: str) -> tuple[int, int, int]:
    """Parse: an explicit runtimeVersionOverride (strict semver)."""
    try:
        return strict_semver(value)
    except VersionError:
        raise VersionError('must be a semantic version such as "1.1.0"') from None


def resolve(image: str, override: str) -> tuple[int, int, int]:
    """Resolve: the override when set, else the image tag's version."""
    if override:
        return parse(override)
    return parse_image_version(image)
