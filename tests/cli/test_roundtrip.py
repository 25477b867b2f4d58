"""Render and lint agree: what render writes lint calls clean, and one corruption is named.

Generated DGDs (v1alpha1 `spec.services` and v1beta1 `spec.components`) with one to six
components of random types and names (some shaped like role suffixes: `Dec-gms-0`,
`Prefill-ldr`), some checkpoint-enabled (matched by labels or by `checkpointRef`, two
components may share one), some multinode, some with GPU memory service, some waiting for
a checkpoint that is not Ready; their snapshots are reference vector 02 with another name,
UID, generation, labels and phase, in one file each, a `kind: List` or a YAML stream,
given with `--checkpoint` or among the linted paths. For each case and both targets:

1. `render -o DIR` writes the objects; lint of DIR and the snapshots (also with `--dgd`)
   exits 0 with no findings, except the warning every lint gives for a snapshot whose
   status.phase is not Ready (render warns about it too). A case naming a snapshot by
   `checkpointRef` lints without `--dgd` less rule checkpoint-outdated, which without the
   DGD takes the operator's automatic lookup by name (see that rule).
2. Each binding copy in the output (DCD metadata annotation, DCD pod-template annotation,
   clique annotation, PodCliqueSet map entry) is corrupted in turn, in one way hypothesis
   picks: deleted (a map left empty: its last entry, or the whole annotation); another
   generation, UID or one digest hex digit; malformed (or, for a map entry, the map no
   longer JSON). Lint exits 1 and names the rule at the corrupted file:line:column, and
   nothing but that rule and binding-disagree (the other copy now differs) is reported,
   also with `--dgd` (a wrong binding is not a render drift). `lint --fix` exits 1, gives
   back the rendered bytes and touches no other file; lint is clean again.
"""

from __future__ import annotations

import copy
import functools
import io
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, cast

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from render_support import BASELINE, IMAGE

from renderer.cli import main
from renderer.commands.lint import LintArgs
from renderer.commands.lint import execute as lint_execute
from renderer.commands.render import RenderArgs
from renderer.commands.render import plan as render_plan
from renderer.constants import TARGETS, Target
from renderer.errors import DynamoRenderError

NAMESPACE = "dynamo-prod"
BINDING = "nvidia.com/dynamo-checkpoint-binding: "
MAP = "nvidia.com/dynamo-checkpoint-bindings: "
WORKER_TYPES = ("worker", "prefill", "decode")
CORRUPTIONS = ("delete", "generation", "digest", "uid", "malformed")
RULE = {
    "delete": "binding-absent",
    "delete-map": "binding-absent",
    "generation": "binding-stale",
    "digest": "binding-provenance",
    "uid": "binding-replaced",
    "malformed": "binding-malformed",
    "malformed-map": "binding-malformed",
}
NOT_READY = ("Pending", "Creating", "Failed")
DGD_UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"  # vector 02's controller ownerReference
HEX = "0123456789abcdef"

# -- the generated case ----------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    name: str  # checkpoint-<id>
    uid: str
    generation: int
    dgd_label: str
    component_label: str
    worker_hash: str
    phase: str  # "" for none


@dataclass(frozen=True)
class Component:
    name: str
    type: str
    replicas: int | None = None
    nodes: int | None = None  # None: no multinode block
    gms: str = ""  # "", "intra", "inter"
    checkpoint: str = ""  # "", "labels", "ref", "disabled"
    policy: str = ""  # "", "Immediate", "WaitForCheckpoint"
    ref: str = ""  # checkpointRef
    pod_annotation: str = ""  # a key of the component's own pod annotations, or ""


@dataclass(frozen=True)
class Case:
    version: str  # "v1alpha1" | "v1beta1"
    dgd_name: str
    components: tuple[Component, ...]
    snapshots: tuple[Snapshot, ...] = ()
    backend: str = "vllm"  # "" when the DGD does not say
    dgd_annotation: str = ""  # a key of the DGD's spec.annotations, or ""
    layout: str = "files"  # snapshots: "files" (one each), "list" (kind: List), "stream"
    snapshots_linted: bool = False  # snapshots among lint's paths instead of --checkpoint

    @property
    def not_ready(self) -> list[str]:
        return sorted(s.name for s in self.snapshots if s.phase in NOT_READY)


@functools.cache
def _baseline() -> dict[str, Any]:
    """Vector 02, read once (PyYAML: not the reader under test); copied for each case."""
    data: dict[str, Any] = yaml.safe_load(BASELINE.read_text())
    return data


