"""Time computing bindings: the engine alone, load+bind of 1,000 checkpoints, and a cold CLI.

    python bench/bench_binding.py [--repeat 20] [--count 1000]

Prints, best of a few runs:
- bind() over the 46 bindable golden vectors, repeated N times (already loaded);
- load + bind for `--count` realistic checkpoints in one multi-document stream (the
  vectors cycled, each with its own name), which is what `dynamo-render binding` does;
- a cold `python -m renderer binding` process over one vector (start-up included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from renderer.binding import bind
from renderer.source import load_bytes, load_paths

VECTORS = Path(__file__).parent.parent / "tests" / "vectors"


def _good_vectors() -> list[Path]:
    rows = [json.loads(line) for line in (VECTORS / "expected.jsonl").read_text().splitlines()]
    return [VECTORS / f"{row['case']}.input.yaml" for row in rows if row["error"] is None]


def _best(runs: int, func: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="passes over the 46 vectors")
    parser.add_argument("--count", type=int, default=1000, help="checkpoints in the stream")
    args = parser.parse_args()

    paths = _good_vectors()
    objects = load_paths([str(p) for p in paths])
    bind(objects[0])  # load and compile the type table outside the timing

    def engine() -> None:
        for _ in range(args.repeat):
            for obj in objects:
                bind(obj)

    seconds = _best(3, engine)
    n = args.repeat * len(objects)
    print(f"bind(): {n} bindings in {seconds * 1000:.1f} ms ({seconds / n * 1e6:.0f} us each)")

    texts = [p.read_text("utf-8") for p in paths]
    docs = []
    for i in range(args.count):
        text = texts[i % len(texts)]
        docs.append(text.replace('  name: "checkpoint-', f'  name: "c{i}-checkpoint-', 1))
    stream = "---\n".join(docs).encode("utf-8")

    def load_and_bind() -> None:
        for obj in load_bytes(stream, "stream.yaml"):
            bind(obj)

    seconds = _best(3, load_and_bind)
    print(
        f"load + bind: {args.count} checkpoints ({len(stream) / 1e6:.1f} MB) in"
        f" {seconds * 1000:.0f} ms ({seconds / args.count * 1e6:.0f} us each)"
    )

    command = [sys.executable, "-m", "renderer", "binding", str(paths[0])]

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)  # this checkout

    def cold() -> None:
        subprocess.run(command, check=True, capture_output=True, env=env)

    cold()  # write the bytecode, as an installed tool has it

    seconds = _best(5, cold)
    print(f"cold `python -m renderer binding` (one snapshot): {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
