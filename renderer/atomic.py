"""Atomic file writes: the one way this tool replaces a file on disk.

A temp file in the same directory, written, flushed and fsynced, then renamed over the
target: a reader, a crash or SIGKILL sees the old file or the new one, never half of one.
The temp name is dot-prefixed and ends in `.tmp`, so the YAML loader never picks a stray
one up.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from renderer.errors import UsageError


def write_atomic(path: str, data: bytes, *, mode: int = 0o644) -> None:
    """Replace `path` with `data` in one step; the file gets `mode` from the start (so a
    private key is never readable by others). Raises OSError; the temp file is removed."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(target)  # atomic rename (os.replace)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_file(path: str, data: bytes, *, mode: int = 0o644) -> None:
    """`write_atomic` for the commands: a failure is a usage error naming the file."""
    try:
        write_atomic(path, data, mode=mode)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