def snapshot_object(snap: Snapshot, dgd_name: str, name: str = "") -> dict[str, Any]:
    """Vector 02 as `snap` (named `name` when given), owned by the DGD `dgd_name` (its uid
    is vector 02's owner uid, DGD_UID) and recording GPU memory service (the operator
    restores a GMS component only from such a checkpoint)."""
    data = copy.deepcopy(_baseline())
    meta = data["metadata"]
    snap = replace(snap, name=name or snap.name)
    meta["name"] = snap.name
    meta["ownerReferences"][0]["name"] = dgd_name
    data["spec"]["gpuMemoryService"] = {"enabled": True}
    meta["uid"] = snap.uid
    meta["generation"] = snap.generation
    checkpoint_id = snap.name.removeprefix("checkpoint-")
    meta["labels"].update(
        {
            "nvidia.com/snapshot-checkpoint-id": checkpoint_id,
            "nvidia.com/dynamo-graph-deployment-name": snap.dgd_label,
            "nvidia.com/dynamo-component": snap.component_label,
            "nvidia.com/dynamo-worker-hash": snap.worker_hash,
        }
    )
    data["status"]["checkpointID"] = checkpoint_id
    data["status"]["jobName"] = f"{snap.name}-job"
    if snap.phase:
        data["status"]["phase"] = snap.phase
    else:
        del data["status"]["phase"]
    return data


def _annotation_value(key: str) -> str:
    # a reserved key the DGD writes itself: render drops it (and warns)
    if key.startswith("nvidia.com/"):
        return f"v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/9/{'0' * 64}"
    return "x"


def _checkpoint_lines(c: Component, indent: str) -> list[str]:
    if not c.checkpoint:
        return []
    enabled = str(c.checkpoint != "disabled").lower()
    lines = [f"{indent}checkpoint:", f"{indent}  enabled: {enabled}"]
    if c.ref:
        lines.append(f"{indent}  checkpointRef: {c.ref}")
    if c.policy:
        lines.append(f"{indent}  startupPolicy: {c.policy}")
    return lines


def _command(case: Case, c: Component) -> str:
    module = {"frontend": "frontend", "planner": "planner"}.get(c.type, case.backend or "vllm")
    return f"[python3, -m, dynamo.{module}]"


def _common(c: Component) -> list[str]:
    lines = []
    if c.replicas is not None:
        lines.append(f"      replicas: {c.replicas}")
    if c.nodes is not None:
        lines += ["      multinode:", f"        nodeCount: {c.nodes}"]
    return lines


def dgd_text(case: Case) -> str:
    lines = [
        f"apiVersion: nvidia.com/{case.version}",
        "kind: DynamoGraphDeployment",
        "metadata:",
        f"  name: {case.dgd_name}",
        f"  namespace: {NAMESPACE}",
        "spec:",
    ]
    if case.backend:
        lines.append(f"  backendFramework: {case.backend}")
    if case.dgd_annotation:
        value = _annotation_value(case.dgd_annotation)
        lines += ["  annotations:", f"    {case.dgd_annotation}: {value}"]
    lines.append("  services:" if case.version == "v1alpha1" else "  components:")
    for drawn in case.components:
        # as the validating webhook admits them: GMS for worker-class components only,
        # inter-pod GMS for vLLM only, and GPUs for every component that uses GMS
        vllm = case.backend == "vllm"  # the webhook reads the declared backend
        c = replace(drawn, gms="intra") if drawn.gms == "inter" and not vllm else drawn
        if c.type not in WORKER_TYPES:
            c = replace(c, gms="")
        pod_annotations = []
        if c.pod_annotation:
            pod_annotations = [f"{c.pod_annotation}: {_annotation_value(c.pod_annotation)}"]
        if case.version == "v1alpha1":
            lines += [f'    "{c.name}":', f"      componentType: {c.type}", *_common(c)]
            if c.gms:
                mode = "interPod" if c.gms == "inter" else "intraPod"
                lines += [
                    "      gpuMemoryService:",
                    "        enabled: true",
                    f"        mode: {mode}",
                ]
            lines += _checkpoint_lines(c, "      ")
            if pod_annotations:
                lines += ["      extraPodMetadata:", "        annotations:"]
                lines += [f"          {a}" for a in pod_annotations]
            if c.gms:
                lines += ["      resources:", "        limits:", '          gpu: "1"']
            lines += ["      extraPodSpec:", "        mainContainer:", f"          image: {IMAGE}"]
            lines.append(f"          command: {_command(case, c)}")
        else:
            lines += [f'    - name: "{c.name}"', f"      type: {c.type}", *_common(c)]
            experimental = _checkpoint_lines(c, "        ")
            if c.gms:
                mode = "InterPod" if c.gms == "inter" else "IntraPod"
                experimental += ["        gpuMemoryService:", f"          mode: {mode}"]
            if experimental:
                lines += ["      experimental:", *experimental]
            lines.append("      podTemplate:")
            if pod_annotations:
                lines += ["        metadata:", "          annotations:"]
                lines += [f"            {a}" for a in pod_annotations]
            lines += ["        spec:", "          containers:", "            - name: main"]
            lines += [
                f"              image: {IMAGE}",
                f"              command: {_command(case, c)}",
            ]
            if c.gms:
                lines += [
                    "              resources:",
                    "                limits:",
                    '                  nvidia.com/gpu: "1"',
                ]
    return "\n".join(lines) + "\n"


