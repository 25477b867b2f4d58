"""The input layer: YAML files, directories and stdin to located Kubernetes objects.

Public surface (implemented in `reader` and `files`):

- `load_bytes(data, name, *, max_bytes=DEFAULT_MAX_BYTES) -> list[SourceObject]`
- `load_paths(paths, *, max_bytes=DEFAULT_MAX_BYTES, kinds=None) -> list[SourceObject]`
- `SourceObject`, `Mark`, `Path` (see `model`)

Every failure is an `InputError` naming file:line:column.
"""

from renderer.source.model import Mark, Path, SourceObject

DEFAULT_MAX_BYTES = 16 * 1024 * 1024

__all__ = ["DEFAULT_MAX_BYTES", "Mark", "Path", "SourceObject"]
