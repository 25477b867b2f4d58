"""Lint benchmark: a generated GitOps corpus, a single-file cold start, and peak memory.

In one run, on a corpus generated deterministically into a temporary directory (rendered
DCDs v1alpha1 and v1beta1 and PodCliqueSets from examples/, bound to the example snapshot,
a few with wrong bindings, among many ordinary Deployments, Services and ConfigMaps):

  (a) lint of the corpus in-process, and as a whole `python -m renderer lint DIR` process;
  (b) a plain parse of the same files with PyYAML's C loader (`yaml.load_all`, CSafeLoader),
      in-process, and the ratio (a)/(b) (target <= 1.5x);
  (c) a single small file, cold: `python -m renderer lint FILE` against
      `python -c "import ruamel.yaml"`, best of N each, and the ratio (target <= 2.5x);
  (d) peak memory (ru_maxrss of a child process) linting about 10 MB of input, for the
      mixed corpus scaled up and for DCD/PodCliqueSet files only (target < 150 MiB).

    python bench/bench_lint.py [--runs N] [--manifests 1200] [--big-mb 10]

Figures are printed, never asserted (tests do not time anything).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corpus_templates import CONFIGMAP, DEPLOYMENT, SERVICE

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
RENDERED = sorted((EXAMPLES / "rendered").glob("*/*.yaml"))
SNAPSHOTS = sorted((EXAMPLES / "snapshots").glob("*.yaml"))
TOP_NAME = re.compile(r"^(  name: llama-disagg)", re.MULTILINE)
DIGEST = re.compile(r"(v1/[0-9a-f-]+/)(1)(/[0-9a-f]{63})([0-9a-f])")


def _rendered_copy(text: str, n: int, wrong: str | None) -> str:
    """A rendered example under another name; `wrong` corrupts one binding copy."""
    text = TOP_NAME.sub(rf"\1-{n:04d}", text)
    if wrong == "digest":  # one copy's digest changes: provenance / disagree
        text = DIGEST.sub(lambda m: m[1] + m[2] + m[3] + ("0" if m[4] != "0" else "1"), text, 1)
    elif wrong == "generation":  # every copy one generation ahead: stale
        text = DIGEST.sub(lambda m: m[1] + "2" + m[3] + m[4], text)
    return text


def generate(root: Path, manifests: int, scale: int = 1) -> tuple[int, int]:
    """Write the corpus under root; returns (manifests, bytes). Deterministic."""
    root.mkdir(parents=True, exist_ok=True)
    for snap in SNAPSHOTS:
        (root / snap.name).write_bytes(snap.read_bytes())
    count = len(SNAPSHOTS)
    templates = [path.read_text() for path in RENDERED]
    per_template = [text.count("\nkind: ") + text.startswith("kind: ") for text in templates]
    n = 0
    while count < manifests:
        if n % 10 == 0:  # a tenth of the files hold rendered, bound objects
            index = (n // 10) % len(templates)
            wrong = {7: "digest", 13: "generation"}.get(n // 10 % 20)
            text = _rendered_copy(templates[index], n, wrong)
            count += per_template[index]
        else:
            parts = [DEPLOYMENT, SERVICE, CONFIGMAP] * scale
            fields = {"n": n, "ns": n % 7, "replicas": n % 5 + 1, "extra": ""}
            text = "---\n".join(t.format(**fields) for t in parts)
            count += len(parts)
        sub = root / f"team-{n % 7}"
        sub.mkdir(exist_ok=True)
        (sub / f"app-{n:05d}.yaml").write_text(text)
        n += 1
    size = sum(p.stat().st_size for p in root.rglob("*.yaml"))
    return count, size


def generate_workloads_only(root: Path, target_bytes: int) -> tuple[int, int]:
    """About target_bytes of rendered DCD/PCS files (the worst case: every file parsed)."""
    root.mkdir(parents=True, exist_ok=True)
    for snap in SNAPSHOTS:
        (root / snap.name).write_bytes(snap.read_bytes())
    templates = [path.read_text() for path in RENDERED]
    size, count, n = 0, 0, 0
    while size < target_bytes:
        text = _rendered_copy(templates[n % len(templates)], n, None)
        (root / f"w-{n:05d}.yaml").write_text(text)
        size += len(text)
        count += text.count("\nkind: ") + text.startswith("kind: ")
        n += 1
    return count, size


def _best(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def _process(argv: list[str], runs: int) -> tuple[float, float]:
    subprocess.run(argv, capture_output=True, check=False)  # warm the bytecode cache
    return _best(lambda: subprocess.run(argv, capture_output=True, check=False), runs)


def _lint_in_process(corpus: Path) -> int:
    from renderer.commands.lint import LintArgs, execute

    return execute(LintArgs(paths=[str(corpus)], format="json"), io.StringIO(), io.StringIO())


def _pyyaml_parse(files: list[Path]) -> int:
    import yaml

    docs = 0
    for path in files:
        docs += sum(1 for _ in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader))
    return docs


_PEAK = """\
import contextlib, io, resource, sys
from renderer.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(["lint", sys.argv[1]])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_mib(corpus: Path) -> tuple[int, float]:
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK, str(corpus)], capture_output=True, text=True, check=True
    )
    code, kib = proc.stdout.split()
    return int(code), int(kib) / 1024  # Linux: ru_maxrss is in KiB


