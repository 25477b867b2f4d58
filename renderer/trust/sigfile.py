"""The `.sig` file: small, text, versioned, and strict to parse.

    dynamo-render snapshot signature v1
    key: sha256:<64 lowercase hex: sha256 of the raw 32-byte Ed25519 public key>
    signature: <standard base64 of the 64-byte Ed25519 signature>

Exactly these three lines, in this order, each ending in a newline. Anything else is
malformed: a parser that tolerates extra lines invites a second, unverified payload.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

SIGNATURE_SUFFIX = ".sig"
SIGNATURE_HEADER = "dynamo-render snapshot signature v1"
_HEADER_PREFIX = "dynamo-render snapshot signature "
MAX_SIGNATURE_FILE_BYTES = 4096  # a valid one is ~180 bytes; never read a huge file
_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{86}==")
SIGNATURE_BYTES = 64


class SignatureFileError(ValueError):
    """A `.sig` file that does not parse; the message says what is wrong with it."""


@dataclass(frozen=True)
class SignatureFile:
    """A parsed `.sig` file: which key claims to have signed, and the signature bytes."""

    fingerprint: str  # "sha256:<hex>"
    signature: bytes


def signature_path(snapshot_file: str) -> str:
    """Where the detached signature of `snapshot_file` lives."""
    return snapshot_file + SIGNATURE_SUFFIX


def format_signature_file(fingerprint: str, signature: bytes) -> str:
    if not _FINGERPRINT.fullmatch(fingerprint) or len(signature) != SIGNATURE_BYTES:
        raise ValueError("not an Ed25519 fingerprint and signature")
    encoded = base64.b64encode(signature).decode("ascii")
    return f"{SIGNATURE_HEADER}\nkey: {fingerprint}\nsignature: {encoded}\n"


def parse_signature_file(data: bytes) -> SignatureFile:
    """Parse a `.sig` file, or raise SignatureFileError naming the first problem."""
    if len(data) > MAX_SIGNATURE_FILE_BYTES:
        raise SignatureFileError(f"larger than {MAX_SIGNATURE_FILE_BYTES} bytes")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise SignatureFileError("not ASCII text") from None
    if not text:
        raise SignatureFileError("empty")
    if "\r" in text:
        # a Windows checkout (git autocrlf) rewrites the file: say so, not "version 'v1\r'"
        raise SignatureFileError(
            "has CR LF (Windows) line endings; a .sig file uses LF only (check it out"
            " unchanged, e.g. `*.sig -text` in .gitattributes)"
        )
    if not text.endswith("\n"):
        raise SignatureFileError("truncated (no final newline)")
    lines = text[:-1].split("\n")
    header = lines[0]
    if header != SIGNATURE_HEADER:
        if header.startswith(_HEADER_PREFIX):
            version = header[len(_HEADER_PREFIX) :]
            raise SignatureFileError(f"unsupported version {version!r} (this tool reads v1)")
        raise SignatureFileError(f"first line is not {SIGNATURE_HEADER!r}")
    if len(lines) != 3:
        raise SignatureFileError(f"expected 3 lines (header, key, signature), found {len(lines)}")
    key = _field(lines[1], "key", 2)
    if not _FINGERPRINT.fullmatch(key):
        raise SignatureFileError(f"line 2: key {key!r} is not sha256:<64 lowercase hex>")
    encoded = _field(lines[2], "signature", 3)
    if not _BASE64.fullmatch(encoded):
        raise SignatureFileError(
            f"line 3: signature is not base64 of {SIGNATURE_BYTES} bytes (truncated?)"
        )
    try:
        signature = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise SignatureFileError("line 3: signature is not valid base64") from None
    if len(signature) != SIGNATURE_BYTES:  # pragma: no cover - the regex already ensures it
        raise SignatureFileError(f"line 3: signature is {len(signature)} bytes, not 64")
    if base64.b64encode(signature).decode("ascii") != encoded:
        # the last character before `==` carries 4 unused bits; only zeros are canonical,
        # so one signature has exactly one spelling
        raise SignatureFileError("line 3: signature is not the canonical base64 (padding bits set)")
    return SignatureFile(key, signature)


def _field(line: str, name: str, number: int) -> str:
    prefix = f"{name}: "
    if not line.startswith(prefix):
        raise SignatureFileError(f"line {number}: expected {prefix.strip()!r}")
    return line[len(prefix) :]
