"""Files, directories and stdin to objects: the only I/O of the input layer."""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path as FsPath
from typing import BinaryIO

from renderer.errors import InputError
from renderer.source.model import SourceObject
from renderer.source.reader import DEFAULT_MAX_BYTES, load_bytes

YAML_SUFFIXES = (".yaml", ".yml")
STDIN_NAME = "<stdin>"


def iter_yaml_files(directory: str) -> Iterator[str]:
    """`*.yaml`/`*.yml` files under `directory`, recursively, in sorted (deterministic) order.

    Directories are walked in sorted order too, hidden ones included (a GitOps repo may keep
    manifests anywhere); symbolic links to directories are not followed, to avoid cycles.
    """
    entries: list[tuple[str, bool]] = []
    try:
        with os.scandir(directory) as scan:
            for entry in scan:
                is_dir = entry.is_dir(follow_symlinks=False)
                if is_dir or entry.name.endswith(YAML_SUFFIXES):
                    entries.append((entry.name, is_dir))
    except OSError as exc:
        raise InputError(f"cannot read directory: {exc.strerror}", directory) from None
    for entry_name, is_dir in sorted(entries):
        full = str(FsPath(directory) / entry_name)
        if is_dir:
            yield from iter_yaml_files(full)
        else:
            yield full


def _read_limited(handle: BinaryIO, max_bytes: int) -> bytes:
    # One byte more than the cap is enough to report "too large" without reading it all.
    return handle.read(max_bytes + 1)


def _read_file(path: str, max_bytes: int) -> bytes:
    try:
        with FsPath(path).open("rb") as handle:
            return _read_limited(handle, max_bytes)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None


def load_paths(
    paths: Sequence[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kinds: Collection[str] | None = None,
    stdin: BinaryIO | None = None,
    spans: bool = False,
    allow_empty: bool = False,
) -> list[SourceObject]:
    """Objects from files, directories (recursively, `*.yaml`/`*.yml`) and `-` (stdin).

    Paths are read in the order given; each directory's files in sorted order. `stdin`
    defaults to the process's binary stdin. A file named explicitly is read whatever its
    suffix. The first bad file raises InputError (no partial result). Files found in a
    directory may be empty (they hold no objects); a file named explicitly may not,
    unless `allow_empty`.
    """
    objects: list[SourceObject] = []
    for path in paths:
        if path == "-":
            handle = stdin if stdin is not None else sys.stdin.buffer
            data = _read_limited(handle, max_bytes)
            objects.extend(
                load_bytes(
                    data,
                    STDIN_NAME,
                    max_bytes=max_bytes,
                    kinds=kinds,
                    spans=spans,
                    allow_empty=allow_empty,
                )
            )
        elif FsPath(path).is_dir():
            for file in iter_yaml_files(path):
                objects.extend(
                    load_bytes(
                        _read_file(file, max_bytes),
                        file,
                        max_bytes=max_bytes,
                        kinds=kinds,
                        spans=spans,
                        allow_empty=True,
                    )
                )
        else:
            objects.extend(
                load_bytes(
                    _read_file(path, max_bytes),
                    path,
                    max_bytes=max_bytes,
                    kinds=kinds,
                    spans=spans,
                    allow_empty=allow_empty,
                )
            )
    return objects
