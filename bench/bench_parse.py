"""Time the input layer against PyYAML's C loader on a generated, mixed manifest corpus.

    python bench/bench_parse.py [--docs 1000] [--big] [--repeat 5]

Prints the best-of-N time for: PyYAML `yaml.load(Loader=CSafeLoader)` (no positions,
YAML 1.1 but not Kubernetes' rules), `load_bytes` (positions, go-yaml rules), and
`load_bytes` with `kinds` filtering for the checkpoint-related kinds only.
`--big` makes the documents larger (about 10 MB in total) with a status block of real
mappings and scalars in each (not comment lines).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import yaml
from corpus_templates import DEPLOYMENT, SERVICE

from renderer.source import load_bytes

_DCD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: llm-{n}-worker
  namespace: team-{ns}
  labels:
    nvidia.com/dynamo-component: VllmWorker
    nvidia.com/dynamo-graph-deployment-name: llm-{n}
  annotations:
    nvidia.com/dynamo-checkpoint-binding: v1/7f3c-{n}/2/{digest}
spec:
  componentType: worker
  replicas: 2
  extraPodSpec:
    mainContainer:
      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.{n}.1
      args: ["--model", "Qwen/Qwen3-0.6B", "--gpu-memory-utilization", "0.9"]
      resources:
        limits: {{nvidia.com/gpu: "1"}}
{extra}"""

_PCS = """\
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata:
  name: llm-{n}
  namespace: team-{ns}
  annotations:
    nvidia.com/dynamo-checkpoint-bindings: '{{"worker":"v1/7f3c-{n}/2/{digest}"}}'
spec:
  replicas: 1
  template:
    cliques:
    - name: frontend
      spec:
        roleName: frontend
        replicas: 1
        podSpec:
          containers:
          - name: main
            image: nvcr.io/nvidia/ai-dynamo/frontend:0.{n}.1
    - name: worker
      annotations:
        nvidia.com/dynamo-checkpoint-binding: v1/7f3c-{n}/2/{digest}
      spec:
        roleName: worker
        replicas: 2
        podSpec:
          containers:
          - name: main
            image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.{n}.1
            resources: {{limits: {{nvidia.com/gpu: 1}}}}
{extra}"""

# `--big`: a top-level status block of real mappings and scalars (not comment lines, which
# the scanner skips almost for free): 56 conditions of six fields each.
_EXTRA_HEAD = "status:\n  observedGeneration: 3\n  conditions:\n"
_EXTRA_ITEM = (
    '  - type: Ready{k}\n    status: "True"\n    reason: MinimumReplicasAvailable\n'
    "    message: replica set web-{k} has successfully progressed\n"
    '    lastTransitionTime: "2025-06-01T12:00:{s:02d}Z"\n    observed: {k}\n'
)


def corpus(docs: int, big: bool) -> bytes:
    parts = []
    templates = (DEPLOYMENT, SERVICE, DEPLOYMENT, SERVICE, _DCD, _PCS, DEPLOYMENT, SERVICE)
    for n in range(docs):
        template = templates[n % len(templates)]
        extra = ""
        if big and "{extra}" in template:
            items = "".join(_EXTRA_ITEM.format(k=k, s=k % 60) for k in range(56))
            extra = _EXTRA_HEAD + items
        parts.append(
            template.format(n=n, ns=n % 7, replicas=n % 5 + 1, digest=f"{n:064x}", extra=extra)
        )
    return "---\n".join(parts).encode()


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = corpus(args.docs, args.big)
    text = data.decode()
    kinds = {"DynamoComponentDeployment", "PodCliqueSet"}

    pyyaml = best(lambda: list(yaml.load_all(text, Loader=yaml.CSafeLoader)), args.repeat)
    full = best(lambda: load_bytes(data, "corpus.yaml"), args.repeat)
    spans = best(lambda: load_bytes(data, "corpus.yaml", spans=True), args.repeat)
    filtered = best(lambda: load_bytes(data, "corpus.yaml", kinds=kinds), args.repeat)
    count = len(load_bytes(data, "corpus.yaml"))
    kept = len(load_bytes(data, "corpus.yaml", kinds=kinds))

    print(f"corpus: {args.docs} documents, {len(data) / 1e6:.2f} MB, {count} objects")
    print(f"PyYAML CSafeLoader       {pyyaml * 1000:8.1f} ms   1.00x")
    print(f"load_bytes               {full * 1000:8.1f} ms   {full / pyyaml:.2f}x")
    print(f"load_bytes spans=True    {spans * 1000:8.1f} ms   {spans / pyyaml:.2f}x")
    print(
        f"load_bytes kinds={{DCD,PCS}} {filtered * 1000:6.1f} ms   {filtered / pyyaml:.2f}x"
        f"   ({kept} objects kept)"
    )


if __name__ == "__main__":
    main()
