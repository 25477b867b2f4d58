"""The worker pool (`renderer.parallel`): results in order, guided chunks, a worker that
raises or a caller that stops early, and no worker left behind."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

from renderer import parallel
from renderer.parallel import chunk_sizes, ordered_map

_PARENT = os.getpid()


def _pid_of(item: int) -> tuple[int, int]:
    return item, os.getpid()


def _fails_in_a_worker(item: int) -> int:
    if item == 30 and os.getpid() != _PARENT:
        raise RuntimeError("only in a worker")
    return -item


@pytest.mark.parametrize("count", [2, 3, 40, 1000, 10000])
@pytest.mark.parametrize("workers", [2, 3, 8])
def test_guided_chunks_cover_the_items_large_first_single_last(count: int, workers: int) -> None:
    sizes = chunk_sizes(count, workers)
    assert sum(sizes) == count
    assert sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= 64 and sizes[-1] == 1
    # the last work items are single ones: no worker is left alone with a long chunk
    assert sizes[-min(count, workers) :] == [1] * min(count, workers)


def test_results_come_in_order_from_several_workers() -> None:
    items = list(range(500))
    found = list(ordered_map(_pid_of, items, jobs=2))
    assert [item for item, _ in found] == items
    assert len({pid for _, pid in found} - {_PARENT}) == 2


def test_a_worker_that_raises_leaves_the_rest_to_this_process() -> None:
    """The items not answered are done here: the same results, or the same error, as a
    serial run."""
    items = list(range(200))
    assert list(ordered_map(_fails_in_a_worker, items, jobs=2)) == [-i for i in items]


def test_a_caller_that_stops_early_leaves_no_worker_running() -> None:
    results = ordered_map(_pid_of, list(range(5000)), jobs=2)
    assert isinstance(results, Generator)
    first = [next(results) for _ in range(3)]
    workers = {pid for _, pid in first} - {_PARENT}
    results.close()  # as when the caller returns or raises mid-way
    parallel._reap_all(block=True)
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not parallel._unreaped


_LATE: list[int] = []


def _keep_late(value: int) -> None:
    _LATE[:] = [value]


def _double(item: int) -> tuple[int, int]:
    return item, item * 2


def _plus_late(prepared: tuple[int, int]) -> tuple[int, int, int]:
    # the late value must have reached this process before any fn runs
    return prepared[0], prepared[1], _LATE[0]


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_late_state_reaches_every_worker_before_fn(jobs: int) -> None:
    """`late()` runs here while the workers `prepare`; `fn` sees its value everywhere."""
    items = list(range(700))
    found = list(
        ordered_map(
            _plus_late, items, jobs=jobs, initializer=_keep_late, prepare=_double, late=lambda: 41
        )
    )
    assert found == [(i, 2 * i, 41) for i in items]


class _LateFailure(Exception):
    pass


def _fails() -> int:
    raise _LateFailure


def test_an_error_of_late_is_raised_here_and_stops_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The workers handed to the reaper, recorded as they are handed over: a worker that has
    # already exited is reaped at once and never shows in the list of unreaped ones.
    handed: list[int] = []
    reap = parallel._reap

    def recording(procs: list[Any]) -> None:
        handed.extend(proc.pid for proc in procs)
        reap(procs)

    monkeypatch.setattr(parallel, "_reap", recording)
    results = ordered_map(
        _plus_late, list(range(500)), jobs=2, initializer=_keep_late, prepare=_double, late=_fails
    )
    with pytest.raises(_LateFailure):
        next(results)
    started = set(handed)
    assert len(started) == 2
    parallel._reap_all(block=True)
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
