"""Ordered work over several processes, for lint and config-driven render (`-j/--jobs`).

`ordered_map(fn, items, jobs=N)` gives `[fn(x) for x in items]` in the same order,
computed by N worker processes when N > 1; with one job (or one item) it runs in this
process and starts nothing. Callers decide when an input is too small to be worth a
process start (lint: `renderer.lint.split.worth_splitting`).

Workers are forked where the platform allows it (Linux): they start in milliseconds,
share the already imported modules, and need nothing pickled but the items and results.
Elsewhere they are spawned, and `initializer`/`initargs` must be picklable. Results must
be picklable (plain data); a worker that cannot finish returns a value saying so rather
than raising, so the caller can redo the work in one process and report exactly what a
serial run reports. A worker that dies (killed) breaks the pool: the items not yet
answered are then done in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

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


def _context() -> Any:
    import multiprocessing

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method)


def ordered_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[R]:
    """`fn` over `items`, results in the order of `items`, on up to `jobs` processes.

    `initializer(*initargs)` runs once in each worker (and once here when the work stays
    in this process), to hand every worker the state `fn` reads.
    """
    workers = min(jobs, len(items))
    if workers <= 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(fn, items)
        return
    import gc

    # Objects that exist now are never collected by the workers' collector runs (nor
    # copied by them: a collection writes to every object it visits).
    gc.freeze()
    from renderer.source import limits

    # The process-wide settings the command line made (the node and document caps) go to
    # every worker explicitly: a spawned one starts from the defaults.
    settings = (limits.max_nodes(), limits.max_documents())
    # Chunks small enough to balance the load, large enough to keep the pipe quiet.
    chunk = max(1, min(64, len(items) // (workers * 8)))
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done = 0
    executor = ProcessPoolExecutor(
        workers,
        mp_context=_context(),
        initializer=_start,
        initargs=(settings, initializer, initargs),
    )
    finished = False
    try:
        for result in executor.map(fn, items, chunksize=chunk):
            yield result
            done += 1
        finished = True
    except BrokenProcessPool:
        # A worker died (the OOM killer, a signal): a pool of multiprocessing.Pool's kind
        # would wait for its results forever; this one says so, and what is left is done
        # here, in this process, giving what a serial run gives.
        finished = True
    finally:
        # Waited for when the work is over (the workers are idle): a shutdown left running
        # races with the interpreter's exit and can print a traceback. Not waited for when
        # the caller stopped early (an error, Ctrl-C): what is queued is dropped.
        executor.shutdown(wait=finished, cancel_futures=not finished)
    if done < len(items):
        if initializer is not None:
            initializer(*initargs)
        yield from map(fn, items[done:])


def _start(
    settings: tuple[int, int],
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
) -> None:
    import signal

    from renderer.source.limits import set_limits

    # Ctrl-C reaches every process of the group: the main process stops the run (exit 130,
    # "Aborted."); a worker stopped mid-item would print its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_limits(nodes=settings[0], documents=settings[1])
    if initializer is not None:
        initializer(*initargs)
