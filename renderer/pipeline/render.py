"""Render as the command line runs it, as one library call: load, check, render, plan -o.

`run_render(request)` does everything `dynamo-render render DGD_FILE` does except parse
options, print and write: it reads DGD_FILE (a file of several documents, or a folder of
them) and the snapshots, checks each DGD's fields and schema, renders it, checks the
snapshots some component restores from against the --trusted-key keys and their schema,
and the rendered objects against theirs; with `output_dir` it plans the folder: the files
whose bytes change, and the files of this DGD_FILE that no object renders to any more.
It returns plain results (`RenderOutcome`); bad input raises DynamoRenderError (exit 2:
InputError at file:line:column, or UsageError). Nothing is written.

`run_renders(requests, jobs)` is the same for several requests (the `render:` entries of
the config), on worker processes when there are enough of them; one bad request is the
error of the first bad one, as one after the other.

`-o DIR` owns the files it wrote there, the ones whose first line is this DGD_FILE's
`# Source:` header. Any other file in DIR is never read. Only regular files are read
(see `renderer.writeroot`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.binding.checkpoint import is_checkpoint
from renderer.constants import (
    DGD_KIND,
    NAMESPACE_OPTION,
)
from renderer.errors import DynamoRenderError, InputError, UsageError
from renderer.model.namespace import with_namespace
from renderer.pipeline.requests import Document, OutputPlan, RenderOutcome, RenderRequest
from renderer.render import render
from renderer.render.names import UnsafeNameError, output_file_name
from renderer.schema import check_inputs, check_outputs, load_crd_schemas
from renderer.schema.fields import check_emulated_fields, check_fields
from renderer.source import load_paths
from renderer.source.skip import is_chart_template
from renderer.yamlout import dump_object, source_comment

if TYPE_CHECKING:
    from renderer.schema.check import Schemas
    from renderer.source.model import SourceObject


# Fewer requests are rendered in this process: one takes a few milliseconds, about what
# starting the workers costs.
PARALLEL_MIN_ENTRIES = 4


def run_render(request: RenderRequest) -> RenderOutcome:
    """Render (and with `output_dir`, plan the folder) as `dynamo-render render` does."""
    if request.output_dir is not None and request.write_roots:
        from renderer.writeroot import require_inside  # noqa: PLC0415 - write roots only for a render to a folder

        require_inside(request.output_dir, list(request.write_roots))
    rendered = render_all(request)
    documents, warnings, unbound = rendered.documents, rendered.warnings, rendered.unbound
    if request.output_dir is None:
        return RenderOutcome(documents, warnings, None, unbound)
    # as the `# Source:` lines spell it (a folder's files: `<folder>/<file>`, owned too)
    source = request.source_name or _spelled(request.dgd_file)
    plan = plan_output(documents, request.output_dir, source, request.kustomization)
    return RenderOutcome(documents, warnings, plan, unbound)


def run_renders(requests: Sequence[RenderRequest], jobs: int | None) -> list[RenderOutcome]:
    """`run_render` of every request, in order, on up to `jobs` processes (None: the CPUs
    available). Nothing is written, so the requests are independent; when one fails, they
    are run again in this process, which raises the first one's error as a serial run does.
    Every output folder is checked against its write roots before anything is rendered."""
    from renderer.parallel import ordered_map, resolve_jobs  # noqa: PLC0415 - the worker pool only for several renders (config entries)
    from renderer.writeroot import require_inside  # noqa: PLC0415 - write roots only for a render to a folder

    for request in requests:
        if request.output_dir is not None and request.write_roots:
            require_inside(request.output_dir, list(request.write_roots))
    workers = resolve_jobs(jobs)
    if workers > 1 and len(requests) >= PARALLEL_MIN_ENTRIES:
        found = list(ordered_map(_or_none, requests, jobs=workers))
        if all(outcome is not None for outcome in found):
            return [outcome for outcome in found if outcome is not None]
    return [run_render(request) for request in requests]


def _or_none(request: RenderRequest) -> RenderOutcome | None:
    try:
        return run_render(request)
    except DynamoRenderError:
        return None


def render_documents(request: RenderRequest) -> tuple[list[Document], list[str]]:
    """Load, check, render and trust-check every DGD: (source name, object) pairs and the
    warnings, each once, in order."""
    rendered = render_all(request)
    return rendered.documents, rendered.warnings


def render_all(request: RenderRequest) -> RenderOutcome:
    """`render_documents`, and the components rendered unbound (no folder planned)."""
    dgds, checkpoints = _load_inputs(request)
    _refuse_shared_uid(request, dgds)
    schemas = load_crd_schemas(request.crds, max_bytes=request.max_bytes) if request.crds else None
    documents: list[Document] = []
    warnings: list[str] = []
    unbound: list[str] = []
    used: set[int] = set()  # ids of the snapshots some component of some DGD restores from
    files: set[str] = set()
    snapshot_dir = _snapshot_dir(request.checkpoints)
    for dgd in dgds:
        check_dgd(dgd, schemas)
        # A snapshot one DGD uses is not "unused" for the others: that warning is given
        # once, below, for the snapshots none of them uses.
        result = render(
            dgd,
            checkpoints,
            target=request.target,
            config=request.operator,
            warn_unused=False,
            dgd_uid=request.dgd_uid,
            dgd_uid_source=request.dgd_uid_option,
            snapshot_dir=snapshot_dir,
        )
        used.update(id(obj) for obj in (*result.checkpoints, *result.outdated))
        files.update(result.checkpoint_files)
        warnings.extend(result.warnings)
        source = _source_name(request, dgd)
        documents.extend((source, obj) for obj in result.objects)
        unbound.extend(
            f"DGD {p.namespace}/{dgd.name}, component {p.component!r}: "
            + (
                f"checkpoint {p.checkpoint} is not captured (or its snapshot not given)"
                if p.checkpoint
                else "its checkpoint cannot be named without the DGD uid"
            )
            for p in result.pending
        )
    warnings.extend(_unused_snapshots(checkpoints, used, dgds))
    _check_trust(request, checkpoints, files)
    # Only the snapshot files render used count.
    check_inputs([c for c in checkpoints if c.file in files], schemas)
    check_outputs(documents, schemas)
    return RenderOutcome(documents, list(dict.fromkeys(warnings)), None, unbound)


def _refuse_shared_uid(request: RenderRequest, dgds: list[SourceObject]) -> None:
    """A uid is one DGD's: given for a file of several, it would name every one's
    checkpoints wrong but one."""
    if request.dgd_uid and len(dgds) > 1:
        listed = ", ".join(f"{d.namespace}/{d.name}" for d in dgds)
        raise UsageError(
            f"{request.dgd_uid_option} is one DGD's metadata.uid, but {request.dgd_file} holds"
            f" {len(dgds)} DGDs ({listed}): render them one file at a time"
        )


def _snapshot_dir(paths: Sequence[str]) -> str | None:
    """Where the capture advice saves a snapshot: the first snapshot folder given, else
    the folder of the first snapshot file given (None: nothing given)."""
    for path in paths:
        if path != "-" and os.path.isdir(path):  # noqa: PTH112 - a path string in
            return path
    for path in paths:
        folder = os.path.dirname(path)  # noqa: PTH120
        if path != "-" and folder:
            return folder
    return None


def check_dgd(dgd: SourceObject, schemas: Schemas | None) -> None:
    """A DGD's fields and schema (InputError at the field), as the API server checks them
    before the validating webhook, and before the controller looks for checkpoints.
    `schemas`: the --crd schemas (None: the bundled ones)."""
    check_fields(dgd, schemas)
    check_inputs([dgd], schemas)
    check_emulated_fields(dgd, schemas)  # a --crd field the emulation would drop


def _load_inputs(request: RenderRequest) -> tuple[list[SourceObject], list[SourceObject]]:
    """Every DGD of DGD_FILE, in file then document order and placed in the namespace, and
    the snapshots."""
    # YAML beside the DGDs that is not Kubernetes objects (a Helm chart) is ignored, as
    # objects of other kinds are; a file that might hold a DGD and does not read is not.
    skipped: list[str] = []
    dgd_objects = load_paths([request.dgd_file], max_bytes=request.max_bytes, skipped=skipped)
    _refuse_unread(skipped, request.max_bytes)
    dgds = [
        with_namespace(o, request.namespace, request.namespace_option)
        for o in dgd_objects
        if o.kind == DGD_KIND
    ]
    if request.namespace is None and request.namespace_option != NAMESPACE_OPTION:
        _refuse_without_namespace(dgds, request.namespace_option)
    if not dgds and dgd_objects:
        first = dgd_objects[0]  # a misspelt kind: say where, and what was meant
        mark = first.mark(("kind",), key=False)
        found = ", ".join(sorted({o.kind for o in dgd_objects}))
        raise InputError(
            f"kind {first.kind!r} is not DynamoGraphDeployment (no DynamoGraphDeployment in"
            f" {request.dgd_file}; objects: {found})",
            first.file,
            mark.line,
            mark.column,
        )
    if not dgds:
        found = ", ".join(sorted({o.kind for o in dgd_objects})) or "nothing"
        raise UsageError(f"{request.dgd_file}: no DynamoGraphDeployment found (objects: {found})")
    _refuse_twins(dgds)
    checkpoints = (
        load_paths(list(request.checkpoints), max_bytes=request.max_bytes)
        if request.checkpoints
        else []
    )
    return dgds, list(checkpoints)


# What the reader says of a file it parsed that holds no object at all (a values file, a
# patch): it cannot hold a DGD. Any other reason (the YAML does not parse) can hide one.
_PARSED_NOT_OBJECTS = (
    "object has no apiVersion",
    "object has no kind",
    "document ",  # "document N is a list/scalar, not a Kubernetes object"
    "apiVersion must be",
    "kind must be",
)


def _refuse_unread(skipped: list[str], max_bytes: int) -> None:
    """A file skipped as not Kubernetes objects that does not parse is exit 2 with its
    reason (it may hold a DGD, whose committed output would go stale unseen), unless it is
    a Helm chart template (not YAML before Helm renders it: render does not read charts)."""
    for file in skipped:
        if is_chart_template(file):
            continue
        try:
            load_paths([file], max_bytes=max_bytes, allow_empty=True)
        except InputError as exc:
            if not exc.message.startswith(_PARSED_NOT_OBJECTS):
                raise
        else:  # skipped, yet it reads: render must not drop what it holds
            raise InputError("this file was skipped as not Kubernetes objects, yet it reads", file)


def _refuse_without_namespace(dgds: list[SourceObject], where: str) -> None:
    """A config entry's DGD with no namespace: the advice is the entry's `namespace:` (the
    render itself would say -n, which a config-driven render does not take)."""
    for dgd in dgds:
        if isinstance(dgd.data.get("metadata"), dict) and not dgd.namespace:
            mark = dgd.mark(("metadata",), key=False)
            raise InputError(
                "the DGD has no metadata.namespace (rendered objects need one): give the"
                f" config entry a namespace ({where}), or set one in the DGD",
                dgd.file,
                mark.line,
                mark.column,
            )


def _refuse_twins(dgds: list[SourceObject]) -> None:
    """Two DGDs of one namespace and name would render the same objects twice. A DGD
    without a string name is left to the schema and admission checks, which name the
    field."""
    seen: dict[tuple[str, str], SourceObject] = {}
    for dgd in dgds:
        if not dgd.name:
            continue
        key = (dgd.namespace, dgd.name)
        first = seen.setdefault(key, dgd)
        if first is not dgd:
            mark = dgd.mark(("metadata", "name"), key=False)
            raise InputError(
                f"DGD {dgd.namespace}/{dgd.name} is given twice (also at"
                f" {first.where(('metadata', 'name'), key=False)})",
                dgd.file,
                mark.line,
                mark.column,
            )


def _source_name(request: RenderRequest, dgd: SourceObject) -> str:
    """`# Source:` of a DGD's output: DGD_FILE as given (or as the config writes it), and
    for a folder, the file's place inside it after that."""
    named = request.source_name or _spelled(request.dgd_file)
    if request.dgd_file in (dgd.file, "-"):
        return named
    inside = os.path.relpath(dgd.file, request.dgd_file)
    return f"{named.rstrip('/')}/{Path(inside).as_posix()}"


