"""Lint split by file: the findings of `lint_objects`, in flat memory, on several cores.

What crosses files in lint is the snapshots: a workload names its checkpoint, and the
DynamoCheckpoint may be in any file. So the run has two passes over the files:

1. the snapshots: every --checkpoint file, and the DynamoCheckpoint objects among the
   linted paths (the text pre-scan skips every other document unparsed), bound once and
   indexed by name, as `build_context` does;
2. each file on its own: its objects read, every rule that looks at one file's objects
   run on them against that index, and the objects dropped, so that what stays in memory
   is the snapshots and the findings. The rules that look only at the snapshots run once.

With workers, pass 1 runs in this process after they are forked, while they read their
first files (reading needs no snapshot); their rules wait for the index.

The parts' findings are merged by `order_findings`, whose result depends only on the
order within each (file, rule), which a part keeps: the report is the same bytes as one
run over every object. The split is not taken (`lint_paths` returns None and the caller
runs `lint_objects`) for stdin, `--fix` (it edits the objects it read), `--dgd` (render
drift compares all committed objects with one render), a small input (below
`SPLIT_MIN_FILES` and `SPLIT_MIN_BYTES`, where one pass in this process is quickest),
and whenever a file cannot be read: the one-pass run then reports the error exactly as
it always does (which file, and which error first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path as FsPath
from typing import NamedTuple

from renderer.binding.checkpoint import is_checkpoint
from renderer.constants import CHECKPOINT_KIND
from renderer.errors import InputError
from renderer.lint.context import LintContext, Snapshot, index_snapshots
from renderer.lint.engine import (
    LINT_KINDS,
    LintOptions,
    LintResult,
    order_findings,
    prepare_snapshots,
)
from renderer.lint.finding import Finding
from renderer.lint.rules import RULE_MODULES, get_rule
from renderer.lint.rules.schema import CHECKED_KINDS
from renderer.parallel import ordered_map
from renderer.schema.bundled import BUNDLED, bundled_schema
from renderer.source.files import iter_files, load_file, read_file
from renderer.source.model import SourceObject

# Rules that look at the snapshots: run once over every snapshot (a context without
# objects), and per file over its workloads (a context without snapshots of its own: what
# they report about a snapshot comes from the first run only). And rules that compare
# objects across files (the split is not taken when they have something to compare).
SNAPSHOT_RULES = frozenset({"checkpoint-invalid", "checkpoint-untrusted", "schema"})
WHOLE_RUN_RULES = frozenset({"render-drift"})
# Below both, one pass in this process beats reading the snapshots first and starting
# workers: about 50 ms of lint (a few dozen DCDs), the price of a process start or two.
SPLIT_MIN_FILES = 64
SPLIT_MIN_BYTES = 1 << 20
CHECKPOINT_KINDS = frozenset({CHECKPOINT_KIND})


class _Plan(NamedTuple):
    """What every part of pass 2 needs: the snapshot index and the options."""

    by_name: dict[tuple[str, str], Snapshot]
    rule_ids: tuple[str, ...]
    options: LintOptions
    max_bytes: int


class FileResult(NamedTuple):
    """Pass 2 of one file: its findings, and what it held (a tuple: cheap to send back)."""

    findings: list[Finding]
    objects: int  # linted objects (DCD, PCS, DynamoCheckpoint)
    skipped: bool  # not Kubernetes objects (see renderer.source.skip)
    checkpoints: tuple[tuple[int, int | None], ...]  # (document, item) of its snapshots


_plan: _Plan | None = None
_checks: list[Callable[[LintContext], Iterable[Finding]]] = []


def _start(plan: _Plan) -> None:
    """Worker initializer: keep the plan, and look the per-file rules up once."""
    global _plan  # noqa: PLW0603 - one plan per worker process
    _plan = plan
    _max_bytes[:] = [plan.max_bytes]
    _checks[:] = [get_rule(rule_id).check for rule_id in plan.rule_ids]


def _warm_up(rule_ids: tuple[str, ...]) -> None:
    """Before the workers fork: import the per-file rules and what they use, and read the
    bundled schemas, once here, so that each worker does not redo it (forked, they share
    these pages)."""
    for rule_id in rule_ids:
        get_rule(rule_id)
    for api_version, kind in BUNDLED:
        if kind in CHECKED_KINDS:
            bundled_schema(api_version, kind)


def _snapshot_places(objects: Iterable[SourceObject]) -> tuple[tuple[int, int | None], ...]:
    return tuple((o.doc_index, o.item_index) for o in objects if is_checkpoint(o))


class _Read(NamedTuple):
    """Pass 2's read of one file (what needs no snapshot), before its rules run."""

    objects: list[SourceObject] | None  # None: it cannot be read
    skipped: bool


