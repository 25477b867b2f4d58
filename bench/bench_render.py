"""Render benchmark: a 25-component DGD with 10 checkpointed components, cold and warm.

Cold: the whole process, `python -m renderer render DGD --checkpoint DIR [--target T]`,
median and best of N runs (the target on a 2-core machine is under 250 ms), and the same
with jsonschema imported too (what schema validation would cost without the fast path).
Warm: `render()` in this process, median of N runs. Also lists the heavy modules a cold
render imports. Every snapshot carries the DGD's worker hash, so the run prints no
warning (an earlier version gave each snapshot its own hash and timed 15 warnings).
The figures describe the renderer as it is: a render that emits the operator's full pod
specs does more work per component, and its figures will move.

    python bench/bench_render.py [--runs N] [--components 25] [--checkpointed 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASELINE = REPO / "tests" / "vectors" / "02-worker-baseline.input.yaml"
HEAVY = ("jsonschema", "cryptography", "ruamel.yaml.main", "ruamel.yaml.comments", "yaml")


def _component(index: int, checkpointed: bool) -> str:
    kind = "decode" if checkpointed else ("frontend" if index == 0 else "worker")
    # named by checkpointRef: the operator finds an automatic one only as
    # checkpoint-<DGDCheckpointID>, which these renamed vectors are not
    checkpoint = (
        "      experimental:\n        checkpoint:\n          enabled: true\n"
        f"          checkpointRef: checkpoint-{index:016x}\n"
        if checkpointed
        else ""
    )
    return (
        f"    - name: Worker{index:02d}\n      type: {kind}\n      replicas: 2\n{checkpoint}"
        "      podTemplate:\n        metadata:\n          labels:\n            team: inference\n"
        "        spec:\n          containers:\n            - name: main\n"
        "              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1\n"
        "              command: [python3, -m, dynamo.vllm]\n"
        f'              args: [--model, Qwen/Qwen3-0.6B, --port, "{8000 + index}"]\n'
        '              resources:\n                limits:\n                  nvidia.com/gpu: "1"\n'
        "              env:\n                - name: DYN_LOG\n                  value: info\n"
    )


def generate(root: Path, components: int, checkpointed: int) -> tuple[Path, Path]:
    """Write dgd.yaml and snaps/ (one snapshot per checkpointed component) under root."""
    chosen = set(range(components - checkpointed, components))
    dgd = (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: bench\n  namespace: dynamo-prod\nspec:\n  backendFramework: vllm\n"
        "  components:\n" + "".join(_component(i, i in chosen) for i in range(components))
    )
    (root / "dgd.yaml").write_text(dgd)
    snaps = root / "snaps"
    snaps.mkdir()
    template = BASELINE.read_text()
    for i in sorted(chosen):
        checkpoint_id = f"{i:016x}"
        text = (
            template.replace("9f1e2d3c4b5a6978", checkpoint_id)
            .replace('"llama-disagg"', '"bench"')
            .replace('"VllmDecodeWorker"', f'"Worker{i:02d}"')
        )
        (snaps / f"checkpoint-{checkpoint_id}.yaml").write_text(text)
    return root / "dgd.yaml", snaps


def _cold(argv: list[str], runs: int) -> list[float]:
    # bytecode written and used, as for an installed tool (any non-empty value of
    # PYTHONDONTWRITEBYTECODE, "0" too, turns it off)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    times = []
    subprocess.run(argv, check=True, capture_output=True, env=env)  # warm the bytecode cache
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def _imports(argv: list[str]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    return sorted(m for m in loaded if m.startswith(HEAVY))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--components", type=int, default=25)
    parser.add_argument("--checkpointed", type=int, default=10)
    opts = parser.parse_args()
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory() as tmp:
        dgd, snaps = generate(Path(tmp), opts.components, opts.checkpointed)
        print(
            f"DGD: {opts.components} components, {opts.checkpointed} checkpointed; "
            f"cpus: {os.cpu_count()}; python {sys.version.split()[0]}"
        )
        for target in ("dcd", "grove"):
            argv = [
                sys.executable,
                "-m",
                "renderer",
                "render",
                str(dgd),
                "--checkpoint",
                str(snaps),
                "--target",
                target,
            ]
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            once = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
            warnings = once.stderr.count("dynamo-render: warning")
            print(f"--target {target}: {warnings} warnings (the timed path is the clean one)")
            cold = _cold(argv, opts.runs)
            print(
                f"cold process, --target {target}: median {statistics.median(cold) * 1000:.1f} ms"
                f" (min {min(cold) * 1000:.1f}, max {max(cold) * 1000:.1f}, n={opts.runs})"
            )
        baseline = _cold([sys.executable, "-c", "pass"], opts.runs)
        print(f"bare interpreter start: median {statistics.median(baseline) * 1000:.1f} ms")
        # What the schema checks would cost if they needed jsonschema (they do not for valid
        # inputs and outputs: renderer.schema.fast answers those without it).
        with_jsonschema = _cold(
            [
                sys.executable,
                "-c",
                "import jsonschema, runpy, sys; sys.argv = ['dynamo-render', *sys.argv[1:]];"
                " runpy.run_module('renderer', run_name='__main__')",
                *argv[3:],
            ],
            opts.runs,
        )
        print(
            f"cold process, --target grove, jsonschema imported too: median"
            f" {statistics.median(with_jsonschema) * 1000:.1f} ms"
            f" (min {min(with_jsonschema) * 1000:.1f}, n={opts.runs})"
        )
        heavy = _imports(argv)
        print(f"heavy modules imported by a cold render: {', '.join(heavy) or 'none'}")

        from renderer.render import render
        from renderer.source import load_paths
        from renderer.yamlout import dump_stream

        source = load_paths([str(dgd)])[0]
        checkpoints = load_paths([str(snaps)])
        for target in ("dcd", "grove"):
            warm = []
            for _ in range(opts.runs):
                start = time.perf_counter()
                result = render(source, checkpoints, target=target)
                dump_stream([(str(dgd), o) for o in result.objects])
                warm.append(time.perf_counter() - start)
            print(
                f"in-process render + YAML, --target {target}: median "
                f"{statistics.median(warm) * 1000:.1f} ms ({len(result.objects)} objects)"
            )


if __name__ == "__main__":
    main()
