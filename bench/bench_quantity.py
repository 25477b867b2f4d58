"""Time the Quantity round trip on the vector inputs and on typical resource spellings.

    python bench/bench_quantity.py [--repeat 5]

Prints microseconds per call, best of N, for: every string row of
tests/vectors/quantity.jsonl with the result cache cleared before each call (cold), the same
with the cache warm, and typical container resource values (cold and warm).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from renderer.goruntime import quantity

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "quantity.jsonl"
TYPICAL = ["1", "500m", "2", "250m", "4Gi", "512Mi", "1Gi", "100m", "8", "16Gi", "0.5", "1.5Gi"]


def _run(values: Sequence[str], *, cold: bool) -> None:
    for value in values:
        if cold:  # every call computes (the clear itself costs well under 0.1 us)
            quantity._round_trip.cache_clear()
        with contextlib.suppress(quantity.QuantityError):  # error rows cost time too
            quantity.marshal_quantity(value)


def _best(action: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = [json.loads(line) for line in VECTORS.read_text(encoding="ascii").splitlines()]
    strings = [row["in"] for row in rows if row["kind"] == "string"]
    typical = TYPICAL * 100
    cases: list[tuple[str, Sequence[str], bool]] = [
        ("vector strings, cold", strings, True),
        ("vector strings, warm", strings, False),
        ("typical resources, cold", typical, True),
        ("typical resources, warm", typical, False),
    ]
    for label, values, cold in cases:
        seconds = _best(lambda v=values, c=cold: _run(v, cold=c), args.repeat)
        print(f"{label:26} {len(values):5} calls  {seconds / len(values) * 1e6:7.2f} us/call")


if __name__ == "__main__":
    main()