# -- strategies ------------------------------------------------------------------------

_NAME_POOL = [
    "Frontend",
    "Planner",
    "VllmDecodeWorker",
    "VllmPrefillWorker",
    "Worker",
    "decode",
    "Dec",
    "Dec-gms-0",  # names shaped like another component's cliques
    "Dec-ldr",
    "Dec-wkr-1",
    "Prefill-wkr",
]
_names = st.one_of(
    st.sampled_from(_NAME_POOL),
    st.from_regex(r"[A-Z][a-zA-Z0-9]{0,7}(-gms-[0-2]|-ldr|-wkr|-wkr-[12])?", fullmatch=True),
)
_POD_ANNOTATIONS = [
    "",
    "",
    "example.com/dashboard",  # sorts before the binding key
    "zz.example.com/note",  # after it
    "nvidia.com/dynamo-checkpoint-binding",  # reserved: render drops it
    "nvidia.com/dynamo-checkpoint-name",
]


def _hexes(size: int) -> st.SearchStrategy[str]:
    return st.integers(0, 16**size - 1).map(lambda v: f"{v:0{size}x}")


@st.composite
def cases(draw: st.DrawFn) -> Case:
    version = draw(st.sampled_from(["v1alpha1", "v1beta1"]))
    dgd_name = draw(
        st.one_of(
            st.sampled_from(["llama-disagg", "g", "qwen3-agg"]),
            st.from_regex(r"[a-z][a-z0-9-]{0,26}[a-z0-9]", fullmatch=True),
        )
    )
    worker_hash = draw(_hexes(10))
    size = draw(st.integers(1, 6))
    names = draw(st.lists(_names, min_size=size, max_size=size, unique_by=str.lower))
    components: list[Component] = []
    snapshots: list[Snapshot] = []
    for index, name in enumerate(names):
        ctype = draw(st.sampled_from(["frontend", "planner", "worker", "prefill", "decode"]))
        worker = ctype in WORKER_TYPES
        checkpoint = draw(
            st.sampled_from(
                ["labels", "labels", "ref", "", "disabled"] if worker else ["", "", "", "labels"]
            )
        )
        gms = draw(st.sampled_from(["", "", "intra", "inter"]))
        if gms and checkpoint == "labels":
            # the operator's automatic checkpoint of a GMS component needs the cluster's
            # DRA DeviceClass (createCheckpointCR): a GMS component names its checkpoint
            checkpoint = "ref"
        policy = draw(st.sampled_from(["", "Immediate", "WaitForCheckpoint"]))
        ref = ""
        shared = [s for s in snapshots if not s.component_label]
        if checkpoint == "ref" and shared and draw(st.booleans()):
            ref = draw(st.sampled_from(shared)).name  # two components, one checkpoint
        elif checkpoint in ("labels", "ref"):
            gated = policy == "WaitForCheckpoint" and draw(st.booleans())
            phase = draw(st.sampled_from([*NOT_READY, ""])) if gated else "Ready"
            checkpoint_name = f"checkpoint-{draw(_hexes(16))}{index}"
            by_labels = checkpoint == "labels"
            snapshots.append(
                Snapshot(
                    name=checkpoint_name,
                    uid=str(draw(st.uuids())),
                    generation=draw(st.integers(1, 5)),
                    # a checkpointRef snapshot carries no labels that match anything
                    dgd_label=dgd_name if by_labels else draw(st.sampled_from([dgd_name, "x"])),
                    component_label=name if by_labels else "",
                    # the snapshots usually agree on the DGD's worker hash
                    worker_hash=worker_hash if draw(st.integers(0, 9)) else draw(_hexes(10)),
                    phase=phase,
                )
            )
            ref = "" if by_labels else checkpoint_name
        components.append(
            Component(
                name=name,
                type=ctype,
                replicas=draw(st.one_of(st.none(), st.integers(0, 3))),
                nodes=draw(st.sampled_from([None, None, 1, 2, 3])),
                gms=gms,
                checkpoint=checkpoint,
                policy=policy,
                ref=ref,
                pod_annotation=draw(st.sampled_from(_POD_ANNOTATIONS)),
            )
        )
    return Case(
        version=version,
        dgd_name=dgd_name,
        components=tuple(components),
        snapshots=tuple(snapshots),
        backend=draw(st.sampled_from(["vllm", "vllm", "sglang", "trtllm", ""])),
        dgd_annotation=draw(st.sampled_from(_POD_ANNOTATIONS)),
        layout=draw(st.sampled_from(["files", "list", "stream"])),
        snapshots_linted=draw(st.booleans()),
    )


