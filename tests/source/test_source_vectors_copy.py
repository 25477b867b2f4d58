"""The vendored vectors must stay byte-identical to the shared reference copy."""

from __future__ import annotations

import pytest
from paths import REPO, VECTORS

LOCAL = VECTORS
SHARED = REPO.parent / "shared" / "vectors"


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/vectors is not available")
def test_vectors_copy_is_identical() -> None:
    local = sorted(p.relative_to(LOCAL) for p in LOCAL.rglob("*") if p.is_file())
    shared = sorted(p.relative_to(SHARED) for p in SHARED.rglob("*") if p.is_file())
    assert local == shared
    for relative in local:
        assert (LOCAL / relative).read_bytes() == (SHARED / relative).read_bytes(), relative
