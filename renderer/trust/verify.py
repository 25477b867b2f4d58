"""Signing and checking snapshot signatures, with one stable message per way to fail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from renderer.errors import InputError
from renderer.source.files import STDIN_NAME, open_regular
from renderer.source.model import SourceObject
from renderer.trust.keys import PrivateKey, TrustedKey
from renderer.trust.message import signed_message
from renderer.trust.sigfile import (
    MAX_SIGNATURE_FILE_BYTES,
    SignatureFileError,
    format_signature_file,
    parse_signature_file,
    signature_path,
)

# Failure codes, stable: lint may map them to finding details, tests assert on them.
MISSING = "missing"  # no <snapshot>.sig
MALFORMED = "malformed"  # .sig unreadable, truncated, wrong version, bad base64
UNKNOWN_KEY = "unknown-key"  # signed by a key that is not trusted
MISMATCH = "mismatch"  # right key, but the signature is not over this content
UNVERIFIABLE = "unverifiable"  # the snapshot cannot be turned into a signed message


@dataclass(frozen=True)
class TrustFailure:
    """Why a snapshot is not trusted: a stable `code` and a one-line `message`."""

    code: str
    message: str

    def __str__(self) -> str:
        return self.message


def sign_message(message: bytes, key: PrivateKey) -> str:
    """The `.sig` file text for `message` (see `signed_message`) signed with `key`."""
    return format_signature_file(key.fingerprint, key.key.sign(message))


def _trusted_list(keys: Sequence[TrustedKey]) -> str:
    if not keys:
        return "no key is trusted"
    return "trusted: " + ", ".join(k.fingerprint for k in keys)


def _read_signature_file(path: str) -> bytes:
    """The `.sig` beside a snapshot: opened without blocking, and only if a regular file.

    Nobody names this path on the command line, so a FIFO planted there must not hang
    the run (an open for reading blocks until a writer appears).
    """
    with open_regular(path) as handle:
        return handle.read(MAX_SIGNATURE_FILE_BYTES + 1)


def verify_message(
    snapshot_file: str, message: bytes, keys: Sequence[TrustedKey]
) -> TrustFailure | None:
    """Check `<snapshot_file>.sig` against an already built message; None when valid."""
    from cryptography.exceptions import InvalidSignature  # noqa: PLC0415 - cryptography (OpenSSL) only when a signature is checked
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: PLC0415 - cryptography (OpenSSL) only when a signature is checked

    sig_path = signature_path(snapshot_file)
    try:
        data = _read_signature_file(sig_path)
    except FileNotFoundError:
        return TrustFailure(
            MISSING, f"{snapshot_file}: snapshot is not signed ({sig_path} is missing)"
        )
    except OSError as exc:
        return TrustFailure(
            MALFORMED, f"{sig_path}: cannot read signature file: {exc.strerror or exc}"
        )
    try:
        parsed = parse_signature_file(data)
    except SignatureFileError as exc:
        return TrustFailure(MALFORMED, f"{sig_path}: malformed signature file: {exc}")
    key = next((k for k in keys if k.fingerprint == parsed.fingerprint), None)
    if key is None:
        return TrustFailure(
            UNKNOWN_KEY,
            f"{sig_path}: signed by an unknown key {parsed.fingerprint} ({_trusted_list(keys)})",
        )
    try:
        Ed25519PublicKey.from_public_bytes(key.raw).verify(parsed.signature, message)
    except InvalidSignature:
        return TrustFailure(
            MISMATCH,
            f"{sig_path}: signature does not match the content of {snapshot_file} (a bound"
            " field changed, or the signature is for another snapshot)",
        )
    return None


def verify_trust(
    snapshot_file: str, objects: Sequence[SourceObject], keys: Sequence[TrustedKey]
) -> TrustFailure | None:
    """Is `snapshot_file` signed by one of `keys`, over exactly these objects? None = trusted.

    `objects` are the objects loaded from `snapshot_file`, in file order. Never raises for
    a bad signature or an unbindable snapshot: both are reasons not to trust it.
    """
    if snapshot_file in ("-", STDIN_NAME):
        return TrustFailure(
            UNVERIFIABLE, "<stdin>: a snapshot read from stdin has no signature file; pass a path"
        )
    try:
        message = signed_message(objects)
    except InputError as exc:
        # A missing .sig is the more useful thing to say first.
        missing = verify_message(snapshot_file, b"", keys)
        if missing is not None and missing.code == MISSING:
            return missing
        return TrustFailure(UNVERIFIABLE, f"{snapshot_file}: cannot be verified: {exc}")
    return verify_message(snapshot_file, message, keys)


def check_trust(
    snapshot_file: str, objects: Sequence[SourceObject], keys: Sequence[TrustedKey]
) -> str | None:
    """`verify_trust` as a plain reason string (None = trusted by one of `keys`)."""
    failure = verify_trust(snapshot_file, objects, keys)
    return None if failure is None else failure.message


def check_trust_by_file(
    objects: Sequence[SourceObject], keys: Sequence[TrustedKey]
) -> dict[str, str | None]:
    """`check_trust` for every snapshot file among `objects` (grouped by `obj.file`, in order).

    Pass every DynamoCheckpoint loaded from those files, not only the ones a DGD uses: the
    signature covers the whole file, so a subset never matches.
    """
    by_file: dict[str, list[SourceObject]] = {}
    for obj in objects:
        by_file.setdefault(obj.file, []).append(obj)
    return {file: check_trust(file, objs, keys) for file, objs in by_file.items()}