# -- running the tool in-process -------------------------------------------------------


@dataclass
class Run:
    """One case written to a directory: the DGD, the snapshots, an output dir per target."""

    case: Case
    root: Path
    dgd: str = ""
    snapshots: str = ""
    not_ready: list[str] = field(default_factory=list)  # names as written

    def write(self) -> None:
        dgd = self.root / "dgd.yaml"
        dgd.write_text(dgd_text(self.case))
        self.dgd = str(dgd)
        snapshots = self.root / "snapshots"
        snapshots.mkdir()
        self.snapshots = str(snapshots)
        names = operator_names(self.case, dgd)
        objects = [
            snapshot_object(s, self.case.dgd_name, names.get(s.component_label, ""))
            for s in self.case.snapshots
        ]
        self.not_ready = sorted(
            o["metadata"]["name"] for o in objects if o["status"].get("phase") in NOT_READY
        )
        if self.case.layout == "files":
            for obj in objects:
                (snapshots / f"{obj['metadata']['name']}.yaml").write_text(json.dumps(obj) + "\n")
        elif self.case.layout == "list" and objects:
            listing = {"apiVersion": "v1", "kind": "List", "items": objects}
            (snapshots / "all.yaml").write_text(json.dumps(listing, indent=1) + "\n")
        elif objects:
            stream = "".join(f"---\n{json.dumps(obj, indent=2)}\n" for obj in objects)
            (snapshots / "all.yaml").write_text(stream)

    def render(self, target: Target) -> dict[str, bytes] | None:
        """Rendered files by name, or None when render refuses the input (exit 2)."""
        out = self.root / target
        try:
            outcome = render_plan(
                RenderArgs(
                    dgd_file=self.dgd,
                    checkpoints=(self.snapshots,),
                    target=target,
                    output_dir=str(out),
                )
            )
        except DynamoRenderError as exc:
            assert exc.exit_code == 2
            return None
        assert outcome.exit_code == 0
        out.mkdir()
        files = {}
        for path, content in outcome.files:
            Path(path).write_bytes(content)
            files[Path(path).name] = content
        return files

    def lint(
        self, target: str, *, dgd: bool = False, fix: bool = False
    ) -> tuple[int, list[dict[str, Any]]]:
        """Exit code and findings, less the warnings every lint of these snapshots gives.

        A snapshot whose status.phase is there but not Ready (the WaitForCheckpoint cases)
        is warned about by every lint (rule checkpoint-invalid), as render warns about it:
        the operator restores only from a Ready checkpoint. Those warnings must be there,
        one per such snapshot, and are left out of the findings returned.
        """
        paths = [str(self.root / target)]
        checkpoints = [self.snapshots]
        if self.case.snapshots_linted:
            paths, checkpoints = [*paths, self.snapshots], []
        # Without the DGD, checkpoint-outdated takes the operator's automatic lookup by
        # name (a committed workload does not show that its DGD names the snapshot by
        # checkpointRef) and reports a checkpointRef snapshot: it runs with --dgd only.
        by_ref = any(c.checkpoint == "ref" for c in self.case.components)
        args = LintArgs(
            paths=paths,
            checkpoints=checkpoints,
            dgd=self.dgd if dgd else None,
            format="json",
            fix=fix,
            write_roots=[str(self.root)],  # what the command line takes from the paths given
            disabled_rules=("checkpoint-outdated",) if by_ref and not dgd else (),
        )
        out, err = io.StringIO(), io.StringIO()
        code = lint_execute(args, out, err)
        findings: list[dict[str, Any]] = json.loads(out.getvalue())["findings"]

        def not_ready(f: dict[str, Any]) -> bool:
            return (
                f["rule"] == "checkpoint-invalid"
                and f["severity"] == "warning"
                and f["kind"] == "DynamoCheckpoint"
                and "not Ready" in f["message"]
            )

        assert sorted(f["name"] for f in findings if not_ready(f)) == self.not_ready
        return code, [f for f in findings if not not_ready(f)]


