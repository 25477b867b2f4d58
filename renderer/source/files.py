"""Files, directories and stdin to objects: the only I/O of the input layer."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import weakref
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path as FsPath
from typing import Any, BinaryIO

from renderer.errors import InputError
from renderer.record import replace
from renderer.source.model import SourceObject
from renderer.source.reader import DEFAULT_MAX_BYTES, load_bytes

# What `kubectl apply -R -f DIR` reads from a folder (cli-runtime's FileExtensions).
MANIFEST_SUFFIXES = (".json", ".yaml", ".yml")
YAML_SUFFIXES = MANIFEST_SUFFIXES  # (the older name)
STDIN_NAME = "<stdin>"
# Streams already read to the end as `-`: a second `-` (in one command line, or in two
# options of it) would silently read nothing, so it is refused instead.
_CONSUMED: weakref.WeakSet[BinaryIO] = weakref.WeakSet()


def iter_yaml_files(directory: str) -> Iterator[str]:
    """`*.json`/`*.yaml`/`*.yml` files under `directory`, recursively, in sorted
    (deterministic) order: what `kubectl apply -R -f` reads from it.

    Directories are walked in sorted order too, hidden ones included (a GitOps repo may keep
    manifests anywhere); symbolic links to directories are skipped, not followed, to avoid
    cycles. A matching entry that is not a regular file (a FIFO, socket or device, which
    could block the read forever) is an error, as it is when named: only `-` reads a stream.
    """
    for file, _ in _walk(directory, None):
        yield file


def _walk(directory: str, real_dir: str | None) -> Iterator[tuple[str, str | None]]:
    """(file, its real path or None) for `iter_yaml_files`; with `real_dir` (the
    directory's real path) the real path of every entry that is not a symbolic link is
    `real_dir/name`, without the lstat of each path component that os.path.realpath
    costs (a tenth of reading a small file); a link's real path is left to the caller.

    Depth first, each directory's entries in sorted order, with a stack of its own rather
    than recursion: a repository may nest folders deeper than Python's recursion limit."""
    stack = [iter(_listing(directory, real_dir))]
    while stack:
        found = next(stack[-1], None)
        if found is None:
            stack.pop()
        elif found[2]:
            stack.append(iter(_listing(found[0], found[1])))
        else:
            yield found[0], found[1]


def _listing(directory: str, real_dir: str | None) -> list[tuple[str, str | None, bool]]:
    """(path, real path or None, is a directory) of the entries `_walk` visits in
    `directory`, sorted by name."""
    entries: list[tuple[str, bool, bool]] = []
    try:
        with os.scandir(directory) as scan:
            for entry in scan:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not entry.name.endswith(MANIFEST_SUFFIXES):
                    continue
                # (the entry's type comes with the listing: a stat only for links and
                # file systems that do not say)
                if (
                    not is_dir
                    and not entry.is_file(follow_symlinks=False)
                    and not _regular_or_broken(entry, directory)
                ):
                    continue  # a symbolic link to a directory
                entries.append((entry.name, is_dir, entry.is_symlink()))
    except OSError as exc:
        raise InputError(f"cannot read directory: {exc.strerror}", directory) from None
    base = str(FsPath(directory))  # spelled as pathlib spells it, once per directory
    return [
        (
            _child(base, name),
            None if real_dir is None or is_link else _child(real_dir, name),
            is_dir,
        )
        for name, is_dir, is_link in sorted(entries)
    ]


def _child(base: str, name: str) -> str:
    """`str(FsPath(base) / name)` for a `base` pathlib has already normalised."""
    if base == ".":
        return name
    if base.endswith(os.sep) or (os.name == "nt" and base.endswith(":")):
        return base + name
    return base + os.sep + name


def _regular_or_broken(entry: os.DirEntry[str], directory: str) -> bool:
    """False for a link to a directory (skipped); raises for a FIFO, socket or device.

    A link whose target cannot be reached (dangling, a loop) is left to the read, which
    names the reason.
    """
    try:
        mode = entry.stat().st_mode
    except OSError:
        return True
    if stat.S_ISDIR(mode):
        return False
    if not stat.S_ISREG(mode):
        raise InputError(NOT_REGULAR, str(FsPath(directory) / entry.name))
    return True


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(FsPath(path).stat().st_mode)
    except (OSError, ValueError):
        return False  # the read that follows names the reason (too long, a loop, ...)


_CHUNK = 1 << 20


def _read_limited(handle: BinaryIO, max_bytes: int) -> bytes:
    """At most `max_bytes + 1` bytes: one more than the cap is enough to report "too large"
    without reading it all. Read in chunks, so that a huge cap (`--max-bytes 10**20`) costs
    what the file holds, not an allocation of the cap."""
    if max_bytes < _CHUNK:
        return handle.read(max_bytes + 1)
    chunks: list[bytes] = []
    size = 0
    while size <= max_bytes:
        chunk = handle.read(min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


NOT_REGULAR = (
    "not a regular file (a FIFO, socket or device): only regular files are read;"
    " pipe a stream to - (standard input) instead"
)


class NotRegularFileError(OSError):
    """`open_regular` found a FIFO, socket, device or directory."""


def open_regular(path: str) -> BinaryIO:
    """`path` opened for reading if it is a regular file (after following links), else
    NotRegularFileError (IsADirectoryError for a directory). Opened without blocking, so a
    FIFO or a terminal a hostile repository links to is refused instead of waited on; for
    a regular file the flag changes nothing."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_file(path: str, max_bytes: int) -> bytes:
    try:
        with open_regular(path) as handle:
            return _read_limited(handle, max_bytes)
    except NotRegularFileError:
        raise InputError(NOT_REGULAR, path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path) from None
    except ValueError:  # a NUL character in the path
        raise InputError("cannot read file: the path contains a NUL character", path) from None


_MemoKey = tuple[str, frozenset[str] | None, int, bool]


class ReadMemo:
    """Files already read, for a second read of the same paths (`lint --fix` lints again
    what is on disk after it wrote): a file whose bytes are still the bytes its objects
    were read from is not parsed again.

    `load_bytes` is a function of its arguments only (the bytes, the name and the options),
    so objects kept for equal bytes, name and options are the objects a parse would give;
    kept objects read with `spans` serve a read without them, their `value_spans` emptied
    (the only field `spans` fills). Reading the bytes again (a file's read, not its parse)
    is what makes a reuse safe: a file that changed in between is parsed anew.
    """

    def __init__(self) -> None:
        self._entries: dict[_MemoKey, tuple[bytes, bool, list[SourceObject]]] = {}

    @staticmethod
    def _key(
        name: str, kinds: Collection[str] | None, max_bytes: int, allow_empty: bool
    ) -> _MemoKey:
        return (name, None if kinds is None else frozenset(kinds), max_bytes, allow_empty)

    def put(
        self,
        name: str,
        data: bytes,
        objects: Sequence[SourceObject],
        *,
        kinds: Collection[str] | None,
        max_bytes: int,
        allow_empty: bool,
        spans: bool,
    ) -> None:
        """Keep `objects`, what `load_bytes(data, name, ...)` gave with these options."""
        key = self._key(name, kinds, max_bytes, allow_empty)
        self._entries[key] = (data, spans, list(objects))

    def get(
        self,
        name: str,
        data: bytes,
        *,
        kinds: Collection[str] | None,
        max_bytes: int,
        allow_empty: bool,
        spans: bool,
    ) -> list[SourceObject] | None:
        """What `load_bytes(data, name, ...)` gives, when kept; None: parse it."""
        entry = self._entries.get(self._key(name, kinds, max_bytes, allow_empty))
        if entry is None or entry[0] != data or (spans and not entry[1]):
            return None
        if entry[1] and not spans:
            return [replace(o, value_spans={}) for o in entry[2]]
        return list(entry[2])


def load_paths(
    paths: Sequence[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kinds: Collection[str] | None = None,
    stdin: BinaryIO | None = None,
    spans: bool = False,
    allow_empty: bool = False,
    skipped: list[str] | None = None,
    memo: ReadMemo | None = None,
) -> list[SourceObject]:
    """Objects from files, directories (recursively, `*.json`/`*.yaml`/`*.yml`, as kubectl
    -R -f reads them) and `-` (stdin).

    With a `skipped` list, files kubectl refuses too that are plainly not Kubernetes
    objects (see `renderer.source.skip`: Helm values and chart templates, kustomize
    patches) are appended to it instead of failing the read; any other file that does not
    read still fails.

    Paths are read in the order given; each directory's files in sorted order. `stdin`
    defaults to the process's binary stdin. A file named explicitly is read whatever its
    suffix. The first bad file raises InputError (no partial result). Files found in a
    directory may be empty (they hold no objects); a file named explicitly may not,
    unless `allow_empty`. A file named twice (a file and its directory, two spellings of
    one path, a link) is read once, under the first name. With a `memo`, files (not
    stdin) are parsed only when it holds no objects for their bytes, and their objects
    are kept in it.
    """
    objects: list[SourceObject] = []
    seen: set[str] = set()  # real paths of the files read

    def read(
        data: bytes, name: str, empty: bool, keep: bool = True, found: bool = False
    ) -> list[SourceObject]:
        kept = memo if keep else None  # stdin is not kept: it cannot be read again
        if kept is not None:
            known = kept.get(
                name, data, kinds=kinds, max_bytes=max_bytes, allow_empty=empty, spans=spans
            )
            if known is not None:
                return known
        try:
            objects = load_bytes(
                data, name, max_bytes=max_bytes, kinds=kinds, spans=spans, allow_empty=empty
            )
        except InputError as exc:
            if skipped is None or not _skippable(name, data, exc, found):
                raise
            skipped.append(name)
            return []
        if kept is not None:
            kept.put(
                name,
                data,
                objects,
                kinds=kinds,
                max_bytes=max_bytes,
                allow_empty=empty,
                spans=spans,
            )
        return objects

    def first_time(file: str, real: str | None = None) -> bool:
        if real is None:
            real = os.path.realpath(file)
        if real in seen:
            return False
        seen.add(real)
        return True

    for path in paths:
        if path == "-":
            handle = stdin if stdin is not None else sys.stdin.buffer
            if handle in _CONSUMED:
                raise InputError("standard input was already read: give - only once", STDIN_NAME)
            data = _read_limited(handle, max_bytes)
            with contextlib.suppress(TypeError):  # a stream without weak references
                _CONSUMED.add(handle)
            objects.extend(read(data, STDIN_NAME, allow_empty, keep=False))
        elif _is_dir(path):
            for file, real in _walk(path, os.path.realpath(path)):
                if first_time(file, real):
                    objects.extend(read(_read_file(file, max_bytes), file, True, found=True))
        elif first_time(path):
            objects.extend(read(_read_file(path, max_bytes), path, allow_empty))
    return objects


def read_file(path: str, max_bytes: int) -> bytes:
    """A file's bytes as load_paths reads them (at most `max_bytes + 1`); InputError."""
    return _read_file(path, max_bytes)


def iter_files(paths: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """(file, named explicitly) for every file `load_paths(paths)` reads, in its order,
    each once; `-` (stdin) is not a file here and raises ValueError. Raises InputError
    where load_paths would (an unreadable directory, a FIFO in one)."""
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            raise ValueError("stdin is not a file")
        explicit = not _is_dir(path)
        found = [(path, None)] if explicit else _walk(path, os.path.realpath(path))
        for file, known in found:
            real = os.path.realpath(file) if known is None else known
            if real not in seen:
                seen.add(real)
                yield file, explicit


def load_file(
    file: str,
    *,
    explicit: bool,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kinds: Collection[str] | None = None,
    allow_empty: bool = False,
    skipped: list[str] | None = None,
    data: bytes | None = None,
) -> list[SourceObject]:
    """One file's objects exactly as `load_paths` reads it (`explicit`: named on the
    command line, so empty only with `allow_empty`; a directory's files may be empty;
    `skipped` as in load_paths; `data`: its bytes, already read with `read_file`)."""
    data = _read_file(file, max_bytes) if data is None else data
    try:
        return load_bytes(
            data, file, max_bytes=max_bytes, kinds=kinds, allow_empty=allow_empty or not explicit
        )
    except InputError as exc:
        if skipped is None or not _skippable(file, data, exc, not explicit):
            raise
    skipped.append(file)
    return []


def _skippable(file: str, data: bytes, error: InputError, found: bool) -> bool:
    """`skip.skippable` for a file named on the command line or `found` in a folder (only
    there does a chart's `templates/` folder count)."""
    from renderer.source.skip import is_chart_template, skippable  # noqa: PLC0415 - chart-template detection only for a file that fails to read

    chart = found and "templates" in file and is_chart_template(file)
    return skippable(data, error, chart_template=chart)


def read_objects(
    paths: Sequence[str],
    *,
    kinds: Collection[str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    per_file: bool = False,
) -> tuple[list[dict[str, Any]], list[str]]:
    """(the objects lint reads from `paths`, as JSON-compatible values in their order; the
    files it skips): what `kubectl apply -R -f PATH...` would send, for the differential
    tests against kubectl. Files and folders as lint takes them (`kinds`: lint's kind
    filter and its pre-scan; `per_file`: the per-file reading of a split run). Raises
    InputError where lint stops."""
    skipped: list[str] = []
    if per_file:
        objects: list[SourceObject] = []
        for file, explicit in iter_files(paths):
            objects.extend(
                load_file(
                    file,
                    explicit=explicit,
                    max_bytes=max_bytes,
                    kinds=kinds,
                    allow_empty=True,
                    skipped=skipped,
                )
            )
    else:
        objects = load_paths(
            paths, max_bytes=max_bytes, kinds=kinds, allow_empty=True, skipped=skipped
        )
    return [o.data for o in objects], skipped
