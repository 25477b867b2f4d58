"""Default limits of the input layer (kept apart so importing them loads no parser)."""

from __future__ import annotations

DEFAULT_MAX_BYTES = 16 * 1024 * 1024  # per file
DEFAULT_MAX_ALIAS_NODES = 100_000  # nodes produced by alias expansion, per document
# Nesting of mappings and sequences. Real manifests stay under ~40 levels; 256 leaves
# room for recursive consumers using up to ~3 Python frames per level.
DEFAULT_MAX_DEPTH = 256
