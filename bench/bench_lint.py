"""Lint benchmark: a GitOps corpus of one-object files, a cold start as a hook runs it, memory.

In one run, on corpora generated deterministically into a temporary directory:

  (a) the main figure: 1,000 and 10,000 one-object files, half Dynamo manifests (the
      rendered examples' DCDs v1alpha1 and v1beta1 and PodCliqueSets, bound to the example
      snapshot, some with wrong bindings) and half Deployments and Services
      (bench/corpus_gitops.py), linted with --checkpoint as a whole process, with one
      worker (-j 1) and the default (-j: the CPUs available); beside it `kubeconform` on
      the same files with its default workers when a `kubeconform` binary is on PATH (the
      ratio is printed), and always the floor of PyYAML's C loader merely parsing every
      file in one process. kubeconform validates offline against the schema locations
      given with --kubeconform-schemas (or $KUBECONFORM_SCHEMA_LOCATION), every object
      against a schema (the bench prints which file it takes for each kind, and
      kubeconform's summary line); without one it uses its own remote default with
      -ignore-missing-schemas, which skips the Dynamo kinds;
  (b) peak memory (the largest resident set of the lint process and of its workers) at
      1,000, 10,000 and 20,000 files of that corpus;
  (c) a single small file, cold, with --checkpoint (as the pre-commit hook runs it):
      `python -m renderer lint FILE --checkpoint SNAPSHOT` against
      `python -c "import ruamel.yaml"`, best of N each, and the ratio (target <= 2x);
  (e) the large shape: 1,000 one-object files, half of them large PodCliqueSets and bound
      DCDs (6.4 MB; `corpus_gitops.SHAPES["large"]`), lint with the default -j and
      kubeconform run in turn N times (--pair-runs), each run's wall time, CPU time and
      cores kept busy (CPU / wall) printed, then the medians and the median of the
      per-pair ratios (the machine's load moves both alike; the load average is printed);
  (d) a second, labelled figure: the older mixed corpus where nine files in ten hold only
      Deployments, Services and ConfigMaps, which the text pre-scan skips unparsed (so it
      measures skipping more than linting), beside the C-loader parse of the same files.

    python bench/bench_lint.py [--runs N] [--cold-runs N] [--sizes 1000,10000]
        [--memory-sizes 1000,10000,20000] [--kubeconform-schemas LOCATION ...]
        [--kubeconform BINARY] [--pair-runs N] [--only large]

Figures are printed, never asserted (tests do not time anything).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import corpus_gitops
from corpus_templates import CONFIGMAP, DEPLOYMENT, SERVICE

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
RENDERED = sorted((EXAMPLES / "rendered").glob("*/*.yaml"))
SNAPSHOTS = sorted((EXAMPLES / "snapshots").glob("*.yaml"))
TOP_NAME = re.compile(r"^(  name: llama-disagg)", re.MULTILINE)
DIGEST = re.compile(r"(v1/[0-9a-f-]+/)(1)(/[0-9a-f]{63})([0-9a-f])")
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


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


def _best(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


_CPU: dict[tuple[str, ...], float] = {}  # best CPU seconds (user + system) of each command


# Child processes write and use bytecode, as an installed tool does (an environment that
# sets PYTHONDONTWRITEBYTECODE would time compiling every module from source).
# PYTHONPATH: this checkout's package, whatever an editable install points at.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)


def _process(argv: list[str], runs: int) -> tuple[float, float]:
    """Best and median wall time of a whole process; its best CPU time goes to _CPU (on a
    shared machine the wall time includes waiting for a core, the CPU time does not)."""
    subprocess.run(argv, capture_output=True, check=False, env=ENV)  # warm the bytecode cache
    cpu: list[float] = []

    def once() -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, capture_output=True, check=False, env=ENV)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

    result = _best(once, runs)
    _CPU[tuple(argv)] = min(cpu)
    return result


def _pyyaml_parse(files: list[Path]) -> int:
    import yaml

    docs = 0
    for path in files:
        docs += sum(1 for _ in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader))
    return docs


_PEAK = """\
import contextlib, io, os, resource, sys
from renderer.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
while True:  # the workers are reaped at exit: reap them now, to count them
    try:
        os.wait()
    except ChildProcessError:
        break
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(code, own, workers)
"""


def _peak_mib(argv: list[str]) -> tuple[int, float, float]:
    """(exit code, lint process MiB, largest worker MiB) of `dynamo-render ARGV`."""
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK, *argv], capture_output=True, text=True, check=True, env=ENV
    )
    code, own, workers = proc.stdout.split()
    return int(code), int(own) / 1024, int(workers) / 1024  # Linux: ru_maxrss is in KiB


def _row(label: str, value: str, note: str = "") -> None:
    print(f"  {label:<58} {value:>18}  {note}")


def _ms(pair: tuple[float, float], argv: list[str] | None = None) -> str:
    cpu = _CPU.get(tuple(argv)) if argv is not None else None
    shown = f"{pair[0] * 1e3:.0f} ({pair[1] * 1e3:.0f}) ms"
    return shown if cpu is None else f"{shown}, cpu {cpu * 1e3:.0f}"


# kubeconform's own default: its fork of kubernetes-json-schema, fetched over HTTP per kind.
_KUBECONFORM_DEFAULT = (
    "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/"
    "{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/"
    "{{ .ResourceKind }}{{ .KindSuffix }}.json"
)
_TEMPLATE_FIELD = re.compile(r"{{\s*\.(\w+)\s*}}")
_TOP_FIELD = re.compile(r"^(apiVersion|kind):[ \t]*['\"]?([^'\"\s#]+)", re.MULTILINE)
_SUMMARY = re.compile(r"^Summary: .*$", re.MULTILINE)


def _schema_path(location: str, kind: str, api_version: str) -> str:
    """The file kubeconform reads for kind/apiVersion from `location` (its registry's
    schemaPath, Kubernetes version "master", not strict): a folder without a template is
    read as a copy of kubeconform's fork, {version}-standalone/{kind}{-group}{-version}.json."""
    if not location.endswith("json"):
        location += "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}"
        location += "/{{ .ResourceKind }}{{ .KindSuffix }}.json"
    group, _, version = api_version.rpartition("/")
    suffix = "-" + (group.split(".")[0].lower() + "-" if group else "") + version.lower()
    fields = {
        "NormalizedKubernetesVersion": "master",
        "StrictSuffix": "",
        "ResourceKind": kind.lower(),
        "ResourceAPIVersion": version,
        "Group": group,
        "KindSuffix": suffix,
    }
    return _TEMPLATE_FIELD.sub(lambda m: fields.get(m[1], m[0]), location)


