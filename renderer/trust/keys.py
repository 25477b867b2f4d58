"""Ed25519 keys in PEM: loading trusted public keys, the signing key, and making a pair.

Public keys are SubjectPublicKeyInfo PEM (`openssl pkey -pubout`), private keys PKCS8 PEM
(`openssl genpkey -algorithm ed25519`). A key is named by its fingerprint,
`sha256:<hex of sha256(raw 32-byte public key)>`, which is also what a `.sig` records.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.errors import InputError
from renderer.source.files import open_regular

MAX_KEY_FILE_BYTES = 64 * 1024  # a PEM key is a few hundred bytes
_NOT_PEM_PUBLIC = "not a PEM public key (expected -----BEGIN PUBLIC KEY-----)"
_NOT_PEM_PRIVATE = "not a PEM private key (expected -----BEGIN PRIVATE KEY-----)"
_ENCRYPTED = "encrypted private keys are not supported; decrypt it first"


@dataclass(frozen=True)
class TrustedKey:
    """A public key that may sign snapshots. `raw` is the 32-byte Ed25519 public key."""

    path: str
    fingerprint: str
    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class PrivateKey:
    """A signing key; `key` is a cryptography Ed25519PrivateKey."""

    path: str
    fingerprint: str
    key: Any = field(repr=False)


def fingerprint(raw_public_key: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw_public_key).hexdigest()


def _read_key_file(path: str, what: str) -> bytes:
    try:
        with open_regular(path) as handle:
            data = handle.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}", path) from None
    except ValueError:  # a NUL character in the path
        raise InputError(f"cannot read {what}: the path contains a NUL character", path) from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise InputError(f"not a PEM {what} (larger than {MAX_KEY_FILE_BYTES} bytes)", path)
    return data


def _raw_public(public_key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers

    raw: bytes = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def load_public_key(path: str) -> TrustedKey:
    """Read one Ed25519 public key (SubjectPublicKeyInfo PEM); InputError otherwise."""
    from cryptography.exceptions import UnsupportedAlgorithm  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers

    data = _read_key_file(path, "public key")
    if b"PRIVATE KEY-----" in data:
        raise InputError(
            "this is a private key; pass the public key (make it with "
            "`openssl pkey -in KEY -pubout -out KEY.pub`)",
            path,
        )
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise InputError(_NOT_PEM_PUBLIC, path) from None
    except UnsupportedAlgorithm:
        raise InputError("not an Ed25519 key (unsupported algorithm)", path) from None
    if not isinstance(key, Ed25519PublicKey):
        raise InputError(f"not an Ed25519 key ({type(key).__name__})", path)
    raw = _raw_public(key)
    return TrustedKey(path, fingerprint(raw), raw)


def load_trusted_keys(paths: Sequence[str]) -> list[TrustedKey]:
    """Read the `--trusted-key` files, in order, without duplicates (same fingerprint)."""
    keys: list[TrustedKey] = []
    seen: set[str] = set()
    for path in paths:
        key = load_public_key(path)
        if key.fingerprint not in seen:
            seen.add(key.fingerprint)
            keys.append(key)
    return keys


def load_private_key(path: str) -> PrivateKey:
    """Read an unencrypted Ed25519 private key (PKCS8 PEM, or OpenSSL's traditional PEM)."""
    from cryptography.exceptions import UnsupportedAlgorithm  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers

    data = _read_key_file(path, "private key")
    if b"-----BEGIN PUBLIC KEY-----" in data:
        raise InputError("this is a public key; signing needs the private key", path)
    if b"ENCRYPTED PRIVATE KEY" in data:
        raise InputError(_ENCRYPTED, path)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise InputError(_ENCRYPTED, path) from None
    except ValueError:
        raise InputError(_NOT_PEM_PRIVATE, path) from None
    except UnsupportedAlgorithm:
        raise InputError("not an Ed25519 key (unsupported algorithm)", path) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError(f"not an Ed25519 key ({type(key).__name__})", path)
    return PrivateKey(path, fingerprint(_raw_public(key.public_key())), key)


def generate_key_pair() -> tuple[bytes, bytes, str]:
    """A new Ed25519 pair: (PKCS8 PEM private key, SubjectPublicKeyInfo PEM, fingerprint)."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: PLC0415 - cryptography (OpenSSL) only when a key is used, not for trust's file helpers

    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key()
    public_pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private_pem, public_pem, fingerprint(_raw_public(public))
