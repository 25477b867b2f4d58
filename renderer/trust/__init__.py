"""Signed checkpoint snapshots: who captured this snapshot, and has a bound field changed since?

A detached Ed25519 signature (`<snapshot>.sig`) covers what every binding is computed from
(uid, generation, namespace, name and the exact canonical projection of each checkpoint),
not the YAML formatting. See docs/security.md for precisely what is and is not covered.

Public surface, for `snapshot sign|verify` and for `--trusted-key` in render and lint:

- `load_trusted_keys(paths) -> list[TrustedKey]` (raises InputError, exit 2)
- `check_trust(snapshot_file, objects, keys) -> str | None` (None = trusted)
- `check_trust_by_file(objects, keys) -> dict[file, str | None]` (objects from many files)
- `verify_trust(snapshot_file, objects, keys) -> TrustFailure | None` (same, with a code)
- `signed_message(objects) -> bytes`, `sign_message(message, key) -> str` (the .sig text)

cryptography is imported only inside the functions that need it, so importing this package
costs nothing on the lint/render hot path.
"""

from renderer.trust.keys import (
    PrivateKey,
    TrustedKey,
    fingerprint,
    generate_key_pair,
    load_private_key,
    load_trusted_keys,
)
from renderer.trust.message import DOMAIN_PREFIX, MESSAGE_VERSION, signed_message
from renderer.trust.sigfile import (
    SIGNATURE_HEADER,
    SIGNATURE_SUFFIX,
    SignatureFile,
    SignatureFileError,
    format_signature_file,
    parse_signature_file,
    signature_path,
)
from renderer.trust.verify import (
    TrustFailure,
    check_trust,
    check_trust_by_file,
    sign_message,
    verify_message,
    verify_trust,
)

__all__ = [
    "DOMAIN_PREFIX",
    "MESSAGE_VERSION",
    "SIGNATURE_HEADER",
    "SIGNATURE_SUFFIX",
    "PrivateKey",
    "SignatureFile",
    "SignatureFileError",
    "TrustFailure",
    "TrustedKey",
    "check_trust",
    "check_trust_by_file",
    "fingerprint",
    "format_signature_file",
    "generate_key_pair",
    "load_private_key",
    "load_trusted_keys",
    "parse_signature_file",
    "sign_message",
    "signature_path",
    "signed_message",
    "verify_message",
    "verify_trust",
]
