"""Lint as the command line runs it, as one library call: load, lint, fix, lint again.

`run_lint(request)` does everything `dynamo-render lint` does except parse options and
print: it reads the paths and snapshots, loads --trusted-key keys, --crd schemas and the
--dgd DGD, lints, applies --fix and re-lints what is then on disk. It returns plain
results (`LintOutcome`); bad input raises DynamoRenderError (exit 2) before any file is
written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.constants import CHECKPOINT_KIND, DGD_KIND
from renderer.errors import DynamoRenderError, UsageError
from renderer.lint.engine import LINT_KINDS, LintOptions, lint_objects
from renderer.lint.rules import RULE_MODULES
from renderer.lint.split import lint_paths
from renderer.parallel import resolve_jobs
from renderer.pipeline.requests import LintOutcome, LintRequest
from renderer.pipeline.suppress import apply_suppressions
from renderer.record import replace
from renderer.schema import load_crd_schemas
from renderer.source import load_paths
from renderer.source.files import ReadMemo
from renderer.writeroot import real, require_inside

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult
    from renderer.operator.config import OperatorConfig
    from renderer.schema.check import Schemas
    from renderer.source.model import SourceObject


def load_dgd(path: str, max_bytes: int, namespace: str | None = None) -> SourceObject:
    """The one DynamoGraphDeployment of `path`, placed in `namespace` when it has none."""
    from renderer.model.namespace import with_namespace  # noqa: PLC0415 - the DGD model only for a lint given --dgd

    objects = [o for o in load_paths([path], max_bytes=max_bytes) if o.kind == DGD_KIND]
    if len(objects) != 1:
        raise UsageError(
            f"{path}: --dgd needs exactly one DynamoGraphDeployment, found {len(objects)}"
        )
    return with_namespace(objects[0], namespace)


def run_lint(request: LintRequest) -> LintOutcome:
    """Lint (and with `fix`, repair) as `dynamo-render lint` does."""
    if request.fix and "-" in request.paths:
        raise UsageError("--fix cannot rewrite stdin; pass file paths")
    split = _split_run(request)
    if split is not None:
        return LintOutcome(_suppress(split, request), None, request.strict)
    skipped: list[str] = []  # YAML that is not Kubernetes objects (Helm values, ...)
    # --fix lints again what is on disk: a file whose bytes are the bytes read (or
    # written) is not parsed twice
    memo = ReadMemo() if request.fix else None
    objects = load_paths(
        request.paths,
        max_bytes=request.max_bytes,
        kinds=LINT_KINDS,
        spans=request.fix,
        allow_empty=True,
        skipped=skipped,
        memo=memo,
    )
    checkpoints = (
        load_paths(request.checkpoints, max_bytes=request.max_bytes, kinds={CHECKPOINT_KIND})
        if request.checkpoints
        else []
    )
    options = _options(request)
    # suppressed findings are not fixed either: the repository chose to keep them
    result = _suppress(lint_objects(objects, checkpoints, options), request)
    report = None
    if request.fix and any(f.fixable for f in result.findings):
        from renderer.fix import fix_findings  # noqa: PLC0415 - the fixer only for --fix with fixable findings

        roots = list(request.write_roots) or [real(str(Path.cwd()))]
        for file in sorted({f.file for f in result.findings if f.fixable}):
            require_inside(file, roots)  # before any file is rewritten: all or nothing
        report = fix_findings(objects, result.findings, max_bytes=request.max_bytes, memo=memo)
        if report.changed_files:
            # lint again what is now on disk, so the report shows what is left: every file
            # is read again, and parsed again unless its bytes are those the memo holds
            objects = load_paths(
                request.paths,
                max_bytes=request.max_bytes,
                kinds=LINT_KINDS,
                allow_empty=True,
                skipped=[],
                memo=memo,
            )
            result = _suppress(lint_objects(objects, checkpoints, options), request)
        result = replace(
            result,
            fixed=report.fixed,
            changed_files=report.changed_files,
            unfixed=report.failures,
        )
    return LintOutcome(replace(result, skipped=skipped), report, request.strict)


def _suppress(result: LintResult, request: LintRequest) -> LintResult:
    return apply_suppressions(result, baseline=request.baseline, max_bytes=request.max_bytes)


def _split_run(request: LintRequest) -> LintResult | None:
    """The run split by file (`renderer.lint.split`: flat memory, `jobs` processes, the
    same report), or None to run in one pass: for --fix, --dgd, stdin, a small input, or
    any error (the one-pass run reports it, as it always has)."""
    if request.fix or request.dgd or request.namespace is not None:
        return None
    if "-" in request.paths or "-" in request.checkpoints:
        return None

    try:
        options = _options(request)
    except DynamoRenderError:
        return None
    return lint_paths(
        request.paths,
        request.checkpoints,
        options,
        max_bytes=request.max_bytes,
        jobs=resolve_jobs(request.jobs),
    )


def _options(request: LintRequest) -> LintOptions:
    """The engine's options: trusted keys, the --dgd DGD and --crd schemas, all loaded."""
    keys = None
    if request.trusted_keys:
        from renderer.trust import load_trusted_keys  # noqa: PLC0415 - trust (and key parsing) only when trusted keys are given

        keys = load_trusted_keys(request.trusted_keys)
    if request.namespace is not None and not request.dgd:
        raise UsageError("-n/--namespace is the namespace of the --dgd DGD: give --dgd too")
    dgd = load_dgd(request.dgd, request.max_bytes, request.namespace) if request.dgd else None
    schemas = None
    if request.crds:
        schemas = load_crd_schemas(request.crds, max_bytes=request.max_bytes)
    if dgd is not None:
        check_dgd_as_render(dgd, schemas, request.operator)
    return LintOptions(
        strict=request.strict,
        trusted_keys=keys,
        dgd=dgd,
        schemas=schemas,
        operator=request.operator,
        rules=_enabled_rules(request.disabled_rules),
    )


def check_dgd_as_render(
    dgd: SourceObject, schemas: Schemas | None, operator: OperatorConfig | None
) -> None:
    """The --dgd DGD checked as `render` checks it before it renders: its fields and
    schema, then the operator's admission. A DGD render refuses is bad input here too
    (exit 2 at the DGD's field, with render's message), not a render-drift finding; what
    only the render itself refuses (a snapshot it cannot resolve) stays a finding."""
    from renderer.pipeline.render import check_dgd  # noqa: PLC0415 - the render pipeline and operator emulation only for a lint given --dgd
    from renderer.render import admit  # noqa: PLC0415 - the render pipeline and operator emulation only for a lint given --dgd

    check_dgd(dgd, schemas)
    admit(dgd, config=operator)


def _enabled_rules(disabled: Sequence[str]) -> list[str] | None:
    """Every rule but the disabled ones (None: all of them, the engine's default)."""
    if not disabled:
        return None

    return [rule for rule in RULE_MODULES if rule not in disabled]
