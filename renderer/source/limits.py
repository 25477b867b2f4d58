"""Default limits of the input layer (kept apart so importing them loads no parser)."""

from __future__ import annotations

from renderer.constants import DEFAULT_MAX_BYTES  # per file

# Nodes produced by alias expansion, per file: no document (one the pre-scan skips, a
# `---` line) starts the count again, or many small bombs would add up to gigabytes.
DEFAULT_MAX_ALIAS_NODES = 100_000
# Characters of scalar text produced by alias expansion, per file: one long string
# aliased many times is a bomb the node count does not see (every consumer that
# serialises the value, such as the binding's canonical JSON, pays for each copy).
DEFAULT_MAX_ALIAS_CHARS = 4 * 1024 * 1024
# Nesting of mappings and sequences. Real manifests stay under ~40 levels; 256 leaves
# room for recursive consumers using up to ~3 Python frames per level.
DEFAULT_MAX_DEPTH = 256
# Nodes (scalars, mappings, sequences, aliases) and documents per file. The byte cap alone
# let a 16 MB flow sequence of one-character items (8 million nodes) take 2 GB and 40 s;
# real manifests have far fewer nodes per file, and a node costs a few microseconds to
# read. Raise them with --max-nodes and --max-documents (global options) or `maxNodes` /
# `maxDocuments` in the config.
DEFAULT_MAX_NODES = 500_000
DEFAULT_MAX_DOCUMENTS = 10_000

# The caps in force for this process (the CLI sets them once from its options).
_current = {"nodes": DEFAULT_MAX_NODES, "documents": DEFAULT_MAX_DOCUMENTS}


def set_limits(*, nodes: int | None = None, documents: int | None = None) -> None:
    """Set the per-file node and document caps (None keeps the current value)."""
    if nodes is not None:
        _current["nodes"] = nodes
    if documents is not None:
        _current["documents"] = documents


def max_nodes() -> int:
    return _current["nodes"]


def max_documents() -> int:
    return _current["documents"]


__all__ = [
    "DEFAULT_MAX_ALIAS_CHARS",
    "DEFAULT_MAX_ALIAS_NODES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_DOCUMENTS",
    "DEFAULT_MAX_NODES",
    "max_documents",
    "max_nodes",
    "set_limits",
]