def _kinds(paths: list[Path]) -> list[tuple[str, str]]:
    """(kind, apiVersion) of every top-level object of the one-object files."""
    found: set[tuple[str, str]] = set()
    for path in paths:
        fields = dict(_TOP_FIELD.findall(path.read_text()))
        found.add((fields.get("kind", "?"), fields.get("apiVersion", "?")))
    return sorted(found)


def _kubeconform_argv(kubeconform: str, locations: list[str], manifests: Path) -> list[str]:
    """Full validation against the given schema locations; without one, kubeconform's
    default (remote) location with the kinds it has no schema for skipped."""
    if not locations:
        return [kubeconform, "-summary", "-ignore-missing-schemas", str(manifests)]
    flags = [arg for location in locations for arg in ("-schema-location", location)]
    return [kubeconform, "-summary", *flags, str(manifests)]


def _print_schemas(kubeconform: str, locations: list[str], paths: list[Path]) -> None:
    version = subprocess.run([kubeconform, "-v"], capture_output=True, text=True, check=False)
    print(f"  kubeconform {version.stdout.strip() or '(version unknown)'}: {kubeconform}")
    if not locations:
        print(f"  schemas: kubeconform's default location, {_KUBECONFORM_DEFAULT}")
        print("  (objects without a schema there are skipped: -ignore-missing-schemas)")
        return
    print("  schemas, first location that has the file (full validation, none skipped):")
    for kind, api_version in _kinds(paths):
        candidates = [_schema_path(loc, kind, api_version) for loc in locations]
        local = [c for c in candidates if not c.startswith(("http://", "https://"))]
        found = next((c for c in local if Path(c).is_file()), None)
        if found is not None:
            shown = f"{found} ({Path(found).stat().st_size / 1e3:.0f} kB)"
        elif len(local) < len(candidates):
            shown = "a remote location: " + ", ".join(c for c in candidates if c not in local)
        else:
            shown = "NONE (kubeconform reports it as an error)"
        print(f"    {kind} {api_version}: {shown}")


