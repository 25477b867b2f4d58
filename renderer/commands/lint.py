"""`dynamo-render lint`: find wrong binding copies in committed manifests, and fix them.

The click command only parses options into `LintArgs`; `execute(args)` does the work and
returns the exit code (0 clean, 1 errors or files fixed, 2 usage/input via exceptions).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from renderer.errors import UsageError
from renderer.report import FORMATS

if TYPE_CHECKING:
    from renderer.lint.engine import LintOptions, LintResult
    from renderer.source.model import SourceObject

EXIT_OK = 0
EXIT_FINDINGS = 1
DEFAULT_MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class LintArgs:
    paths: Sequence[str]
    checkpoints: Sequence[str] = ()
    dgd: str | None = None
    format: str | None = None  # None: github under GitHub Actions, else text
    fix: bool = False
    strict: bool = False
    trusted_keys: Sequence[str] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: Sequence[str] = ()  # rule `schema`: these CRDs instead of the bundled schemas
    jobs: int | None = None  # worker processes; None: the CPUs available
    namespace: str | None = None  # --dgd without metadata.namespace: render it here
    # --fix writes only inside these (resolved) folders or files; empty: the working directory
    write_roots: Sequence[str] = ()


def _use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def default_format() -> str:
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def rules_listing() -> str:
    from renderer.lint.rules import all_rules

    rules = all_rules()
    width = max(len(rule.id) for rule in rules)
    return "".join(f"{r.id:<{width}}  {r.severity:<7}  {r.summary}\n" for r in rules)


def rule_explanation(rule_id: str) -> str:
    from renderer.lint.rules import RULE_MODULES, get_rule

    if rule_id not in RULE_MODULES:
        raise UsageError(f"no rule {rule_id!r} (see --list-rules)")
    rule = get_rule(rule_id)
    return f"{rule.id} ({rule.severity})\n\n{rule.doc}\n"


def _load_dgd(path: str, max_bytes: int, namespace: str | None = None) -> SourceObject:
    from renderer.model.namespace import with_namespace
    from renderer.source import load_paths

    objects = [
        o for o in load_paths([path], max_bytes=max_bytes) if o.kind == "DynamoGraphDeployment"
    ]
    if len(objects) != 1:
        raise UsageError(
            f"{path}: --dgd needs exactly one DynamoGraphDeployment, found {len(objects)}"
        )
    return with_namespace(objects[0], namespace)


def _options(args: LintArgs) -> LintOptions:
    from renderer.lint.engine import LintOptions

    keys = None
    if args.trusted_keys:
        from renderer.trust import load_trusted_keys

        keys = load_trusted_keys(args.trusted_keys)
    if args.namespace is not None and not args.dgd:
        raise UsageError("-n/--namespace is the namespace of the --dgd DGD: give --dgd too")
    dgd = _load_dgd(args.dgd, args.max_bytes, args.namespace) if args.dgd else None
    schemas = None
    if args.crds:
        from renderer.schema import load_crd_schemas

        schemas = load_crd_schemas(args.crds, max_bytes=args.max_bytes)
    if dgd is not None:
        from renderer.schema.fields import check_fields

        check_fields(dgd, schemas)  # a field the CRD does not declare: exit 2, as render
    return LintOptions(strict=args.strict, trusted_keys=keys, dgd=dgd, schemas=schemas)


def _split_run(args: LintArgs) -> LintResult | None:
    """The run split by file (`renderer.lint.split`), or None to run in one pass: for
    --fix, --dgd, stdin, a small input, or any error (the one-pass run reports it)."""
    if args.fix or args.dgd or args.namespace is not None:
        return None
    if "-" in args.paths or "-" in args.checkpoints:
        return None
    from renderer.errors import DynamoRenderError
    from renderer.lint.split import lint_paths
    from renderer.parallel import resolve_jobs

    try:
        options = _options(args)
    except DynamoRenderError:
        return None
    return lint_paths(
        args.paths,
        args.checkpoints,
        options,
        max_bytes=args.max_bytes,
        jobs=resolve_jobs(args.jobs),
    )


def execute(args: LintArgs, out: TextIO, err: TextIO) -> int:
    """Run lint as the command line would; returns the exit code."""
    from renderer.lint.engine import LINT_KINDS, lint_objects
    from renderer.report import get_format
    from renderer.source import load_paths

    fmt = args.format or default_format()
    if args.fix and "-" in args.paths:
        raise UsageError("--fix cannot rewrite stdin; pass file paths")
    result = _split_run(args)
    skipped: list[str] = []  # YAML that is not Kubernetes objects (Helm values, ...)
    if result is not None:
        skipped = result.skipped
    else:
        objects = load_paths(
            args.paths,
            max_bytes=args.max_bytes,
            kinds=LINT_KINDS,
            spans=args.fix,
            allow_empty=True,
            skipped=skipped,
        )
        checkpoints = (
            load_paths(args.checkpoints, max_bytes=args.max_bytes, kinds={"DynamoCheckpoint"})
            if args.checkpoints
            else []
        )
        options = _options(args)
        result = lint_objects(objects, checkpoints, options)
    if args.fix and any(f.fixable for f in result.findings):
        from renderer.commands.writeroot import real, require_inside
        from renderer.fix import fix_findings

        roots = list(args.write_roots) or [real(str(Path.cwd()))]
        for file in sorted({f.file for f in result.findings if f.fixable}):
            require_inside(file, roots)  # before any file is rewritten: all or nothing
        report = fix_findings(objects, result.findings, max_bytes=args.max_bytes)
        if report.changed_files:
            # lint again what is now on disk, so the report shows what is left
            objects = load_paths(
                args.paths,
                max_bytes=args.max_bytes,
                kinds=LINT_KINDS,
                allow_empty=True,
                skipped=[],
            )
            result = lint_objects(objects, checkpoints, options)
        result.fixed = report.fixed
        result.changed_files = report.changed_files
        result.unfixed = report.failures
    result.skipped = skipped
    out.write(get_format(fmt)(result, color=fmt == "text" and _use_color(out)))
    for failure in result.unfixed:
        err.write(f"dynamo-render lint: not fixed: {failure}\n")
    if fmt == "text":
        from renderer.report.text import summary_line

        err.write(summary_line(result) + "\n")
    if result.changed_files or result.errors or (args.strict and result.warnings):
        return EXIT_FINDINGS
    return EXIT_OK


EPILOG = """\
Examples:

\b
  # committed manifests against the captured checkpoints
  dynamo-render lint rendered --checkpoint snapshots
\b
  # rewrite the wrong copies in place (exit 1 when a file changed)
  dynamo-render lint rendered --checkpoint snapshots --fix
\b
  # also compare with a fresh render of the DGD (rule render-drift)
  dynamo-render lint rendered --checkpoint snapshots --dgd deploy/llama.dgd.yaml
\b
  # the paths, checkpoints and format of .dynamo-render.yaml
  dynamo-render lint

Exit codes: 0 clean (warnings alone pass unless --strict); 1 errors (or warnings with
--strict), or --fix changed a file; 2 usage or input error (no report).
"""


@click.command("lint", epilog=EPILOG)
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    metavar="PATH",
    help="Captured DynamoCheckpoint snapshots (files, directories or -; repeatable).",
)
@click.option(
    "--dgd",
    metavar="DGD_FILE",
    help="Also compare the committed objects with a fresh render of this DGD (render-drift).",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    default=None,
    help="With --dgd: the namespace of a DGD that carries none (as kubectl apply -n).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default=None,
    help="Report format [default: text; github when GITHUB_ACTIONS=true].",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Rewrite wrong binding copies and the PCS checkpoint map in place, remove misplaced"
    " ones; exit 1 when a file changed. Not with - (stdin).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Warnings (unverifiable bindings, snapshot warnings) count as errors and fail too.",
)
@click.option(
    "--trusted-key",
    "trusted_keys",
    multiple=True,
    metavar="KEY",
    help="Use only snapshots signed by this Ed25519 public key (repeatable).",
)
@click.option(
    "--crd",
    "crds",
    multiple=True,
    metavar="FILE",
    help="Rule schema: check against this CustomResourceDefinition (the installed"
    " operator's) instead of the bundled schemas (repeatable).",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Refuse input files larger than this.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for a large input (same report as one) [default: the CPUs"
    " available]. A small input is linted in this process.",
)
@click.option("--list-rules", is_flag=True, help="List the rules and exit.")
@click.option("--explain", metavar="RULE", help="Print a rule's documentation and exit.")
@click.pass_context
def command(  # noqa: PLR0917 (click passes one argument per option)
    ctx: click.Context,
    paths: tuple[str, ...],
    checkpoints: tuple[str, ...],
    dgd: str | None,
    namespace: str | None,
    fmt: str | None,
    fix: bool,
    strict: bool,
    trusted_keys: tuple[str, ...],
    max_bytes: int,
    crds: tuple[str, ...],
    jobs: int | None,
    list_rules: bool,
    explain: str | None,
) -> None:
    """Check committed DCD and PodCliqueSet manifests for binding copies the operator
    would refuse at pod admission: absent, disagreeing, replaced, stale, provenance-changed,
    malformed or misplaced. Snapshots come from --checkpoint and from DynamoCheckpoint
    objects among PATHs.

    Only DynamoComponentDeployment, PodCliqueSet and DynamoCheckpoint objects are read. A
    document whose plain top-level `kind:` line names another kind cannot hold one, so it
    is skipped without being parsed: its YAML is not checked (use `kubectl apply
    --dry-run` or a YAML linter for that). Every other document is parsed in full, and
    bad input there is an error (exit 2). Files that are not Kubernetes objects at all
    (Helm values.yaml, chart templates, kustomize patches: no top-level apiVersion and
    kind) are skipped and counted in the summary.

    PATH: files, directories (their *.yaml/*.yml files, recursively) or - for stdin.
    Without PATH: the `lint: paths` of .dynamo-render.yaml. Findings go to stdout; with
    the text format, a summary line goes to stderr.
    """
    if list_rules:
        click.echo(rules_listing(), nl=False)
        return
    if explain is not None:
        click.echo(rule_explanation(explain), nl=False)
        return
    if not paths:
        raise UsageError("lint needs at least one PATH (a file, a directory, or -)")
    from click.core import ParameterSource

    if namespace is not None:  # (the DGD model is not imported for a lint without --dgd)
        from renderer.model.namespace import check_namespace

        namespace = check_namespace(namespace)
    write_roots: Sequence[str] = ()
    if fix:
        from renderer.commands.writeroot import roots_for

        named = ctx.get_parameter_source("paths") == ParameterSource.COMMANDLINE
        write_roots = roots_for(ctx, paths if named else ())
    args = LintArgs(
        write_roots=write_roots,
        paths=paths,
        checkpoints=checkpoints,
        dgd=dgd,
        format=fmt,
        fix=fix,
        strict=strict,
        trusted_keys=trusted_keys,
        max_bytes=max_bytes,
        crds=crds,
        namespace=namespace,
        jobs=jobs,
    )
    ctx.exit(execute(args, sys.stdout, sys.stderr))
