"""Atomic file writes: the one way this tool replaces a file on disk.

A temp file in the same directory, written, flushed and fsynced, then renamed over the
target: a reader, a crash or SIGKILL sees the old file or the new one, never half of one.
The temp name is `.<target>.dynamo-render-<pid>-<random>.tmp`: dot-prefixed and ending in
`.tmp`, so the YAML loader never picks a stray one up, and recognisable, so a leftover
from a killed run is removed by the next run that writes in that folder
(`remove_leftovers`: only regular files of that pattern whose process is gone).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from renderer.errors import UsageError

TEMP_PATTERN = re.compile(r"\A\..+\.dynamo-render-(?P<pid>[1-9][0-9]{0,9})-[0-9a-f]{8}\.tmp\Z")
_cleaned: set[str] = set()  # folders already swept by this process


def temp_name(target: Path) -> Path:
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    return target.with_name(f".{target.name}.dynamo-render-{tag}.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_leftovers(folder: str) -> list[str]:
    """Delete this tool's temp files in `folder` left by a killed run (their writer's
    process is gone); returns their paths. Never follows a link, never touches anything
    else; errors are ignored (a leftover is harmless)."""
    key = os.path.realpath(folder)
    if key in _cleaned:
        return []
    _cleaned.add(key)
    removed: list[str] = []
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for path in entries:
        match = TEMP_PATTERN.match(path.name)
        if match is None or _alive(int(match.group("pid"))):
            continue
        try:
            if stat.S_ISREG(path.lstat().st_mode):
                path.unlink()
                removed.append(str(path))
        except OSError:
            continue
    return removed


def write_atomic(path: str, data: bytes, *, mode: int = 0o644) -> None:
    """Replace `path` with `data` in one step; the file gets `mode` from the start (so a
    private key is never readable by others). Raises OSError; the temp file is removed."""
    target = Path(path)
    remove_leftovers(str(target.parent))
    tmp = temp_name(target)
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