def _gitops(
    tmp: Path, sizes: list[int], runs: int, schema_locations: list[str], kubeconform: str | None
) -> None:
    python = sys.executable
    for index, files in enumerate(sizes):
        root = tmp / f"gitops-{files}"
        manifests, snapshots, size = corpus_gitops.generate(root, files)
        paths = sorted(manifests.rglob("*.yaml"))
        lint = [python, "-m", "renderer", "lint", str(manifests), "--checkpoint", str(snapshots)]
        code = subprocess.run(lint, capture_output=True, check=False, env=ENV).returncode
        print(
            f"(a) {files} one-object files, {size / 1e6:.1f} MB, half Dynamo manifests"
            f" (lint exit {code})"
        )
        lint1 = [*lint, "-j", "1"]
        one = _process(lint1, runs)
        default = _process(lint, runs)
        floor = _best(partial(_pyyaml_parse, paths), runs)
        _row("lint --checkpoint, whole process, -j 1", _ms(one, lint1))
        _row(f"lint --checkpoint, whole process, default -j ({CPUS})", _ms(default, lint))
        _row("PyYAML CSafeLoader parse of every file, in-process, 1 core", _ms(floor))
        _row("    ratio lint -j 1 / C-loader parse (best)", f"{one[0] / floor[0]:.2f}x")
        _row("    ratio lint default -j / C-loader parse (best)", f"{default[0] / floor[0]:.2f}x")
        if kubeconform is None:
            _row("kubeconform", "not on PATH", "(no ratio)")
            continue
        kube_argv = _kubeconform_argv(kubeconform, schema_locations, manifests)
        if index == 0:
            _print_schemas(kubeconform, schema_locations, paths)
        shown = " ".join(kube_argv[1:-1])
        print(f"  kubeconform command: kubeconform {shown} MANIFESTS")
        result = subprocess.run(kube_argv, capture_output=True, text=True, check=False)
        summary = _SUMMARY.search(result.stdout)
        print(f"  kubeconform exit {result.returncode}; {summary[0] if summary else 'no summary'}")
        kube = _process(kube_argv, runs)
        _row("kubeconform (default workers), whole process", _ms(kube, kube_argv))
        _row("    ratio lint -j 1 / kubeconform (best)", f"{one[0] / kube[0]:.2f}x", "<= 1x")
        _row(
            "    ratio lint default -j / kubeconform (best)",
            f"{default[0] / kube[0]:.2f}x",
            "<= 1x",
        )
        lint_cpu, kube_cpu = _CPU[tuple(lint)], _CPU[tuple(kube_argv)]
        cpu_ratio = f"{lint_cpu / kube_cpu:.2f}x"
        _row("    ratio lint default -j / kubeconform (best CPU time)", cpu_ratio)