def operator_names(case: Case, dgd: Path) -> dict[str, str]:
    """Component -> the checkpoint name the operator reads, for the snapshots found by
    the operator's automatic lookup (their labels name the component): so the generated
    snapshots are the ones it resolves. {} when the DGD is refused (render refuses too)."""
    from renderer.render import checkpoint_names
    from renderer.source import load_paths

    labelled = {s.component_label for s in case.snapshots if s.component_label}
    try:
        names = checkpoint_names(load_paths([str(dgd)])[0], DGD_UID)
    except (DynamoRenderError, ValueError):
        return {}
    return {c: n for c, n in names.items() if c in labelled}


# -- the binding copies of a rendered file, and their corruption -----------------------


@dataclass(frozen=True)
class Site:
    """One binding copy: its line (0-based) and value; for a map entry, its clique."""

    index: int
    value: str
    entry: str | None = None


def _gated_lines(content: bytes) -> set[int | str]:
    """The cliques at 0 replicas without restore metadata (WaitForCheckpoint before the
    checkpoint is Ready: no pod, so no admission; lint verifies nothing there), by name
    (their map entries) and by the 0-based line of their binding."""
    from renderer.source import load_bytes

    found: set[int | str] = set()
    for obj in load_bytes(content, "rendered.yaml"):
        cliques = ((obj.data.get("spec") or {}).get("template") or {}).get("cliques") or []
        for index, clique in enumerate(cliques):
            labels = clique.get("labels") or {}
            annotations = clique.get("annotations") or {}
            if (clique.get("spec") or {}).get("replicas") != 0:
                continue
            if "nvidia.com/snapshot-checkpoint-id" in labels or annotations.get(
                "nvidia.com/dynamo-checkpoint-restore-candidate"
            ):
                continue
            found.add(str(clique.get("name")))
            if BINDING.rstrip(": ") in annotations:
                path = ("spec", "template", "cliques", index, "annotations", BINDING.rstrip(": "))
                found.add(obj.mark(path).line - 1)
    return found


def sites(text: str) -> list[Site]:
    found = []
    for index, line in enumerate(text.splitlines()):
        if line.lstrip().startswith(BINDING):
            found.append(Site(index, line.split(BINDING, 1)[1]))
        elif line.lstrip().startswith(MAP):
            raw = line.split(MAP, 1)[1]
            assert raw.startswith("'") and raw.endswith("'"), raw
            for clique, value in json.loads(raw[1:-1]).items():
                found.append(Site(index, value, clique))
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def corrupt_value(draw: st.DrawFn, value: str, how: str) -> str:
    """Another binding: one field changed, or not one the operator parses (or writes)."""
    _v, uid, generation, digest = value.split("/")
    if how == "generation":
        new = draw(st.integers(1, 99).filter(lambda g: g != int(generation)))
        return f"v1/{uid}/{new}/{digest}"
    if how == "digest":
        at = draw(st.integers(0, 63))
        digit = draw(st.sampled_from([c for c in HEX if c != digest[at]]))
        return f"v1/{uid}/{generation}/{digest[:at]}{digit}{digest[at + 1 :]}"
    if how == "uid":
        new_uid = str(draw(st.uuids().filter(lambda u: str(u) != uid)))
        return f"v1/{new_uid}/{generation}/{digest}"
    assert how == "malformed"
    return draw(
        st.sampled_from(
            [
                f"v1/{uid}/0/{digest}",  # generation < 1
                f"v1/{uid}/x/{digest}",
                f"v1/{uid}/+{generation}/{digest}",  # parsed, but never written
                f"v1/{uid}/0{generation}/{digest}",
                f"v1/{uid}/{generation}/{digest.upper()}",
                f"v1/{uid}/{generation}/{digest[:-2]}",  # 31 bytes
                f"v2/{uid}/{generation}/{digest}",
                f"v1//{generation}/{digest}",
                f"v1/{uid}/{generation}",
            ]
        )
    )