_max_bytes: list[int] = []  # the run's --max-bytes, set before the workers fork


def _read(item: tuple[str, bool]) -> _Read:
    """Pass 2's read of one file: it needs no snapshot, so workers start with it while
    pass 1 runs (see `ordered_map`'s `late`)."""
    file, explicit = item
    skipped: list[str] = []
    try:
        objects = load_file(
            file,
            explicit=explicit,
            max_bytes=_max_bytes[0],
            kinds=LINT_KINDS,
            allow_empty=True,
            skipped=skipped,
        )
    except InputError:
        return _Read(None, False)
    return _Read(objects, bool(skipped))


def _check(read: _Read) -> FileResult | None:
    """The per-file rules on one file's objects (None: it could not be read)."""
    plan = _plan
    assert plan is not None, "worker not started"
    objects = read.objects
    if objects is None:
        return None
    if not objects:
        return FileResult([], 0, read.skipped, ())
    ctx = _context(objects, [], plan.options, plan.by_name)
    findings: list[Finding] = []
    for check in _checks:
        findings.extend(check(ctx))
    return FileResult(findings, len(objects), False, _snapshot_places(objects))


class _NoSplit(Exception):
    """Pass 1 found a file it cannot read: the one-pass run reports it."""


def cannot_hold_checkpoint(data: bytes) -> bool:
    """True when the bytes cannot spell `DynamoCheckpoint` as a YAML value: the word is not
    in them, and nothing could write it another way (an escape `\\`, a tag `!` such as
    `!!binary`, or an encoding other than UTF-8, whose ASCII letters are not single bytes:
    a byte-order mark or a NUL byte)."""
    if b"DynamoCheckpoint" in data or b"\\" in data or b"!" in data or b"\0" in data:
        return False
    return not data.startswith((b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe"))


def _checkpoints_of(item: tuple[str, bool], max_bytes: int) -> list[SourceObject] | None:
    """Pass 1 of one linted file: its DynamoCheckpoint objects (None: cannot be read).

    A file whose bytes cannot hold one is not parsed here (its read errors are pass 2's),
    and pass 2 checks that it finds the same snapshots in every file: a shortcut that
    missed one would send the run to the one-pass path, never change its report.
    """
    file, explicit = item
    try:
        data = read_file(file, max_bytes)
        if cannot_hold_checkpoint(data):
            return []
        return load_file(
            file,
            explicit=explicit,
            max_bytes=max_bytes,
            kinds=CHECKPOINT_KINDS,
            allow_empty=True,
            skipped=[],
            data=data,
        )
    except InputError:
        return None


def _context(
    objects: list[SourceObject],
    snapshots: list[Snapshot],
    options: LintOptions,
    by_name: dict[tuple[str, str], Snapshot],
) -> LintContext:
    return LintContext(
        objects=objects,
        snapshots=snapshots,
        strict=options.strict,
        trust_checked=options.trusted_keys is not None,
        dgd=options.dgd,
        schemas=options.schemas or None,
        by_name=by_name,
    )


def _files(paths: Sequence[str]) -> list[tuple[str, bool]] | None:
    try:
        return list(iter_files(paths))
    except (InputError, ValueError):
        return None


def worth_splitting(files: Sequence[tuple[str, bool]]) -> bool:
    """True from `SPLIT_MIN_FILES` files, or `SPLIT_MIN_BYTES` of them."""
    if len(files) >= SPLIT_MIN_FILES:
        return True
    size = 0
    for file, _ in files:
        try:
            size += FsPath(file).stat().st_size
        except OSError:
            return False  # the one-pass run names the reason
    return size >= SPLIT_MIN_BYTES


def lint_paths(
    paths: Sequence[str],
    checkpoint_paths: Sequence[str],
    options: LintOptions,
    *,
    max_bytes: int,
    jobs: int,
    force: bool = False,
) -> LintResult | None:
    """`lint_objects` of `load_paths(paths)` against `load_paths(checkpoint_paths)`, split
    by file over `jobs` processes; None when the split is not taken (see the module
    docstring; `force` takes it for any input size, for tests)."""
    try:
        return _lint_paths(paths, checkpoint_paths, options, max_bytes, jobs, force)
    except InputError:
        return None  # e.g. a trust check that fails: the one-pass run orders the errors


def _lint_paths(  # noqa: PLR0917 - private body of lint_paths
    paths: Sequence[str],
    checkpoint_paths: Sequence[str],
    options: LintOptions,
    max_bytes: int,
    jobs: int,
    force: bool,
) -> LintResult | None:
    if options.dgd is not None:
        return None
    files = _files(paths)
    checkpoint_files = _files(checkpoint_paths)
    if files is None or checkpoint_files is None:
        return None
    if not force and not worth_splitting([*files, *checkpoint_files]):
        return None
    selected = tuple(options.rules if options.rules is not None else RULE_MODULES)
    per_file = tuple(r for r in selected if r not in WHOLE_RUN_RULES)
    findings: list[Finding] = []
    places: list[tuple[tuple[int, int | None], ...]] = []

    def first_pass() -> _Plan:
        """Pass 1, and the snapshot rules' findings; the plan of pass 2 (`_NoSplit` when a
        file cannot be read). On the workers' way: they read their first files meanwhile."""
        # the snapshots, in the order build_context takes them
        checkpoints: list[SourceObject] = []
        for file, explicit in checkpoint_files:
            checkpoints.extend(
                load_file(file, explicit=explicit, max_bytes=max_bytes, kinds=CHECKPOINT_KINDS)
            )
        # (in this process: with the byte test, a file costs about its read, less than
        # sending it to a worker)
        found = [_checkpoints_of(item, max_bytes) for item in files]
        if any(part is None for part in found):
            raise _NoSplit
        # what pass 2 must find again in each file (else its snapshots were not these)
        places.extend(_snapshot_places(part or ()) for part in found)
        linted = [obj for part in found if part is not None for obj in part]
        snapshots = prepare_snapshots(checkpoints, linted, options)
        by_name = index_snapshots(snapshots)
        whole = _context([], snapshots, options, by_name)
        for rule_id in selected:
            if rule_id in SNAPSHOT_RULES or rule_id in WHOLE_RUN_RULES:
                findings.extend(get_rule(rule_id).check(whole))
        return _Plan(by_name, per_file, options, max_bytes)

    # pass 2: each file on its own
    contributed: list[str] = []
    skipped: list[str] = []
    objects = 0
    _max_bytes[:] = [max_bytes]
    if jobs > 1:
        _warm_up(per_file)
    results = ordered_map(
        _check, files, jobs=jobs, initializer=_start, prepare=_read, late=first_pass
    )
    try:
        for index, result in enumerate(results):
            if result is None or result.checkpoints != places[index]:
                return None
            findings.extend(result.findings)
            if result.skipped:
                skipped.append(files[index][0])
            if result.objects:
                contributed.append(files[index][0])
                objects += result.objects
    except _NoSplit:
        return None
    lint = LintResult(order_findings(findings, options.strict), contributed, objects)
    lint.skipped = skipped
    return lint
