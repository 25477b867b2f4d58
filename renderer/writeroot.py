"""Where the commands may write, and what they may read or replace in an output folder.

Every file of the repository, the config included, may come from an untrusted pull
request, so the commands hold two rules:

- Writes stay inside the repository root: the config's folder, or the working directory
  when there is no config (or `--no-config`). A path named on the command line that does
  not lead through the repository is the caller's choice and is a root too; one that does
  is covered by the root, so a committed symlink named (as CI names changed files) cannot
  stretch it. Paths are compared after resolving every symlink, so a committed symlink
  (or a symlinked folder) leading out of the root is refused: exit 2, naming the path.
- In an output folder only regular files are read or replaced: a symlink (to `/dev/zero`,
  say), a FIFO, a device or a directory where an output file belongs is exit 2. Existing
  outputs are read no further than the new content's length plus one byte.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from renderer.config import from_context
from renderer.errors import UsageError


def real(path: str) -> str:
    """`path` absolute with every existing symlink resolved (missing parts kept as written)."""
    return os.path.realpath(path)


def _within(path: str, root: str) -> bool:
    return path == root or os.path.commonpath([path, root]) == root


def roots_for(ctx: Any, given: Iterable[str] = ()) -> list[str]:
    """The repository root (the config's folder, else the working directory) and the
    paths the caller named on the command line (`given`), all resolved."""
    config = from_context(ctx.find_root())
    try:
        root = config.base_dir if config is not None and config.base_dir else str(Path.cwd())
    except OSError as exc:
        raise UsageError(f"cannot tell the repository root: {exc.strerror or exc}") from None
    top = real(root)
    return [top, *(real(p) for p in given if p != "-" and not _through(p, top))]


def _through(path: str, root: str) -> bool:
    """Whether `path`, followed from its first component, enters `root`: then it names
    something in the repository (whatever a link there points to) and adds no root."""
    # `..` taken as written (the caller's path), links not: each prefix is resolved alone
    given = Path(os.path.abspath(path))  # noqa: PTH100
    return any(_within(real(str(prefix)), root) for prefix in (given, *given.parents))


def require_inside(path: str, roots: Sequence[str]) -> None:
    """UsageError unless `path` (every symlink resolved) is inside one of `roots`."""
    resolved = real(path)
    if any(_within(resolved, root) for root in roots):
        return
    plain = os.path.normpath(Path.cwd() / path)
    via = "" if resolved == plain else f" (it resolves to {resolved})"
    raise UsageError(
        f"refusing to write {path}{via}: outside the repository root {roots[0]};"
        " writes stay inside it (see docs/security.md)"
    )


def lstat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _not_regular(path: str, mode: int) -> UsageError:
    if stat.S_ISDIR(mode):
        return UsageError(f"cannot write {path}: a directory is in the way")
    what = "a symlink" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device"
    return UsageError(
        f"{path}: {what}, not a regular file; only regular files are read or replaced"
    )


def read_regular(path: str, limit: int) -> bytes | None:
    """The first `limit` bytes of the regular file at `path`; None when there is none.

    Opened without following a symlink and without blocking (a FIFO swapped in after the
    check cannot hang the read); anything but a regular file is a UsageError.
    """
    info = lstat_or_none(path)
    if info is None:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def check_folder(path: str) -> None:
    """Before rendering: `path` is a folder, or one can be created there (UsageError)."""
    probe = path
    while True:
        try:
            info = Path(probe).stat()
        except (FileNotFoundError, NotADirectoryError):
            parent = str(Path(probe).parent)
            if parent == probe:
                return
            probe = parent
            continue
        except OSError as exc:  # a name too long, a permission denied on a parent
            raise UsageError(f"cannot create {path}: {exc.strerror or exc}") from None
        break
    if not stat.S_ISDIR(info.st_mode):
        if probe == path:
            raise UsageError(f"-o {path}: not a directory")
        raise UsageError(f"cannot create {path}: {probe} is not a directory")


def make_folder(path: str) -> None:
    """Create the output folder (and its parents): UsageError naming it when it cannot be."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {path}: {exc.strerror or exc}") from None
    if not Path(path).is_dir():
        raise UsageError(f"cannot create {path}: not a directory")