def corrupt(draw: st.DrawFn, text: str, site: Site, how: str) -> tuple[str, str, int, int]:
    """(how, corrupted text, line, column where lint must report it, 1-based)."""
    lines = text.splitlines(keepends=True)
    line = lines[site.index]
    key = MAP if site.entry is not None else BINDING
    value_column = line.index(key) + len(key) + 1
    if site.entry is not None:
        head, raw = line[: value_column - 1], line[value_column - 1 :].rstrip("\n")
        entries = json.loads(raw[1:-1])
        if how == "delete":
            del entries[site.entry]
            if not entries and draw(st.booleans()):
                how = "delete-map"  # the whole annotation goes, not just its one entry
        elif how == "malformed" and draw(st.booleans()):
            lines[site.index] = f"{head}'{raw[1:-2]}'\n"  # the map is no JSON object
            return "malformed-map", "".join(lines), site.index + 1, value_column
        else:
            entries[site.entry] = corrupt_value(draw, site.value, how)
        if how != "delete-map":
            compact = json.dumps(entries, separators=(",", ":"), sort_keys=True)
            lines[site.index] = f"{head}'{compact}'\n"
            return how, "".join(lines), site.index + 1, value_column
    elif how != "delete":
        lines[site.index] = line.replace(site.value, corrupt_value(draw, site.value, how))
        return how, "".join(lines), site.index + 1, value_column
    # the key line goes, and a mapping it leaves empty; lint points at the parent key
    parent = max(i for i in range(site.index) if _indent(lines[i]) < _indent(line))
    del lines[site.index]
    if parent + 1 == len(lines) or _indent(lines[parent + 1]) <= _indent(lines[parent]):
        emptied = _indent(lines[parent])
        del lines[parent]
        parent = max(i for i in range(parent) if _indent(lines[i]) < emptied)
    return how, "".join(lines), parent + 1, _indent(lines[parent]) + 1


# -- the property ----------------------------------------------------------------------


@dataclass
class Tally:
    cases: int = 0
    renders: int = 0
    refused: int = 0
    unbound: int = 0  # renders with an unbound non-worker restore candidate (see check_case)
    corrupted: dict[str, int] = field(default_factory=dict)


def _unbound_candidates(case: Case) -> bool:
    """A component that is not worker-class restores from a checkpoint: render does not bind
    it (only worker-class components are bound), though its pods are restore candidates."""
    return any(
        c.type not in WORKER_TYPES and c.checkpoint in ("ref", "labels") for c in case.components
    )


def check_case(case: Case, draw: st.DrawFn, tally: Tally, hows: st.SearchStrategy[str]) -> None:
    """Render for both targets, lint clean, then corrupt, lint and fix every copy in turn."""
    tally.cases += 1
    with TemporaryDirectory() as tmp:
        run = Run(case, Path(tmp))
        run.write()
        for target in TARGETS:
            rendered = run.render(target)
            if rendered is None:
                tally.refused += 1
                continue
            tally.renders += 1
            alone, with_dgd = run.lint(target), run.lint(target, dgd=True)
            if _unbound_candidates(case):
                # render gives a checkpointed component that is not worker-class the restore
                # metadata (as the operator does) but no binding: the webhook, which reads no
                # component type, denies those pods; lint says so (errors: nothing else)
                tally.unbound += 1
                for code, found in (alone, with_dgd):
                    errors = [f for f in found if f["severity"] == "error"]
                    assert {f["rule"] for f in errors} <= {"binding-absent"}, found
                    assert code == (1 if errors else 0), found
                continue
            assert alone == (0, []), (target, [(f["rule"], f["message"]) for f in alone[1]])
            assert with_dgd == (0, []), (target, [(f["rule"], f["message"]) for f in with_dgd[1]])
            for file_name, content in sorted(rendered.items()):
                gated = _gated_lines(content)
                for site in sites(content.decode()):
                    if site.entry in gated or site.index in gated:
                        continue  # a clique that makes no pod: its binding is checked by no one
                    how = draw(hows)
                    check_copy(
                        run,
                        target,
                        rendered,
                        file_name=file_name,
                        site=site,
                        draw=draw,
                        how=how,
                        tally=tally,
                    )


