"""Lint decides as admission decides: one table, through the real CLI.

Each row is a committed workload in one shape of docs/admission.md §1 (restore candidate,
already shaped, ordinary, on a PodCliqueSet clique, a v1beta1 DCD and a v1alpha1 DCD) and its
checkpoint in one state of §3 (captured and Ready, not Ready, pending, superseded, manual,
unreadable, replaced, stale, provenance-changed), and states the verdict: the findings
(rule, severity), the exit code, and what `--fix` leaves (the findings after it, and, where
it claims a fix, that its output equals `render`'s as data).

Where the table's inputs come from:
- snapshots: the reference vectors (tests/vectors: 02 the captured automatic checkpoint
  `checkpoint-9f1e2d3c4b5a6978`, 04 the same not Ready, 47 one without a uid, 51 the same
  checkpoint without the automatic marker, that is manual, 01 another automatic checkpoint);
  wrong bindings are other vectors' Go-computed bindings (07 generation 2, 08 another uid,
  09 another digest);
- workloads: `dynamo-render render` of a DGD naming that snapshot with checkpointRef
  (render's fields are verified against the operator oracle elsewhere; its binding is vector
  02's), for both targets, Immediate and WaitForCheckpoint, edited one fact at a time; the
  operator oracle's own objects for beta-checkpoint-wait-ready (tests/operator/goldens);
  the v1alpha1 DCD fixture (tests/fixtures/lint/dcd-v1alpha1).

Rows marked `today` are the bullets of issue 21 "What is wrong today" (reproduced on the
commit before this model): each fails on that code.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from paths import FIXTURES, VECTORS

from renderer.cli import main
from renderer.jsoncopy import deep_copy
from renderer.source import load_bytes
from renderer.yamlout import dump_object

sys.path.insert(0, str(Path(__file__).parent.parent))
from render_support import FRONTEND_BETA, decode_beta, v1beta1_dgd

JSON = dict[str, Any]
ORACLE = Path(__file__).parent.parent / "operator" / "goldens" / "oracle"
_VECTORS = {
    json.loads(line)["case"][:2]: json.loads(line).get("binding")
    for line in (VECTORS / "expected.jsonl").read_text().splitlines()
}
GOOD, STALE, REPLACED, PROVENANCE = _VECTORS["02"], _VECTORS["07"], _VECTORS["08"], _VECTORS["09"]
OTHER = _VECTORS["01"]  # checkpoint-a1b2c3d4 (same uid and generation, another digest)
BASELINE = VECTORS / "02-worker-baseline.input.yaml"
NOT_READY = VECTORS / "04-same-as-02-metadata-status-identity.input.yaml"
UNREADABLE = VECTORS / "47-error-missing-uid.input.yaml"
MANUAL = VECTORS / "51-error-missing-auto-marker.input.yaml"
MINIMAL = VECTORS / "01-minimal.input.yaml"
NAME = "checkpoint-9f1e2d3c4b5a6978"
BINDING = "nvidia.com/dynamo-checkpoint-binding"
MAP = "nvidia.com/dynamo-checkpoint-bindings"
CKPT_NAME = "nvidia.com/dynamo-checkpoint-name"
CANDIDATE = "nvidia.com/dynamo-checkpoint-restore-candidate"
ID_LABEL = "nvidia.com/snapshot-checkpoint-id"
WORKER = "vllmdecodeworker"
E, W = "error", "warning"


# --- inputs -----------------------------------------------------------------------------


def dgd_text(mode: str) -> str:
    """A DGD whose decode worker names vector 02 by checkpointRef."""
    policy = "          startupPolicy: WaitForCheckpoint\n" if mode == "wait" else ""
    return v1beta1_dgd(FRONTEND_BETA + decode_beta(checkpoint=policy))


@cache
def rendered(mode: str, target: str, snapshot: Path = BASELINE) -> tuple[JSON, ...]:
    """`render` of `dgd_text(mode)` with `snapshot` (vector 02 unless said)."""
    dgd = dgd_text(mode)
    out = io.StringIO()
    with _tmpdir() as tmp:
        path = tmp / "dgd.yaml"
        path.write_text(dgd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(
                [
                    "--no-config",
                    "render",
                    str(path),
                    "--checkpoint",
                    str(snapshot),
                    "--target",
                    target,
                ]
            )
    assert code == 0
    return tuple(o.data for o in load_bytes(out.getvalue().encode(), "rendered.yaml"))


@contextlib.contextmanager
def _tmpdir() -> Any:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def dump(objects: list[JSON]) -> str:
    return "---\n".join(dump_object(o) for o in objects)


def clique(objects: list[JSON], name: str = WORKER) -> JSON:
    pcs = next(o for o in objects if o["kind"] == "PodCliqueSet")
    found: JSON = next(c for c in pcs["spec"]["template"]["cliques"] if c["name"] == name)
    return found


def pcs_annotations(objects: list[JSON]) -> JSON:
    pcs = next(o for o in objects if o["kind"] == "PodCliqueSet")
    annotations: JSON = pcs["metadata"].setdefault("annotations", {})
    return annotations


def worker_dcd(objects: list[JSON]) -> JSON:
    found: JSON = next(
        o
        for o in objects
        if o["kind"] == "DynamoComponentDeployment" and "vllmdecodeworker" in o["metadata"]["name"]
    )
    return found


def template_annotations(dcd: JSON) -> JSON:
    meta = dcd["spec"].setdefault("podTemplate", {}).setdefault("metadata", {})
    annotations: JSON = meta.setdefault("annotations", {})
    return annotations


def set_pcs_binding(objects: list[JSON], value: str | None, name: str = WORKER) -> None:
    """The clique's binding and its map entry (None: both removed)."""
    annotations = clique(objects, name).setdefault("annotations", {})
    entries = json.loads(pcs_annotations(objects).get(MAP, "{}"))
    if value is None:
        annotations.pop(BINDING, None)
        entries.pop(name, None)
    else:
        annotations[BINDING] = value
        entries[name] = value
    if entries:
        pcs_annotations(objects)[MAP] = json.dumps(entries, separators=(",", ":"), sort_keys=True)
    else:
        pcs_annotations(objects).pop(MAP, None)


