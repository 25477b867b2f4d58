"""How many generated examples a property or differential test runs.

The full suite (`python -m pytest`, and CI, which sets ``CI``) runs every test at the count
written in it. The inner loop (`python -m pytest -m "not slow"`) runs the expensive
generators (each example of the oracle differential tests is a child process) at a fifth
of it, still derandomized; a seeded loop (random.Random) runs a prefix of its full run.
tests/conftest.py picks the mode.
"""

from __future__ import annotations

#: Set by tests/conftest.py before the test modules are imported.
INNER_LOOP = False
#: The inner loop's share of the full count.
INNER_SHARE = 5


def examples(full: int, inner: int | None = None) -> int:
    """The example count for a test whose full-suite count is ``full``.

    ``inner`` overrides the inner loop's count where a test asserts on the mix of outcomes
    its seeded generator reaches (the first ``inner`` examples reach that mix too).
    """
    if not INNER_LOOP:
        return full
    return inner if inner is not None else max(3, full // INNER_SHARE)