def _row(label: str, value: str, note: str = "") -> None:
    print(f"  {label:<52} {value:>18}  {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="best of N for each figure")
    parser.add_argument("--cold-runs", type=int, default=20)
    parser.add_argument("--manifests", type=int, default=1200)
    parser.add_argument("--big-mb", type=float, default=10.0)
    opts = parser.parse_args()
    sys.path.insert(0, str(REPO))
    os.environ.pop("GITHUB_ACTIONS", None)
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        manifests, size = generate(corpus, opts.manifests)
        files = sorted(corpus.rglob("*.yaml"))
        code = _lint_in_process(corpus)
        print(
            f"corpus: {manifests} manifests in {len(files)} files, {size / 1e6:.2f} MB"
            f" (lint exit {code}: the corrupted copies are found); cpus {os.cpu_count()};"
            f" python {sys.version.split()[0]}"
        )
        print(f"{'':2}{'figure':<52} {'best (median)':>18}  target")

        lint_best, lint_med = _best(lambda: _lint_in_process(corpus), opts.runs)
        parse_best, parse_med = _best(lambda: _pyyaml_parse(files), opts.runs)
        whole_best, whole_med = _process([python, "-m", "renderer", "lint", str(corpus)], opts.runs)
        _row("(a) lint corpus, in-process", f"{lint_best * 1e3:.1f} ({lint_med * 1e3:.1f}) ms")
        _row("(a) lint corpus, whole process", f"{whole_best * 1e3:.1f} ({whole_med * 1e3:.1f}) ms")
        _row(
            "(b) PyYAML CSafeLoader load_all, in-process",
            f"{parse_best * 1e3:.1f} ({parse_med * 1e3:.1f}) ms",
        )
        _row("    ratio lint / C-loader parse (best)", f"{lint_best / parse_best:.2f}x", "<= 1.5x")

        small = RENDERED[-1]  # the v1beta1 PodCliqueSet example: one small file
        cold_best, cold_med = _process(
            [python, "-m", "renderer", "lint", str(small)], opts.cold_runs
        )
        base_best, base_med = _process([python, "-c", "import ruamel.yaml"], opts.cold_runs)
        _row(
            f"(c) cold `lint {small.parent.name}/{small.name}`",
            f"{cold_best * 1e3:.1f} ({cold_med * 1e3:.1f}) ms",
        )
        _row(
            '(c) cold `python -c "import ruamel.yaml"`',
            f"{base_best * 1e3:.1f} ({base_med * 1e3:.1f}) ms",
        )
        _row(
            "    ratio cold lint / import ruamel.yaml (best)",
            f"{cold_best / base_best:.2f}x",
            "<= 2.5x",
        )

        target = int(opts.big_mb * 1e6)
        big = Path(tmp) / "big"
        big_manifests, big_size = generate(big, int(manifests * target / size))
        code, peak = _peak_mib(big)
        _row(
            f"(d) peak RSS, lint {big_size / 1e6:.1f} MB mixed ({big_manifests} manifests)",
            f"{peak:.1f} MiB",
            f"< 150 MiB (exit {code})",
        )
        work = Path(tmp) / "workloads"
        work_manifests, work_size = generate_workloads_only(work, target)
        code, peak = _peak_mib(work)
        _row(
            f"(d) peak RSS, lint {work_size / 1e6:.1f} MB DCD/PCS only ({work_manifests})",
            f"{peak:.1f} MiB",
            f"< 150 MiB (exit {code})",
        )
        base = subprocess.run(
            [python, "-c", "import resource; print(resource.getrusage(0).ru_maxrss)"],
            capture_output=True,
            text=True,
            check=True,
        )
        _row("    bare interpreter peak RSS", f"{int(base.stdout) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