def _spelled(path: str) -> str:
    """DGD_FILE as the `# Source:` line writes it: `./x`, `x//y` and an absolute path
    inside the working directory all as the same relative path, so the committed output
    (and `--check` against it) does not depend on how the path was typed, nor carries a
    machine's folders."""
    if path == "-":
        return path
    plain = os.path.normpath(path)
    if os.path.isabs(plain):  # noqa: PTH117 - strings in, a string out
        here = os.getcwd()  # noqa: PTH109
        if os.path.commonpath([plain, here]) == here and plain != here:
            plain = os.path.relpath(plain, here)
    return plain.replace(os.sep, "/")


def _check_trust(
    request: RenderRequest, checkpoints: list[SourceObject], matched_files: set[str]
) -> None:
    """Every matched snapshot file must be signed by a trusted key (when keys are given)."""
    if not request.trusted_keys:
        return
    from renderer.trust import check_trust_by_file, load_trusted_keys  # noqa: PLC0415 - trust (and key parsing) only when trusted keys are given

    keys = load_trusted_keys(list(request.trusted_keys))
    verdicts = check_trust_by_file(checkpoints, keys)
    for file in sorted(matched_files):
        reason = verdicts.get(file)
        if reason is not None:
            raise InputError(f"untrusted checkpoint snapshot: {reason}", file)


