"""Default limits of the input layer (kept apart so importing them loads no parser)."""

from __future__ import annotations

DEFAULT_MAX_BYTES = 16 * 1024 * 1024  # per file
DEFAULT_MAX_ALIAS_NODES = 100_000  # nodes produced by alias expansion, per document
DEFAULT_MAX_DEPTH = 512  # nesting of mappings and sequences