def set_dcd_binding(objects: list[JSON], value: str | None) -> None:
    dcd = worker_dcd(objects)
    for place in (dcd["metadata"]["annotations"], template_annotations(dcd)):
        if value is None:
            place.pop(BINDING, None)
        else:
            place[BINDING] = value


def named(objects: list[JSON]) -> None:
    """[our contract]: a bound already-shaped clique keeps the checkpoint name."""
    clique(objects).setdefault("annotations", {})[CKPT_NAME] = NAME


def snapshot_text(path: Path, edit: Callable[[str], str] = lambda s: s) -> str:
    return edit(path.read_text())


def superseding() -> str:
    """Vector 02 re-captured for another worker hash of the same component, later."""
    text = BASELINE.read_text()
    for old, new in (
        (NAME, "checkpoint-0f0e0d0c0b0a0908"),
        ('"9f1e2d3c4b5a6978"', '"0f0e0d0c0b0a0908"'),
        ("5f8d2c1a9b", "c0ffee1234"),
        ("7c9e6679-7425-40de-944b-e07fc1f90ae7", "11111111-2222-4333-8444-555555555555"),
        ("2025-06-01T12:00:00Z", "2025-07-01T12:00:00Z"),
    ):
        text = text.replace(old, new)
    return text


# --- the table --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    manifests: Callable[[], str]
    snapshots: tuple[Callable[[], str], ...]
    verdict: frozenset[tuple[str, str]]
    code: int
    # the findings left after --fix (None: same as before, and no file changed)
    after_fix: frozenset[tuple[str, str]] | None = None
    # --fix output equals this render, as data (where it claims a fix)
    fixed_as: Callable[[], list[JSON]] | None = None
    args: tuple[str, ...] = ("--disable", "checkpoint-outdated")
    today: bool = False  # a bullet of issue 21's "What is wrong today"
    dgd: str | None = None  # lint --dgd with the DGD rendered in this mode