def _unused_snapshots(
    checkpoints: list[SourceObject], used: set[int], dgds: list[SourceObject]
) -> list[str]:
    """One warning per snapshot no component of any DGD restores from (a snapshot one DGD
    uses is not unused because another does not); one DGD is named, several are not."""
    (one,) = dgds if len(dgds) == 1 else (None,)
    of = f"DGD {one.namespace}/{one.name}" if one is not None else "the DGDs rendered"
    return [
        f"{c.where(('metadata', 'name'))}: checkpoint {c.namespace}/{c.name} matches no"
        f" checkpoint-enabled component of {of}"
        for c in checkpoints
        if is_checkpoint(c) and id(c) not in used
    ]


def plan_output(
    documents: list[Document], folder: str, source: str, kustomization: bool = False
) -> OutputPlan:
    """What writing `documents` into `folder` changes, for the files whose first line is
    `source`'s `# Source:` header (UsageError when `folder` cannot be a folder, or a file
    in it is not a regular file); with `kustomization`, its kustomization.yaml too."""
    from renderer.writeroot import check_folder  # noqa: PLC0415 - file-system checks only for a render to a folder

    check_folder(folder)
    planned = planned_files(documents, folder)
    if kustomization:
        planned.append(_kustomization_file(folder, source, [p for p, _, _ in planned]))
    writes = [(path, content) for path, content, changed in planned if changed]
    removals = owned_leftovers(folder, source, {path for path, _, _ in planned})
    return OutputPlan(folder, writes, removals)


