"""The worker pool (`renderer.parallel`): results in order, guided chunks, a worker that
raises or a caller that stops early, and no worker left behind."""

from __future__ import annotations

import os

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
    first = [next(results) for _ in range(3)]
    workers = {pid for _, pid in first} - {_PARENT}
    results.close()  # as when the caller returns or raises mid-way
    parallel._reap_all(block=True)
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not parallel._unreaped