def check_copy(
    run: Run,
    target: str,
    rendered: dict[str, bytes],
    *,
    file_name: str,
    site: Site,
    draw: st.DrawFn,
    how: str,
    tally: Tally,
) -> None:
    out = run.root / target
    path = out / file_name
    text = rendered[file_name].decode()
    how, broken, line, column = corrupt(draw, text, site, how)
    tally.corrupted[how] = tally.corrupted.get(how, 0) + 1
    assert broken != text
    path.write_text(broken)
    snapshots = {p: p.read_bytes() for p in Path(run.snapshots).iterdir()}

    code, found = run.lint(target, dgd=draw(st.booleans()))
    rule = RULE[how]
    places = {(f["rule"], Path(f["file"]).name, f["line"], f["column"]) for f in found}
    context = (how, site, sorted(places))
    # a deleted copy of an already-shaped workload (WaitForCheckpoint) is admitted: a
    # warning that --fix still repairs; everything else here is refused
    shaped = how == "delete" and all(
        f["severity"] == "warning" and "already shaped" in f["message"] for f in found
    )
    assert code == (0 if shaped else 1), context
    assert (rule, file_name, line, column) in places, context
    # the other copy of the workload now differs from this one: binding-disagree may fire
    assert {f["rule"] for f in found} <= {rule, "binding-disagree"}, context
    assert {Path(f["file"]).name for f in found} == {file_name}, context

    code, _ = run.lint(target, fix=True)
    assert code == 1, context
    assert path.read_bytes() == rendered[file_name], context
    for other, content in rendered.items():
        assert (out / other).read_bytes() == content, other
    assert {p: p.read_bytes() for p in Path(run.snapshots).iterdir()} == snapshots
    assert run.lint(target) == (0, []), context


TALLY = Tally()


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.data())
def _generated(data: st.DataObject) -> None:
    case = data.draw(cases(), label="case")
    renders = TALLY.renders
    check_case(case, cast(st.DrawFn, data.draw), TALLY, st.sampled_from(CORRUPTIONS))
    assume(TALLY.renders > renders)  # both targets refused: not a case for this property


@pytest.mark.slow
def test_render_and_lint_agree_on_generated_dgds() -> None:
    global TALLY  # noqa: PLW0603 (the property's counters, read once it has run)
    TALLY = Tally()
    _generated()
    # not vacuous: most cases render, and every kind of corruption was tried many times
    # (the exact draws depend on which modules the run has imported)
    assert TALLY.renders >= 0.8 * (TALLY.renders + TALLY.refused), TALLY
    tried = Counter[str]()
    for how, count in TALLY.corrupted.items():
        tried[how.removesuffix("-map")] += count
    assert all(tried[how] >= 10 for how in CORRUPTIONS), TALLY
    assert TALLY.renders >= 150, TALLY


# -- hand-picked cases -----------------------------------------------------------------


def _snap(name: str, component: str, *, phase: str = "Ready", dgd: str = "g") -> Snapshot:
    return Snapshot(
        name=f"checkpoint-{name}",
        uid=f"0d4f{name[:4]:0>4}-1111-4222-8333-444455556666",
        generation=2,
        dgd_label=dgd,
        component_label=component,
        worker_hash="5f8d2c1a9b",
        phase=phase,
    )