def planned_files(documents: list[Document], output_dir: str) -> list[tuple[str, bytes, bool]]:
    """(path, content, changed) for every object, named `<kind-lowercase>-<name>.yaml`."""
    from renderer.writeroot import read_regular  # noqa: PLC0415 - file-system checks only for a render to a folder

    planned: list[tuple[str, bytes, bool]] = []
    seen: set[str] = set()
    for source, obj in documents:
        metadata = obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        try:
            file_name = output_file_name(str(obj.get("kind", "")), str(name or ""))
        except UnsafeNameError as exc:
            raise UsageError(str(exc)) from None
        if file_name in seen:
            raise UsageError(f"two rendered objects would both be written to {file_name}")
        seen.add(file_name)
        path = Path(output_dir) / file_name
        content = (source_comment(source) + dump_object(obj)).encode("utf-8")
        planned.append((str(path), content, read_regular(str(path), len(content) + 1) != content))
    return planned


def _kustomization_file(folder: str, source: str, paths: list[str]) -> tuple[str, bytes, bool]:
    """(path, content, changed) of the folder's kustomization.yaml listing `paths`;
    UsageError when a kustomization there is not this render's (kustomize reads one)."""
    from renderer.render.kustomization import FILE_NAME, kustomization  # noqa: PLC0415 - kustomization only when asked for
    from renderer.writeroot import read_regular  # noqa: PLC0415 - file-system checks only for a render to a folder

    content = kustomization(source, [Path(p).name for p in paths])
    header = source_comment(source).encode("utf-8")
    for name in (FILE_NAME, "kustomization.yml", "Kustomization"):
        existing = read_regular(str(Path(folder) / name), len(content) + 1)
        if existing is not None and (name != FILE_NAME or not existing.startswith(header)):
            raise UsageError(
                f"{Path(folder) / name}: a kustomization this render did not write (its first"
                f" line is not `{header.decode().rstrip()}`); --kustomization writes"
                f" {FILE_NAME} in a folder without one: move it up a folder, or drop the option"
            )
    path = str(Path(folder) / FILE_NAME)
    return path, content, read_regular(path, len(content) + 1) != content


def owned_leftovers(output_dir: str, source: str, planned: set[str]) -> list[str]:
    """Files in `output_dir` this render wrote (its `# Source:` first line: `source`, or a
    file under it when it is a folder) that no object renders to any more. Only regular
    `*.yaml` files are looked at; others are not ours."""
    from renderer.writeroot import lstat_or_none, read_regular  # noqa: PLC0415 - file-system checks only for a render to a folder

    header = source_comment(source).encode("utf-8")
    # `_source_name` writes a folder's files as `<folder>/<path inside it>`
    inside = source_comment(source.rstrip("/") + "/").encode("utf-8").removesuffix(b"\n")
    try:
        names = sorted(entry.name for entry in Path(output_dir).iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"cannot read {output_dir}: {exc.strerror or exc}") from None
    found: list[str] = []
    for name in names:
        path = str(Path(output_dir) / name)
        if not name.endswith(".yaml") or path in planned:
            continue
        info = lstat_or_none(path)
        if info is None or not stat.S_ISREG(info.st_mode):
            continue
        head = read_regular(path, _HEADER_LIMIT) or b""
        first = head[: head.find(b"\n") + 1] if b"\n" in head else b""
        if first == header or (first.startswith(inside) and len(first) > len(inside) + 1):
            found.append(path)
    return found


_HEADER_LIMIT = 8192  # bytes read for a `# Source:` line (a path is shorter)
