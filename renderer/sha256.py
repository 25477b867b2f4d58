"""SHA-256 from the interpreter's built-in module where it has one.

hashlib loads OpenSSL (2 to 3 ms of a hook's or a render's start-up) for a function the
interpreter also carries built in (CPython's `_sha256`); the digest is the same. hashlib
is the fallback elsewhere.
"""

from __future__ import annotations

from typing import Any

try:
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]  # CPython 3.11
except ImportError:
    from hashlib import sha256 as _sha256


def sha256_type() -> Any:
    """The sha256 constructor (`sha256_type()(data).hexdigest()`)."""
    return _sha256


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 digest of `data`."""
    digest: str = sha256_type()(data).hexdigest()
    return digest
