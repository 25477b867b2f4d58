"""Ordered work over several processes, for lint and config-driven render (`-j/--jobs`).

`ordered_map(fn, items, jobs=N)` gives `[fn(x) for x in items]` in the same order,
computed by N worker processes when N > 1; with one job (or one item) it runs in this
process and starts nothing. Callers decide when an input is too small to be worth a
process start (lint: `renderer.lint.split.worth_splitting`).

Workers are forked where the platform allows it (Linux): they start in milliseconds,
share the already imported modules and the items, and are handed work items as two
numbers on a pipe; only results are pickled. Elsewhere they are spawned (through
concurrent.futures), and `fn`, the items and `initializer`/`initargs` must be picklable.
Results must be picklable (plain data); a worker that cannot finish returns a value saying
so rather than raising, so the caller can redo the work in one process and report exactly
what a serial run reports. A worker that dies (killed, or an exception) stops the pool:
the items not yet answered are then done in this process.

Items are handed out in guided chunks (`chunk_sizes`): large first, single items last, so
that the workers finish together.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from renderer.source import limits
from renderer.source.limits import set_limits

T = TypeVar("T")
R = TypeVar("R")


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: int | None) -> int:
    """`--jobs` as given (None: the available CPUs), at least 1."""
    return available_cpus() if jobs is None else max(1, jobs)


def _context() -> str:
    """How workers start here: "fork" (Linux), else "spawn"."""
    return "fork" if sys.platform.startswith("linux") and hasattr(os, "fork") else "spawn"


def ordered_map(
    fn: Callable[[Any], R],
    items: Sequence[T],
    *,
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    prepare: Callable[[T], Any] | None = None,
    late: Callable[[], Any] | None = None,
) -> Iterator[R]:
    """`fn` over `items` (over `prepare(item)` when given), results in the order of
    `items`, on up to `jobs` processes.

    `initializer(*initargs)` runs once in each worker (and once here when the work stays
    in this process), to hand every worker the state `fn` reads. With `late`, that state
    is computed here while the workers start: `late()` runs in this process once they are
    forked, and `initializer(*initargs, late())` in each worker before its first `fn`;
    until it arrives a worker runs `prepare` on its first items (at most `PREFETCH`), so
    the two overlap. An exception from `late()` stops the workers and is raised here.
    """
    workers = min(jobs, len(items))
    if workers <= 1 or _context() != "fork":
        # one process, or spawned workers: what `late` computes must exist before them
        args = initargs if late is None else (*initargs, late())
        if workers <= 1:
            if initializer is not None:
                initializer(*args)
            yield from _apply(fn, prepare, items)
            return
        initargs, late = args, None

    # Objects that exist now are never collected by the workers' collector runs (nor
    # copied by them: a collection writes to every object it visits).
    gc.freeze()

    # The process-wide settings the command line made (the node and document caps) go to
    # every worker explicitly: a spawned one starts from the defaults.
    settings = (limits.max_nodes(), limits.max_documents())
    sizes = chunk_sizes(len(items), workers)
    pool = _forked if _context() == "fork" else _spawned
    done = 0
    computed: list[Any] = []  # late()'s value, once computed
    work = _Work(fn, prepare, items, (settings, initializer, initargs), late)
    for result in pool(work, sizes, workers, computed):
        yield result
        done += 1
    if done < len(items):
        # A worker died (the OOM killer, a signal) or raised: what is left is done here, in
        # this process, giving what a serial run gives (its error included).
        if initializer is not None:
            initializer(*initargs, *computed)
        yield from _apply(fn, prepare, items[done:])


# Items a worker prepares at most while `late`'s value has not arrived (it stops as soon
# as it has: only so many prepared items are held at once, while pass 1 of a lint runs).
PREFETCH = 64


def _apply(
    fn: Callable[[Any], R], prepare: Callable[[T], Any] | None, items: Sequence[T]
) -> Iterator[R]:
    if prepare is None:
        return map(fn, items)
    return (fn(prepare(item)) for item in items)


class _Work:
    """What the workers run: `fn`, `prepare`, the items, how a worker starts, and `late`."""

    def __init__(
        self,
        fn: Callable[[Any], Any],
        prepare: Callable[[Any], Any] | None,
        items: Sequence[Any],
        start: _Start,
        late: Callable[[], Any] | None,
    ) -> None:
        self.fn, self.prepare, self.items, self.start, self.late = fn, prepare, items, start, late


_Start = tuple[tuple[int, int], Callable[..., None] | None, tuple[Any, ...]]
_HEADER = 8  # bytes of a message's length, or of a work item's (start, size)


def _forked(work: _Work, sizes: list[int], workers: int, computed: list[Any]) -> Iterator[Any]:
    """The results in order, from forked workers, until one dies (then fewer).

    A forked worker already holds the items: a work item is two numbers on its pipe, and
    only results (and `late`'s value, once to each) are pickled. Nothing of
    multiprocessing or concurrent.futures is imported (their import was most of the run's
    serial time before the first file was linted). A worker exits when its pipe closes;
    it is reaped later (`_reap`), so its exit overlaps with what this process still does.
    """
    import pickle  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it
    import select  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it

    offsets = _offsets(sizes)
    procs: list[_Worker] = []
    ready = 0  # next chunk to yield
    try:
        for _ in range(workers):
            procs.append(_fork_worker(work, procs))
        poller = select.poll()
        by_fd = {proc.results: proc for proc in procs}
        for proc in procs:
            poller.register(proc.results, select.POLLIN)
        queued = 0  # next chunk to hand out

        def hand_out(proc: _Worker) -> None:
            nonlocal queued
            if queued < len(sizes):
                proc.send(queued, offsets[queued], sizes[queued])
                queued += 1

        finished: dict[int, list[Any]] = {}
        try:
            for proc in procs:  # two each: a worker never waits for its next work item
                hand_out(proc)
                hand_out(proc)
            if work.late is not None:
                # (no worker can answer before it has this: nothing to read meanwhile)
                computed.append(work.late())
                value = pickle.dumps(computed[0], pickle.HIGHEST_PROTOCOL)
                for proc in procs:
                    proc.send_late(value)
        except BrokenPipeError:
            return  # a worker died at once: everything is done by the caller
        while ready < len(sizes):
            for fd, _event in poller.poll():
                proc = by_fd[fd]
                chunk = os.read(fd, 1 << 20)
                if not chunk:  # it died: the rest is done by the caller, in order
                    return
                for index, payload in proc.receive(chunk):
                    finished[index] = pickle.loads(payload)
                    try:
                        hand_out(proc)
                    except BrokenPipeError:
                        return  # died after answering: its results are kept above
            while ready in finished:
                yield from finished.pop(ready)
                ready += 1
    finally:
        for proc in procs:
            proc.close()
        if ready < len(sizes):  # stopped early (an error, Ctrl-C, a dead worker)
            for proc in procs:
                proc.kill()
        _reap(procs)


def _offsets(sizes: list[int]) -> list[int]:
    out, total = [], 0
    for size in sizes:
        out.append(total)
        total += size
    return out


class _Worker:
    """A forked worker: its pid, the pipe it reads work from and the one it answers on."""

    def __init__(self, pid: int, work: int, results: int) -> None:
        self.pid, self.work, self.results = pid, work, results
        self.pending: list[int] = []  # chunks sent, in the order their results come
        self.buffer = bytearray()

    def send(self, index: int, offset: int, size: int) -> None:
        self.pending.append(index)
        _write_all(self.work, offset.to_bytes(_HEADER, "little") + size.to_bytes(_HEADER, "little"))

    def send_late(self, value: bytes) -> None:
        # a work item of size 0: `late`'s pickled value, its length in place of the offset
        _write_all(self.work, len(value).to_bytes(_HEADER, "little") + bytes(_HEADER) + value)

    def receive(self, data: bytes) -> Iterator[tuple[int, bytes]]:
        """(chunk index, pickled results) of every message `data` completes."""
        buffer = self.buffer
        buffer += data
        while len(buffer) >= _HEADER:
            length = int.from_bytes(buffer[:_HEADER], "little")
            if len(buffer) < _HEADER + length:
                break
            payload = bytes(buffer[_HEADER : _HEADER + length])
            del buffer[: _HEADER + length]
            yield self.pending.pop(0), payload

    def close(self) -> None:
        for fd in (self.work, self.results):
            with contextlib.suppress(OSError):
                os.close(fd)

    def kill(self) -> None:
        import signal  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it

        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)


def _fork_worker(work: _Work, others: list[_Worker]) -> _Worker:
    work_read, work_write = os.pipe()
    results_read, results_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns into the caller's code
        code = 1
        try:
            os.close(work_write)
            os.close(results_read)
            for other in others:  # else a sibling's pipe would never close
                other.close()
            settings, initializer, initargs = work.start
            # (with `late`, the caller's initializer waits for its value: see _serve)
            _start(settings, initializer if work.late is None else None, initargs)
            _serve(work, work_read, results_write)
            code = 0
        finally:
            os._exit(code)
    os.close(work_read)
    os.close(results_write)
    return _Worker(pid, work_write, results_read)


def _serve(work: _Work, pipe: int, results: int) -> None:
    """Answer work items until the pipe closes: each one's results, pickled, in order.
    With `late`, its value comes on the pipe after the first work items: meanwhile up to
    PREFETCH items are prepared."""
    import pickle  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it

    fn, prepare, items = work.fn, work.prepare, work.items
    waiting = work.late is not None
    queued: deque[tuple[int, int]] = deque()

    def receive() -> bool:
        """Read one message: a work item (queued) or `late`'s value; False at the end."""
        nonlocal waiting
        header = _read_exactly(pipe, 2 * _HEADER)
        if header is None:
            return False
        first = int.from_bytes(header[:_HEADER], "little")
        size = int.from_bytes(header[_HEADER:], "little")
        if size:
            queued.append((first, size))
            return True
        value = _read_exactly(pipe, first)
        if value is None:
            return False
        _, initializer, initargs = work.start
        if initializer is not None:
            initializer(*initargs, pickle.loads(value))
        waiting = False
        return True

    while queued or receive():
        if not queued:
            continue
        offset, size = queued.popleft()
        chunk = items[offset : offset + size]
        done: list[Any] = []
        if waiting:
            early = []
            for item in chunk:
                early.append(prepare(item) if prepare else item)
                while waiting and _readable(pipe):  # `late`'s value, or a work item
                    if not receive():
                        return
                if not waiting or len(early) >= PREFETCH:
                    break
            while waiting:
                if not receive():
                    return
            done = [fn(item) for item in early]
            chunk = chunk[len(early) :]
        done.extend(_apply(fn, prepare, chunk))
        payload = pickle.dumps(done, pickle.HIGHEST_PROTOCOL)
        _write_all(results, len(payload).to_bytes(_HEADER, "little") + payload)


def _readable(fd: int) -> bool:
    import select  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it

    return bool(select.select([fd], [], [], 0)[0])


def _read_exactly(fd: int, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = os.read(fd, count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_unreaped: list[int] = []
_reaper: list[bool] = []  # [True] once the exit-time reaper is registered


def _reap(procs: list[_Worker]) -> None:
    """Collect the workers that have exited, and the others at this process's exit."""
    _unreaped.extend(proc.pid for proc in procs)
    if not _reaper:
        atexit.register(_reap_all, block=True)
        _reaper.append(True)
    _reap_all(block=False)


def _reap_all(*, block: bool) -> None:
    for pid in list(_unreaped):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _unreaped.remove(pid)


def _spawned(work: _Work, sizes: list[int], workers: int, computed: list[Any]) -> Iterator[Any]:
    """The results in order, from spawned workers (where fork is not available), until
    the pool breaks (then fewer). `late` was computed before (see ordered_map)."""
    import multiprocessing  # noqa: PLC0415 - only a spawned worker pool needs multiprocessing
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415 - only a spawned worker pool needs multiprocessing
    from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415 - only a spawned worker pool needs multiprocessing

    executor = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start,
        initargs=work.start,
    )
    finished = False
    try:
        futures = []
        offset = 0
        for size in sizes:
            chunk = work.items[offset : offset + size]
            futures.append(executor.submit(_run_chunk, work.fn, work.prepare, chunk))
            offset += size
        for future in futures:
            yield from future.result()
        finished = True
    except BrokenProcessPool:
        finished = True
    finally:
        # Waited for when the work is over (the workers are idle): a shutdown left running
        # races with the interpreter's exit and can print a traceback. Not waited for when
        # the caller stopped early (an error, Ctrl-C): what is queued is dropped.
        executor.shutdown(wait=finished, cancel_futures=not finished)


def chunk_sizes(count: int, workers: int, largest: int = 64) -> list[int]:
    """How `count` items are cut into work items, in order: guided, each a quarter of what
    is left per worker (at most `largest`, at least 1), so the first ones are large (few
    messages) and the last ones single items, and no worker is left alone with a long
    chunk at the end while the others idle (fixed chunks of a sixteenth kept a core idle
    for most of the last one, and longer when another process took the busy core)."""
    sizes = []
    left = count
    while left > 0:
        size = max(1, min(largest, left // (workers * 4)))
        sizes.append(size)
        left -= size
    return sizes


def _run_chunk(
    fn: Callable[[Any], R], prepare: Callable[[T], Any] | None, items: Sequence[T]
) -> list[R]:
    return list(_apply(fn, prepare, items))


def _start(
    settings: tuple[int, int],
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
) -> None:
    import signal  # noqa: PLC0415 - only a forked worker pool (-j > 1) needs it

    # Ctrl-C reaches every process of the group: the main process stops the run (exit 130,
    # "Aborted."); a worker stopped mid-item would print its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_limits(nodes=settings[0], documents=settings[1])
    if initializer is not None:
        initializer(*initargs)
