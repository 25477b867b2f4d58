"""Shared helpers for the signing tests: vectors and key pairs."""

from __future__ import annotations

from pathlib import Path

from paths import VECTORS

from renderer.source import SourceObject, load_bytes

BASELINE = VECTORS / "02-worker-baseline.input.yaml"
MINIMAL = VECTORS / "01-minimal.input.yaml"


def objects_of(text: str, name: str = "snap.yaml") -> list[SourceObject]:
    return load_bytes(text.encode("utf-8"), name)


def make_keys(tmp_path: Path, stem: str = "release") -> tuple[Path, Path]:
    """A fresh key pair on disk (via the library, not the CLI under test)."""
    from renderer.trust import generate_key_pair

    private_pem, public_pem, _ = generate_key_pair()
    key, pub = tmp_path / f"{stem}.key", tmp_path / f"{stem}.pub"
    key.write_bytes(private_pem)
    pub.write_bytes(public_pem)
    return key, pub