def edited(mode: str, target: str, *edits: Callable[[list[JSON]], None]) -> Callable[[], str]:
    def build() -> str:
        objects = [deep_copy(o) for o in rendered(mode, target)]
        for edit in edits:
            edit(objects)
        return dump(objects)

    return build


def as_rendered(
    mode: str, target: str, *edits: Callable[[list[JSON]], None], snapshot: Path = BASELINE
) -> Callable[[], list[JSON]]:
    def build() -> list[JSON]:
        objects = [deep_copy(o) for o in rendered(mode, target, snapshot)]
        for edit in edits:
            edit(objects)
        return objects

    return build


def text_of(path: Path) -> Callable[[], str]:
    return path.read_text


def pcs_value(value: str | None) -> Callable[[list[JSON]], None]:
    return lambda objects: set_pcs_binding(objects, value)


def dcd_value(value: str | None) -> Callable[[list[JSON]], None]:
    return lambda objects: set_dcd_binding(objects, value)


def frontend_candidate(objects: list[JSON]) -> None:
    annotations = clique(objects, "frontend").setdefault("annotations", {})
    annotations[CANDIDATE] = "true"
    annotations[CKPT_NAME] = NAME


def gms_candidate(objects: list[JSON]) -> None:
    pcs = next(o for o in objects if o["kind"] == "PodCliqueSet")
    gms = deep_copy(clique(objects, WORKER))
    gms["name"] = "vllmdecodeworker-gms-0"
    gms["spec"]["roleName"] = "vllmdecodeworker-gms-0"
    gms["annotations"].pop(BINDING, None)
    pcs["spec"]["template"]["cliques"].append(gms)


def type_frontend(objects: list[JSON]) -> None:
    clique(objects)["labels"]["nvidia.com/dynamo-component-type"] = "frontend"


def binding_in_labels(objects: list[JSON]) -> None:
    c = clique(objects)
    c["labels"][BINDING] = c["annotations"].pop(BINDING)


def unnamed(objects: list[JSON]) -> None:
    clique(objects)["annotations"].pop(CKPT_NAME, None)


def strip_restore(objects: list[JSON]) -> None:
    set_pcs_binding(objects, None)


def two_shaped_swapped(objects: list[JSON]) -> None:
    """A second WaitForCheckpoint clique restoring from checkpoint-a1b2c3d4 (vector 01),
    the two cliques' bindings swapped."""
    pcs = next(o for o in objects if o["kind"] == "PodCliqueSet")
    other = deep_copy(clique(objects))
    other["name"] = "vllmprefillworker"
    other["spec"]["roleName"] = "vllmprefillworker"
    other["labels"][ID_LABEL] = "a1b2c3d4"
    other["labels"]["nvidia.com/dynamo-component"] = "VllmPrefillWorker"
    if CKPT_NAME in other["annotations"]:
        other["annotations"][CKPT_NAME] = "checkpoint-a1b2c3d4"
    pcs["spec"]["template"]["cliques"].append(other)
    set_pcs_binding(objects, OTHER)
    set_pcs_binding(objects, GOOD, "vllmprefillworker")


def two_shaped(objects: list[JSON]) -> None:
    """Both cliques bound to their own checkpoints, named ([our contract])."""
    named(objects)
    two_shaped_swapped(objects)
    set_pcs_binding(objects, GOOD)
    set_pcs_binding(objects, OTHER, "vllmprefillworker")


def dcd_type_frontend(objects: list[JSON]) -> None:
    dcd = worker_dcd(objects)
    dcd["spec"]["type"] = "frontend"
    dcd["metadata"]["labels"]["nvidia.com/dynamo-component-type"] = "frontend"