HAND_PICKED = {
    # Components whose own names end like another component's cliques: lint must take the
    # engine clique `dec-gms-0` of component Dec-gms-0 for an engine clique (not a GMS
    # clique carrying a misplaced binding), and the clique `dec` of the unchecked
    # component Dec for Dec's (not a clique of the checkpointed Dec-ldr missing its
    # binding).
    "role-shaped-names": Case(
        "v1beta1",
        "g",
        (
            Component("Dec", "decode"),
            Component("Dec-ldr", "worker", checkpoint="labels"),
            Component("Dec-gms-0", "decode", replicas=2, checkpoint="labels"),
            Component(
                "X-gms-1", "prefill", nodes=2, gms="inter", checkpoint="ref", ref="checkpoint-c3"
            ),
            Component("Frontend", "frontend"),
        ),
        (_snap("a1", "Dec-ldr"), _snap("b2", "Dec-gms-0"), _snap("c3", "X-gms-1")),
    ),
    # v1alpha1, multinode with inter-pod GMS (engine cliques `-ldr` and `-wkr-<rank>`),
    # WaitForCheckpoint on a Pending checkpoint (engine cliques at 0 replicas), two
    # components sharing one checkpoint by checkpointRef, the snapshots as a List.
    "gated-multinode-shared": Case(
        "v1alpha1",
        "llama-disagg",
        (
            Component("Frontend", "frontend"),
            Component(
                "Decode",
                "decode",
                replicas=2,
                nodes=3,
                gms="inter",
                checkpoint="ref",  # GMS: see cases()
                ref="checkpoint-d4",
                policy="WaitForCheckpoint",
                pod_annotation="zz.example.com/note",
            ),
            Component("PrefillA", "prefill", checkpoint="ref", ref="checkpoint-e5"),
            Component("PrefillB", "prefill", nodes=2, checkpoint="ref", ref="checkpoint-e5"),
        ),
        (
            _snap("d4", "Decode", phase="Pending", dgd="llama-disagg"),
            _snap("e5", "", dgd="other"),
        ),
        backend="vllm",  # inter-pod GMS: vLLM only (the validating webhook)
        dgd_annotation="example.com/owner",
        layout="list",
        snapshots_linted=True,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("how", CORRUPTIONS)
@pytest.mark.parametrize("name", sorted(HAND_PICKED))
def test_render_and_lint_agree_on_hand_picked_dgds(name: str, how: str) -> None:
    tally = Tally()

    @settings(max_examples=1, deadline=None, derandomize=True)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check_case(HAND_PICKED[name], cast(st.DrawFn, data.draw), tally, st.just(how))

    run()
    assert tally.refused == 0, tally
    assert tally.corrupted, tally


def test_component_named_like_a_role_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression, end to end: a checkpointed component named `Dec-gms-0` next to `Dec`.

    Lint used to read the clique `dec-gms-0` as the GMS clique of a component `dec`: it
    reported the binding render wrote as binding-misplaced, and `--fix` deleted it, so the
    pods would have been refused at admission.
    """
    case = Case(
        "v1alpha1",
        "g",
        (
            Component("Dec", "worker", checkpoint="labels"),
            Component("Dec-gms-0", "decode", gms="inter", checkpoint="ref", ref="checkpoint-b2"),
        ),
        (_snap("a1", "Dec"), _snap("b2", "Dec-gms-0")),
    )
    run = Run(case, tmp_path)
    run.write()
    out = tmp_path / "out"
    base = ["--no-config"]
    for target in ("dcd", "grove"):
        render = ["render", run.dgd, "--target", target, "--checkpoint", run.snapshots]
        assert main([*base, *render, "-o", str(out / target)]) == 0
    capsys.readouterr()
    (pcs,) = (out / "grove").iterdir()
    rendered = pcs.read_bytes()
    assert b"- name: dec-gms-0\n" in rendered and b"- name: dec-gms-0-gms-0\n" in rendered
    # With the DGD throughout: it names Dec-gms-0's snapshot by checkpointRef, which a
    # PodCliqueSet does not show (without --dgd, checkpoint-outdated takes the operator's
    # automatic lookup by name and reports checkpoint-b2 as one it never reads).
    lint = [*base, "lint", "--checkpoint", run.snapshots, "--format", "json", "--dgd", run.dgd]
    for target in ("dcd", "grove"):
        assert main([*lint, str(out / target)]) == 0
        assert json.loads(capsys.readouterr().out)["findings"] == []
    assert main([*lint, str(out / "grove"), "--fix"]) == 0  # nothing to fix
    capsys.readouterr()
    assert pcs.read_bytes() == rendered

    # a binding on the real GMS clique of Dec is still misplaced (a warning: its pods
    # restore from nothing, so the webhook admits them), and --fix removes it
    binding = next(s.value for s in sites(rendered.decode()) if s.entry == "dec-gms-0")
    text = rendered.decode()
    gms = text.index("- name: dec-gms-0-gms-0\n")
    # into the clique's annotations (the operator's discovery and origin-version keys)
    head = "        annotations:\n"
    after = text.index(head, gms) + len(head)
    stray = f"          {BINDING}{binding}\n"
    pcs.write_text(text[:after] + stray + text[after:])
    assert main([*lint, str(out / "grove")]) == 0
    found = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [
        ("binding-misplaced", text[:after].count("\n") + 1)
    ]
    assert main([*lint, str(out / "grove"), "--fix"]) == 1
    capsys.readouterr()
    assert pcs.read_bytes() == rendered
