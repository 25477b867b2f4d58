"""A GitOps corpus of one-object files: half Dynamo manifests, half ordinary workloads.

Dynamo manifests are the rendered examples (DCDs `nvidia.com/v1alpha1` and `v1beta1`,
PodCliqueSets) split one object per file and renamed, still bound to the example snapshot;
every 20th Dynamo file has one binding copy's digest changed and every 20th (offset) every
generation bumped, so lint finds something. The other half are Deployments and Services.
The snapshot is written under `snapshots/` (pass it with --checkpoint, as a hook does).
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus_templates import DEPLOYMENT, SERVICE

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
_NAME = re.compile(r"^(  name: llama-disagg)", re.MULTILINE)
_DIGEST = re.compile(r"(v1/[0-9a-f-]+/)(1)(/[0-9a-f]{63})([0-9a-f])")


def dynamo_documents() -> list[str]:
    """The rendered examples' objects, one text each (comment header dropped)."""
    docs: list[str] = []
    for path in sorted((EXAMPLES / "rendered").glob("*/*.yaml")):
        for part in path.read_text().split("\n---\n"):
            lines = [ln for ln in part.splitlines() if not ln.startswith("# Source:")]
            docs.append("\n".join(lines).strip("\n") + "\n")
    return docs


def _dynamo(template: str, n: int) -> str:
    text = _NAME.sub(rf"\1-{n:05d}", template)
    if n % 40 == 6:  # one copy's digest changes: provenance / disagree
        text = _DIGEST.sub(lambda m: m[1] + m[2] + m[3] + ("0" if m[4] != "0" else "1"), text, 1)
    elif n % 40 == 22:  # every copy one generation ahead: stale
        text = _DIGEST.sub(lambda m: m[1] + "2" + m[3] + m[4], text)
    return text


def large_documents() -> list[str]:
    """The large shape's Dynamo half, eight files in a cycle: seven PodCliqueSets (the two
    examples' in turn, 13.8 kB each) and one bound DCD (the decode worker's, 2.2 kB, of
    each example in turn)."""
    docs = dynamo_documents()
    pcs = [d for d in docs if "\nkind: PodCliqueSet\n" in d]
    bound = [d for d in docs if "kind: DynamoComponentDeployment" in d and "binding:" in d]
    cycle: list[str] = []
    for version in range(2):
        cycle += [pcs[(version + i) % len(pcs)] for i in range(7)] + [bound[version]]
    return cycle


SHAPES = {
    # half the files the rendered examples' objects (small DCDs most of them): 2.5 MB at 1,000
    "gitops": dynamo_documents,
    # half the files large PodCliqueSets and bound DCDs: 6.4 MB at 1,000
    "large": large_documents,
}


def generate(root: Path, files: int, shape: str = "gitops") -> tuple[Path, Path, int]:
    """Write `files` one-object files under root/manifests and the snapshot under
    root/snapshots; returns (manifests dir, snapshots dir, bytes). Deterministic.
    `shape`: what the Dynamo half holds (see SHAPES)."""
    manifests, snapshots = root / "manifests", root / "snapshots"
    snapshots.mkdir(parents=True, exist_ok=True)
    for snap in sorted((EXAMPLES / "snapshots").glob("*.yaml")):
        (snapshots / snap.name).write_bytes(snap.read_bytes())
    templates = SHAPES[shape]()
    size = 0
    for n in range(files):
        if n % 2 == 0:
            text = _dynamo(templates[(n // 2) % len(templates)], n)
        else:
            plain = DEPLOYMENT if n % 4 == 1 else SERVICE
            text = plain.format(n=n, ns=n % 7, replicas=n % 5 + 1, extra="")
        sub = manifests / f"team-{n % 16:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"obj-{n:05d}.yaml").write_text(text)
        size += len(text)
    return manifests, snapshots, size