def dcd_binding_in_labels(objects: list[JSON]) -> None:
    dcd = worker_dcd(objects)
    dcd["metadata"]["labels"][BINDING] = dcd["metadata"]["annotations"].pop(BINDING)


def unchecked_prefill_with_pasted_binding(objects: list[JSON]) -> None:
    """A prefill DCD that is not checkpointed, with the decode worker's binding pasted on its
    metadata."""
    prefill = deep_copy(worker_dcd(objects))
    prefill["metadata"]["name"] = "llama-disagg-vllmprefillworker"
    prefill["metadata"]["labels"]["nvidia.com/dynamo-component"] = "VllmPrefillWorker"
    prefill["spec"]["type"] = "prefill"
    prefill["spec"]["componentName"] = "VllmPrefillWorker"
    prefill["spec"].pop("experimental", None)
    template = template_annotations(prefill)
    for key in list(template):
        if key.startswith(("nvidia.com/dynamo-checkpoint", "nvidia.com/snapshot")):
            del template[key]
    objects.append(prefill)


def finalizers(objects: list[JSON]) -> None:
    for o in objects:
        o["metadata"]["finalizers"] = (
            ["grove.io/podcliqueset.grove.io"]
            if o["kind"] == "PodCliqueSet"
            else ["nvidia.com/finalizer"]
        )


def alpha_dcd(binding: str | None, *, manual_ref: bool = False) -> Callable[[], str]:
    """The v1alpha1 DCD fixture restoring through its own `spec.checkpoint.checkpointRef`
    (WaitForCheckpoint: its pod template carries no restore metadata)."""

    def build() -> str:
        text = (FIXTURES / "lint" / "dcd-v1alpha1" / "clean.yaml").read_text()
        lines = [
            line
            for line in text.splitlines(keepends=True)
            if CKPT_NAME not in line and CANDIDATE not in line and "restore from" not in line
        ]
        text = "".join(lines).replace(
            "  replicas: 2\n",
            "  replicas: 2\n  checkpoint:\n    enabled: true\n"
            f"    checkpointRef: {NAME}\n    startupPolicy: WaitForCheckpoint\n",
            1,
        )
        if binding is None:
            text = "".join(line for line in text.splitlines(keepends=True) if BINDING not in line)
        else:
            text = text.replace(GOOD, binding)
        return text

    return build