def _timed(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process, its reaped workers' CPU included."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def _large(tmp: Path, runs: int, kubeconform: str | None, locations: list[str]) -> None:
    root = tmp / "large-1000"
    manifests, snapshots, size = corpus_gitops.generate(root, 1000, shape="large")
    lint = [sys.executable, "-m", "renderer", "lint", str(manifests)]
    lint += ["--checkpoint", str(snapshots)]
    code = subprocess.run(lint, capture_output=True, check=False, env=ENV).returncode
    print(
        f"(e) 1000 one-object files, {size / 1e6:.1f} MB, half large PodCliqueSets and bound"
        f" DCDs (lint exit {code}), {runs} runs in turn; load average {os.getloadavg()[0]:.1f}"
    )
    commands = {"lint, default -j": lint}
    if kubeconform is not None:
        commands["kubeconform"] = _kubeconform_argv(kubeconform, locations, manifests)
        _print_schemas(kubeconform, locations, sorted(manifests.rglob("*.yaml")))
    for argv in commands.values():
        _timed(argv)  # warm the caches
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            found[name].append(_timed(argv))
    for name, pairs in found.items():
        for wall, cpu in pairs:
            shown = f"{wall * 1e3:.0f} ms, cpu {cpu * 1e3:.0f}"
            _row(f"  {name}", shown, f"{cpu / wall:.2f} cores")
        walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
        busy = statistics.median(c / w for w, c in pairs)
        shown = f"{statistics.median(walls) * 1e3:.0f} ms, cpu {statistics.median(cpus) * 1e3:.0f}"
        _row(f"{name}: median", shown, f"{busy:.2f} cores")
    if "kubeconform" in found:
        runs_of = list(zip(found["lint, default -j"], found["kubeconform"], strict=True))
        wall = statistics.median(a[0] / b[0] for a, b in runs_of)
        cpu = statistics.median(a[1] / b[1] for a, b in runs_of)
        _row("    ratio lint / kubeconform, median of the pairs: wall", f"{wall:.2f}x", "<= 1x")
        _row("    ratio lint / kubeconform, median of the pairs: CPU", f"{cpu:.2f}x")
    print(f"  load average after: {os.getloadavg()[0]:.1f}")


def _memory(tmp: Path, sizes: list[int]) -> None:
    print("(b) peak memory, lint --checkpoint, default -j")
    for files in sizes:
        root = tmp / f"gitops-{files}"
        if not root.exists():
            corpus_gitops.generate(root, files)
        argv = ["lint", str(root / "manifests"), "--checkpoint", str(root / "snapshots")]
        code, own, workers = _peak_mib(argv)
        code1, own1, _ = _peak_mib([*argv, "-j", "1"])
        _row(
            f"{files} files: lint process (largest worker); -j 1",
            f"{own:.0f} ({workers:.0f}); {own1:.0f} MiB",
            f"exit {code}/{code1}",
        )


def _cold(runs: int) -> None:
    python = sys.executable
    small = RENDERED[-1]  # the v1beta1 PodCliqueSet example: one small file
    snapshot = SNAPSHOTS[0]
    lint = [python, "-m", "renderer", "lint", str(small), "--checkpoint", str(snapshot)]
    cold = _process(lint, runs)
    baseline = [python, "-c", "import ruamel.yaml"]
    base = _process(baseline, runs)
    _row(f"(c) cold `lint {small.parent.name}/{small.name} --checkpoint SNAPSHOT`", _ms(cold, lint))
    _row('(c) cold `python -c "import ruamel.yaml"`', _ms(base, baseline))
    _row("    ratio cold lint / import ruamel.yaml (best)", f"{cold[0] / base[0]:.2f}x", "<= 2x")


def _skipped_mostly(tmp: Path, runs: int) -> None:
    python = sys.executable
    corpus = tmp / "mixed"
    manifests, size = generate(corpus, 1200)
    files = sorted(corpus.rglob("*.yaml"))
    lint = [python, "-m", "renderer", "lint", str(corpus)]
    whole = _process(lint, runs)
    floor = _best(lambda: _pyyaml_parse(files), runs)
    print(
        f"(d) second figure: {manifests} manifests in {len(files)} files, {size / 1e6:.2f} MB,"
        " nine files in ten skipped by the pre-scan unparsed"
    )
    _row("lint, whole process, default -j", _ms(whole, lint))
    _row("PyYAML CSafeLoader parse, in-process", _ms(floor))
    _row("    ratio (best): measures skipping, not linting", f"{whole[0] / floor[0]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="best of N for each figure")
    parser.add_argument("--cold-runs", type=int, default=20)
    parser.add_argument("--sizes", default="1000,10000", help="corpus sizes for (a)")
    parser.add_argument("--memory-sizes", default="1000,10000,20000", help="sizes for (b)")
    parser.add_argument(
        "--kubeconform-schemas",
        action="append",
        metavar="LOCATION",
        help=(
            "kubeconform -schema-location (repeatable): a folder laid out as kubeconform's"
            " fork of kubernetes-json-schema (master-standalone/deployment-apps-v1.json, ...)"
            " or a template ending in .json; default: $KUBECONFORM_SCHEMA_LOCATION, else"
            " kubeconform's own remote location with missing schemas skipped"
        ),
    )
    parser.add_argument(
        "--kubeconform", metavar="BINARY", help="the kubeconform to run (default: on PATH)"
    )
    parser.add_argument("--pair-runs", type=int, default=7, help="runs of each in (e)")
    parser.add_argument("--only", choices=["large"], help="run only figure (e)")
    opts = parser.parse_args()
    env_location = os.environ.get("KUBECONFORM_SCHEMA_LOCATION")
    locations = opts.kubeconform_schemas or ([env_location] if env_location else [])
    kubeconform = opts.kubeconform or shutil.which("kubeconform")
    sys.path.insert(0, str(REPO))
    os.environ.pop("GITHUB_ACTIONS", None)
    print(f"cpus available {CPUS}; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        if opts.only is None:
            _cold(opts.cold_runs)
            sizes = [int(n) for n in opts.sizes.split(",") if n]
            _gitops(Path(tmp), sizes, opts.runs, locations, kubeconform)
        _large(Path(tmp), opts.pair_runs, kubeconform, locations)
        if opts.only is None:
            _memory(Path(tmp), [int(n) for n in opts.memory_sizes.split(",") if n])
            _skipped_mostly(Path(tmp), opts.runs)


if __name__ == "__main__":
    main()
