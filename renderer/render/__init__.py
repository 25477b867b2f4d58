"""Render a DGD and its captured checkpoints into the objects the operator would create.

Public surface:

- `render(dgd, checkpoints, *, target=None) -> RenderResult`: `target` is "dcd",
  "grove", or None for the default rule: "grove" when the DGD has the annotation
  `nvidia.com/enable-grove: "true"` (the operator's own switch), else "dcd".
- `RenderResult(objects, warnings, target, checkpoint_files)`: objects in output order
  (DCDs in component order, or the one PodCliqueSet), plain JSON-like dicts built in the order
  apiVersion, kind, metadata, spec.
- `TARGETS`: the valid targets.

Raises InputError / BindingError (file:line:column) on bad input; nothing partial.
Pure: no I/O, and importing it loads neither jsonschema nor cryptography.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.errors import InputError
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.model.dgd import Graph
    from renderer.render.match import Match

TARGETS = ("dcd", "grove")

__all__ = ["TARGETS", "RenderResult", "default_target", "render"]


@dataclass
class RenderResult:
    """The rendered objects in output order, and warnings for stderr."""

    objects: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)
    target: str = ""
    # Files of the snapshots some component matched (for --trusted-key checks).
    checkpoint_files: tuple[str, ...] = ()
    # The snapshot objects some component matched, in component order.
    checkpoints: tuple[SourceObject, ...] = ()


def default_target(dgd: SourceObject) -> str:
    """The target `render` picks without --target: grove when the DGD opts in, else dcd."""
    from renderer.model import normalise

    return "grove" if normalise(dgd).grove_enabled else "dcd"


def render(
    dgd: SourceObject,
    checkpoints: Sequence[SourceObject],
    *,
    target: str | None = None,
    warn_unused: bool = True,
) -> RenderResult:
    """Render `dgd` bound to the matching `checkpoints` (see the module docstring).

    `warn_unused=False` leaves out the warning for a snapshot no component matched (the
    caller renders several DGDs from one set of snapshots and warns once for them all).
    """
    from renderer.model import normalise
    from renderer.model.pod import backend_framework, drop_reserved_annotations
    from renderer.render.match import match_checkpoints
    from renderer.render.names import UnsafeNameError, check_label_values
    from renderer.render.validate import validate_input, validate_output

    if target is not None and target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    validate_input(dgd)
    graph = normalise(dgd)
    chosen = target or ("grove" if graph.grove_enabled else "dcd")
    matches, warnings = match_checkpoints(graph, checkpoints, warn_unused=warn_unused)
    for component in graph.components:
        config = component.checkpoint
        if config is not None and config.enabled and not component.is_worker:
            warnings.append(
                f"{dgd.where(config.path)}: component {component.name!r}: checkpoint is enabled "
                f"but type {component.type or '(none)'!r} is not worker, prefill or decode; the "
                "operator ignores it"
            )
    for path, key in drop_reserved_annotations(graph):
        warnings.append(
            f"{dgd.where(path)}: annotation {key} is written only by the renderer (the binding "
            "and restore-candidate set on a checkpointed component's engine pods, the binding "
            "map on the PodCliqueSet); the value in the DGD is dropped"
        )
    backend = backend_framework(graph)
    hashes = worker_hashes(graph, matches)
    try:
        if chosen == "grove":
            from renderer.render.grove import render_pcs

            objects = [render_pcs(graph, matches, hashes)]
        else:
            from renderer.render.dcd import render_dcds

            _check_worker_hashes(matches)
            objects = render_dcds(graph, matches, backend, hashes)
            for component in graph.components:
                # (a matched snapshot without the label is used as captured: no warning)
                known = component.name in hashes or component.name in matches
                if component.is_worker and not known:
                    warnings.append(
                        f"{dgd.where(component.path)}: component {component.name!r}: worker hash "
                        f"unknown ({_why_no_hash(matches)}); its DCD is named without the "
                        "hash suffix the operator appends"
                    )
        for obj in objects:
            check_label_values(obj)
    except UnsafeNameError as exc:
        component_path = next(
            (c.path for c in graph.components if c.name == exc.component), ("metadata", "name")
        )
        mark = dgd.mark(component_path)
        raise InputError(str(exc), dgd.file, mark.line, mark.column) from None
    for obj in objects:
        validate_output(obj, chosen)
    files = tuple(sorted({m.checkpoint.source.file for m in matches.values()}))
    used = tuple(m.checkpoint.source for m in matches.values())
    return RenderResult(objects, warnings, chosen, files, used)


def worker_hashes(graph: Graph, matches: dict[str, Match]) -> dict[str, str]:
    """The worker hash of each worker-class component, where it is known.

    The operator computes one worker hash per DGD, over all its workers together, and puts
    it on every worker DCD. Offline it is known only from a captured snapshot's label: a
    checkpointed component takes its own snapshot's; the other workers take the DGD's when
    all captured snapshots agree on it (snapshots from different worker generations leave it
    unknown for them).
    """
    hashes = {
        name: match.checkpoint.worker_hash
        for name, match in matches.items()
        if match.component.is_worker and match.checkpoint.worker_hash
    }
    shared = set(hashes.values())
    if len(shared) == 1:
        [common] = shared
        for component in graph.components:
            if component.is_worker:
                hashes.setdefault(component.name, common)
    return hashes


def _why_no_hash(matches: dict[str, Match]) -> str:
    distinct = {m.checkpoint.worker_hash for m in matches.values() if m.checkpoint.worker_hash}
    if len(distinct) > 1:
        return f"the captured checkpoints disagree on it: {', '.join(sorted(distinct))}"
    return "no captured checkpoint of this DGD carries it"


_NAME_SEGMENT = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")


def _check_worker_hashes(matches: dict[str, Match]) -> None:
    """A worker hash ends up in a DCD name: it must be a valid name segment (else fail closed).

    The operator's hashes are lowercase hex; a snapshot label that is not (say `AB_c`) would
    give a DCD name the API server rejects.
    """
    from renderer.keys import WORKER_HASH_LABEL

    for match in matches.values():
        worker_hash = match.checkpoint.worker_hash
        if match.component.is_worker and worker_hash and not _NAME_SEGMENT.match(worker_hash):
            obj = match.checkpoint.source
            mark = obj.mark(("metadata", "labels", WORKER_HASH_LABEL), key=False)
            raise InputError(
                f"component {match.component.name!r}: checkpoint {match.checkpoint.name} has "
                f"worker hash {worker_hash!r}, which cannot be part of a DCD name (expected "
                "lowercase hex, as the operator writes it)",
                obj.file,
                mark.line,
                mark.column,
            )