def labels_as_list(text: str) -> str:
    """`metadata.labels` written as a list: no object the API server stores."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if line == "  labels:\n":
            out.append("  labels: [a, b]\n")
            skipping = True
            continue
        if skipping and line.startswith("    "):
            continue
        skipping = False
        out.append(line)
    return "".join(out)


def no_namespace(text: str) -> str:
    return text.replace('  namespace: "dynamo-prod"\n', "", 1)


def oracle_case(case: str) -> Callable[[], str]:
    return lambda: (
        (ORACLE / case / "expected-pcs.yaml").read_text()
        + "---\n"
        + (ORACLE / case / "expected-dcds.yaml").read_text()
    )


def fs(*items: tuple[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset(items)


CLEAN: frozenset[tuple[str, str]] = frozenset()
B02 = text_of(BASELINE)

CASES = [
    # -- restore candidate (Immediate), PodCliqueSet clique -------------------------------
    Case("pcs-candidate-ready", edited("immediate", "grove"), (B02,), CLEAN, 0),
    Case(
        "pcs-candidate-stale",
        edited("immediate", "grove", pcs_value(STALE)),
        (B02,),
        fs(("binding-stale", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    Case(
        "pcs-candidate-replaced",
        edited("immediate", "grove", pcs_value(REPLACED)),
        (B02,),
        fs(("binding-replaced", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    Case(
        "pcs-candidate-provenance",
        edited("immediate", "grove", pcs_value(PROVENANCE)),
        (B02,),
        fs(("binding-provenance", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    Case(
        "pcs-candidate-absent",
        edited("immediate", "grove", pcs_value(None)),
        (B02,),
        fs(("binding-absent", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    Case(
        "pcs-candidate-empty-binding-is-absent",
        edited("immediate", "grove", pcs_value("")),
        (B02,),
        fs(("binding-absent", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
        today=True,
    ),
    Case(
        "pcs-candidate-malformed",
        edited("immediate", "grove", pcs_value("v1/abc")),
        (B02,),
        fs(("binding-malformed", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    Case(
        "pcs-candidate-not-ready",
        edited("immediate", "grove"),
        (text_of(NOT_READY),),
        fs(("checkpoint-invalid", W)),
        0,
    ),
    Case(
        "pcs-candidate-pending-unbound",
        edited("immediate", "grove", pcs_value(None)),
        (),
        fs(("checkpoint-pending", W)),
        0,
    ),
    Case(
        "pcs-candidate-pending-bound",
        edited("immediate", "grove"),
        (),
        fs(("checkpoint-pending", W)),
        0,
    ),
    Case(
        "pcs-candidate-manual-unbound",
        edited("immediate", "grove", pcs_value(None)),
        (text_of(MANUAL),),
        CLEAN,
        0,
    ),
    Case(
        "pcs-candidate-manual-bound",
        edited("immediate", "grove"),
        (text_of(MANUAL),),
        fs(("binding-misplaced", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove", snapshot=MANUAL),
    ),
    Case(
        "pcs-candidate-unreadable-bound",
        edited("immediate", "grove"),
        (text_of(UNREADABLE),),
        fs(("checkpoint-invalid", E)),
        1,
    ),
    Case(
        "pcs-candidate-superseded",
        edited("immediate", "grove"),
        (B02, superseding),
        fs(("checkpoint-outdated", E)),
        1,
        args=(),
    ),
    Case(
        "pcs-frontend-candidate-unbound",
        edited("immediate", "grove", frontend_candidate),
        (B02,),
        fs(("binding-absent", E)),
        1,
        today=True,
    ),
    Case(
        "pcs-gms-candidate-unbound",
        edited("immediate", "grove", gms_candidate),
        (B02,),
        fs(("binding-absent", E)),
        1,
        today=True,
    ),
    Case(
        "pcs-candidate-typed-frontend-bound",
        edited("immediate", "grove", type_frontend),
        (B02,),
        fs(("binding-misplaced", W)),
        0,
        today=True,
    ),
    Case(
        "pcs-candidate-typed-frontend-unbound",
        edited("immediate", "grove", type_frontend, pcs_value(None)),
        (B02,),
        fs(("binding-absent", E)),
        1,
        today=True,
    ),
    Case(
        "pcs-binding-moved-into-labels",
        edited("immediate", "grove", binding_in_labels),
        (B02,),
        fs(("binding-misplaced", E), ("binding-absent", E)),
        1,
        CLEAN,
        as_rendered("immediate", "grove"),
        today=True,
    ),
    Case(
        "pcs-snapshot-without-namespace",
        edited("immediate", "grove"),
        (lambda: snapshot_text(BASELINE, no_namespace),),
        CLEAN,
        0,
        today=True,
    ),
    Case(
        "pcs-checkpoint-ref-not-outdated-without-dgd",
        edited("immediate", "grove"),
        (B02,),
        fs(("checkpoint-outdated", W)),
        0,
        args=(),
        today=True,
    ),
    Case(
        "manual-snapshot-schema",
        edited("immediate", "grove", pcs_value(None)),
        (lambda: snapshot_text(MANUAL, labels_as_list),),
        fs(("schema", E)),
        1,
        today=True,
    ),
    # -- already shaped (WaitForCheckpoint), PodCliqueSet clique ---------------------------
    Case("pcs-shaped-ready-named", edited("wait", "grove", named), (B02,), CLEAN, 0),
    Case(
        "pcs-shaped-bound-unnamed",
        edited("wait", "grove", unnamed),
        (B02,),
        fs(("checkpoint-unnamed", E)),
        1,
        CLEAN,
        as_rendered("wait", "grove", named),
    ),
    Case(
        "pcs-shaped-replaced",
        edited("wait", "grove", unnamed, pcs_value(REPLACED)),
        (B02,),
        fs(("binding-replaced", E), ("checkpoint-unnamed", E)),
        1,
        CLEAN,
        as_rendered("wait", "grove", named),
        today=True,
    ),
    Case(
        "pcs-shaped-stale-unnamed",
        edited("wait", "grove", unnamed, pcs_value(STALE)),
        (B02,),
        fs(("binding-stale", E), ("checkpoint-unnamed", E)),
        1,
        CLEAN,
        as_rendered("wait", "grove", named),
        today=True,
    ),
    Case(
        "pcs-shaped-all-copies-removed",
        edited("wait", "grove", named, strip_restore),
        (B02,),
        fs(("binding-absent", W)),
        0,
        CLEAN,
        as_rendered("wait", "grove", named),
        today=True,
    ),
    Case(
        "pcs-shaped-manual-bound",
        edited("wait", "grove", named),
        (text_of(MANUAL),),
        fs(("binding-misplaced", E)),
        1,
        CLEAN,
        as_rendered("wait", "grove", named, snapshot=MANUAL),
        today=True,
    ),
    Case(
        "pcs-shaped-bindings-swapped",
        edited("wait", "grove", unnamed, two_shaped_swapped),
        (B02, text_of(MINIMAL)),
        fs(("binding-provenance", E), ("checkpoint-unnamed", E)),
        1,
        CLEAN,
        as_rendered("wait", "grove", named, two_shaped),
        today=True,
    ),
    Case(
        "pcs-shaped-pending",
        edited("wait", "grove", named),
        (),
        fs(("checkpoint-pending", W)),
        0,
    ),
    Case(
        "oracle-wait-ready-checkpoint-ref-manual",
        oracle_case("beta-checkpoint-wait-ready"),
        (text_of(ORACLE / "beta-checkpoint-wait-ready" / "checkpoint.yaml"),),
        CLEAN,
        0,
        args=(),
        today=True,
    ),
    # -- ordinary --------------------------------------------------------------------------
    Case(
        "pcs-ordinary-stray-binding",
        edited(
            "immediate",
            "grove",
            lambda o: clique(o, "frontend").setdefault("annotations", {}).update({BINDING: GOOD}),
        ),
        (B02,),
        fs(("binding-misplaced", W)),
        0,
        CLEAN,
        as_rendered("immediate", "grove"),
    ),
    # -- DCD v1beta1 -----------------------------------------------------------------------
    Case("dcd-candidate-ready", edited("immediate", "dcd"), (B02,), CLEAN, 0),
    Case(
        "dcd-candidate-stale",
        edited("immediate", "dcd", dcd_value(STALE)),
        (B02,),
        fs(("binding-stale", E)),
        1,
        CLEAN,
        as_rendered("immediate", "dcd"),
    ),
    Case(
        "dcd-candidate-absent",
        edited("immediate", "dcd", dcd_value(None)),
        (B02,),
        fs(("binding-absent", E)),
        1,
        CLEAN,
        as_rendered("immediate", "dcd"),
    ),
    Case("dcd-shaped-ready", edited("wait", "dcd"), (B02,), CLEAN, 0),
    Case(
        "dcd-shaped-replaced",
        edited("wait", "dcd", dcd_value(REPLACED)),
        (B02,),
        fs(("binding-replaced", E)),
        1,
        CLEAN,
        as_rendered("wait", "dcd"),
    ),
    Case(
        "dcd-shaped-manual-bound",
        edited("wait", "dcd"),
        (text_of(MANUAL),),
        fs(("binding-misplaced", E)),
        1,
        CLEAN,
        as_rendered("wait", "dcd", snapshot=MANUAL),
        today=True,
    ),
    Case(
        "dcd-typed-frontend-candidate-unbound",
        edited("immediate", "dcd", dcd_type_frontend, dcd_value(None)),
        (B02,),
        fs(("binding-absent", E)),
        1,
        today=True,
    ),
    Case(
        "dcd-binding-moved-into-labels",
        edited("immediate", "dcd", dcd_binding_in_labels),
        (B02,),
        fs(("binding-misplaced", E), ("binding-absent", E)),
        1,
        CLEAN,
        as_rendered("immediate", "dcd"),
        today=True,
    ),
    Case(
        "dcd-unchecked-prefill-pasted-binding",
        edited("immediate", "dcd", unchecked_prefill_with_pasted_binding),
        (B02,),
        fs(("binding-misplaced", W)),
        0,
        CLEAN,
        today=True,
    ),
    Case(
        "dcd-checkpoint-ref-not-outdated-without-dgd",
        edited("immediate", "dcd"),
        (B02,),
        fs(("checkpoint-outdated", W)),
        0,
        args=(),
        today=True,
    ),
    Case(
        "dcd-snapshot-without-namespace",
        edited("immediate", "dcd"),
        (lambda: snapshot_text(BASELINE, no_namespace),),
        CLEAN,
        0,
        today=True,
    ),
    # -- with --dgd ------------------------------------------------------------------------
    Case(
        "dcd-export-with-controller-finalizers",
        edited("immediate", "dcd", finalizers),
        (B02,),
        CLEAN,
        0,
        args=(),
        dgd="immediate",
        today=True,
    ),
    Case(
        "pcs-export-with-controller-finalizers",
        edited("immediate", "grove", finalizers),
        (B02,),
        CLEAN,
        0,
        args=(),
        dgd="immediate",
        today=True,
    ),
    Case(
        "pcs-checkpoint-ref-with-dgd",
        edited("immediate", "grove"),
        (B02,),
        CLEAN,
        0,
        args=(),
        dgd="immediate",
    ),
    # -- DCD v1alpha1 ----------------------------------------------------------------------
    Case("alpha-dcd-ref-ready", alpha_dcd(GOOD), (B02,), CLEAN, 0),
    Case(
        "alpha-dcd-ref-replaced",
        alpha_dcd(REPLACED),
        (B02,),
        fs(("binding-replaced", E)),
        1,
        CLEAN,
        today=True,
    ),
    Case(
        "alpha-dcd-ref-stale",
        alpha_dcd(STALE),
        (B02,),
        fs(("binding-stale", E)),
        1,
        CLEAN,
        today=True,
    ),
    Case("alpha-dcd-ref-manual", alpha_dcd(None), (text_of(MANUAL),), CLEAN, 0, today=True),
    Case(
        "alpha-dcd-ref-pending",
        alpha_dcd(GOOD),
        (),
        fs(("checkpoint-pending", W)),
        0,
    ),
]


def _run(args: list[str]) -> tuple[int, list[JSON]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--no-config", "lint", "--format", "json", *args])
    return code, json.loads(out.getvalue())["findings"]


def _verdict(found: list[JSON]) -> frozenset[tuple[str, str]]:
    return frozenset((str(f["rule"]), str(f["severity"])) for f in found)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verdict(case: Case, tmp_path: Path) -> None:
    manifest = tmp_path / "manifests.yaml"
    manifest.write_text(case.manifests())
    args = [str(manifest), *case.args]
    for index, snapshot in enumerate(case.snapshots):
        path = tmp_path / f"snapshot-{index}.yaml"
        path.write_text(snapshot())
        args += ["--checkpoint", str(path)]
    if case.dgd is not None:
        dgd = tmp_path / "dgd.yaml"
        dgd.write_text(dgd_text(case.dgd))
        args += ["--dgd", str(dgd)]
    code, found = _run(args)
    assert (_verdict(found), code) == (case.verdict, case.code), found
    before = manifest.read_bytes()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["--no-config", "lint", "--fix", *args])
    left_code, left = _run(args)
    if case.after_fix is None:
        assert manifest.read_bytes() == before, "--fix changed a file it claims nothing for"
        assert _verdict(left) == case.verdict
        return
    assert _verdict(left) == case.after_fix, left
    assert left_code == (1 if any(s == E for _, s in case.after_fix) else 0)
    if case.fixed_as is not None:
        fixed = [o.data for o in load_bytes(manifest.read_bytes(), str(manifest))]
        assert fixed == case.fixed_as(), "--fix does not end where render ends"


# Each lint bullet of issue 21's "What is wrong today", and the rows that state it.
BULLETS = {
    "WaitForCheckpoint clique: replaced / stale binding, swapped, copies removed": (
        "pcs-shaped-replaced",
        "pcs-shaped-stale-unnamed",
        "pcs-shaped-bindings-swapped",
        "pcs-shaped-all-copies-removed",
    ),
    "WaitForCheckpoint workload bound to a manual checkpoint": (
        "pcs-shaped-manual-bound",
        "dcd-shaped-manual-bound",
    ),
    "v1alpha1 DCD: spec.checkpoint.checkpointRef ignored": (
        "alpha-dcd-ref-replaced",
        "alpha-dcd-ref-stale",
        "alpha-dcd-ref-manual",
    ),
    "restore-candidate metadata on GMS / frontend / retyped components": (
        "pcs-frontend-candidate-unbound",
        "pcs-gms-candidate-unbound",
        "pcs-candidate-typed-frontend-bound",
        "pcs-candidate-typed-frontend-unbound",
        "dcd-typed-frontend-candidate-unbound",
    ),
    "checkpointRef named snapshot is checkpoint-outdated without --dgd": (
        "pcs-checkpoint-ref-not-outdated-without-dgd",
        "dcd-checkpoint-ref-not-outdated-without-dgd",
    ),
    "WaitForCheckpoint + checkpointRef to a manual checkpoint fails its own lint": (
        "oracle-wait-ready-checkpoint-ref-manual",
    ),
    "snapshot without metadata.namespace hashed with an empty namespace": (
        "pcs-snapshot-without-namespace",
        "dcd-snapshot-without-namespace",
    ),
    "render-drift at the controllers' finalizers": (
        "dcd-export-with-controller-finalizers",
        "pcs-export-with-controller-finalizers",
    ),
    "binding moved into labels": ("pcs-binding-moved-into-labels", "dcd-binding-moved-into-labels"),
    "binding pasted on an unchecked prefill DCD": ("dcd-unchecked-prefill-pasted-binding",),
    "empty binding reported as malformed": ("pcs-candidate-empty-binding-is-absent",),
    "manual DynamoCheckpoint with labels: [a, b] lints clean": ("manual-snapshot-schema",),
    "pending workload told to pass the snapshot": (
        "pcs-candidate-pending-unbound",
        "pcs-shaped-pending",
    ),
}


def test_every_issue_bullet_is_a_row() -> None:
    by_id = {c.id: c for c in CASES}
    for bullet, ids in BULLETS.items():
        assert ids, bullet
        for case_id in ids:
            assert case_id in by_id, (bullet, case_id)
    marked = {c.id for c in CASES if c.today}
    listed = {case_id for ids in BULLETS.values() for case_id in ids}
    assert marked <= listed


def test_render_binds_a_snapshot_without_namespace_as_the_namespace_object(tmp_path: Path) -> None:
    """The live object has the namespace: vector 02's Go-computed binding, not one hashed
    with an empty namespace."""
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(no_namespace(BASELINE.read_text()))
    assert "namespace:" not in snapshot.read_text().split("spec:")[0]
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(dgd_text("immediate"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            ["--no-config", "render", str(dgd), "--checkpoint", str(snapshot), "--target", "dcd"]
        )
    assert code == 0
    objects = [o.data for o in load_bytes(out.getvalue().encode(), "out.yaml")]
    assert worker_dcd(objects)["metadata"]["annotations"][BINDING] == GOOD
