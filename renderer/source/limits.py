"""Default limits of the input layer (kept apart so importing them loads no parser)."""

from __future__ import annotations

from renderer.constants import DEFAULT_MAX_BYTES  # per file

DEFAULT_MAX_ALIAS_NODES = 100_000  # nodes produced by alias expansion, per document
# Characters of scalar text produced by alias expansion, per document: one long string
# aliased many times is a bomb the node count does not see (every consumer that
# serialises the value, such as the binding's canonical JSON, pays for each copy).
DEFAULT_MAX_ALIAS_CHARS = 4 * 1024 * 1024
# Nesting of mappings and sequences. Real manifests stay under ~40 levels; 256 leaves
# room for recursive consumers using up to ~3 Python frames per level.
DEFAULT_MAX_DEPTH = 256

__all__ = [
    "DEFAULT_MAX_ALIAS_CHARS",
    "DEFAULT_MAX_ALIAS_NODES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
]
