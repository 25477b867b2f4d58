"""`dynamo-render lint`: find wrong binding copies in committed manifests, and fix them.

The click command only parses options into `LintArgs`; `execute(args, out, err)` runs
`renderer.pipeline.lint.run_lint` (load, lint, fix, lint again) and prints its outcome, and
returns the exit code (0 clean, 1 errors or files fixed, 2 usage/input via exceptions).
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import click

from renderer.commands.options import crd_option, max_bytes_option, trusted_key_option
from renderer.constants import EXIT_FINDINGS, EXIT_OK
from renderer.errors import UsageError, one_line
from renderer.pipeline.requests import LintOutcome, LintRequest
from renderer.report import FORMATS


class LintArgs(LintRequest):
    """The library request plus how to print it."""

    format: str | None = None  # None: github under GitHub Actions, else text
    # --write-baseline: record the findings there, then accept them
    write_baseline: str | None = None


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


# Formats a CI system reads: their paths are relative to the repository root.
_ROOTED_FORMATS = frozenset({"sarif", "github", "gitlab", "junit"})
# Where CI systems check the repository out, when the job says so.
_WORKSPACE_VARIABLES = ("GITHUB_WORKSPACE", "CI_PROJECT_DIR")


def repository_root() -> str | None:
    """The root CI reports are relative to: the CI system's checkout (GITHUB_WORKSPACE,
    CI_PROJECT_DIR) when the working directory is inside it, else the nearest folder
    upwards holding `.git`, else the working directory (None when it is gone: paths are
    then printed as given). Nothing is read but names."""
    try:
        cwd = os.path.normpath(os.getcwd())  # noqa: PTH109 - the path as the shell has it
    except OSError:
        return None
    for variable in _WORKSPACE_VARIABLES:
        workspace = os.environ.get(variable)
        if workspace and os.path.isabs(workspace):  # noqa: PTH117
            top = os.path.normpath(workspace)
            if os.path.commonpath([cwd, top]) == top:
                return top
    folder = cwd
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):  # noqa: PTH118
            return folder
        parent = os.path.dirname(folder)  # noqa: PTH120
        if parent == folder:
            return cwd
        folder = parent


def execute(args: LintArgs, out: TextIO, err: TextIO) -> int:
    """Run lint as the command line would, print the report; returns the exit code."""
    from renderer.pipeline.lint import run_lint
    from renderer.report import get_format

    fmt = args.format or default_format()
    outcome = _baselined(args, err) if args.write_baseline is not None else run_lint(args)
    result = outcome.result
    root = repository_root() if fmt in _ROOTED_FORMATS else None
    out.write(get_format(fmt)(result, color=fmt == "text" and _use_color(out), root=root))
    for failure in result.unfixed:
        err.write(f"dynamo-render lint: not fixed: {one_line(str(failure))}\n")
    if fmt == "text":
        from renderer.report.text import summary_line

        err.write(summary_line(result) + "\n")
    return EXIT_FINDINGS if outcome.failed else EXIT_OK


def _baselined(args: LintArgs, err: TextIO) -> Any:
    """--write-baseline: lint without the old baseline, record every finding left in the
    new one, and report them as it suppresses them (read back: what a later run sees)."""
    from renderer.pipeline.lint import run_lint
    from renderer.pipeline.suppress import apply_suppressions, write_baseline
    from renderer.record import replace

    path = args.write_baseline
    assert path is not None
    outcome = run_lint(replace(args, baseline=None))
    count = write_baseline(path, outcome.result)
    result = apply_suppressions(outcome.result, baseline=path, max_bytes=args.max_bytes)
    noun = "finding" if count == 1 else "findings"
    err.write(f"dynamo-render lint: wrote {one_line(path)} ({count} {noun})\n")
    return LintOutcome(result, outcome.fix, outcome.strict)


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
\b
  # adopt lint where findings exist: record them, then accept exactly those
  dynamo-render lint rendered --checkpoint snapshots --write-baseline lint-baseline.json
  dynamo-render lint rendered --checkpoint snapshots --baseline lint-baseline.json

One object's findings of a rule are accepted, with the reason, by a comment in its YAML
document: `# dynamo-render: ignore RULE: REASON` (see docs/lint.md, Suppressions).

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
@trusted_key_option("Use only snapshots signed by this Ed25519 public key (repeatable).")
@crd_option(
    "Rule schema: check against this CustomResourceDefinition (the installed"
    " operator's) instead of the bundled schemas (repeatable)."
)
@max_bytes_option()
@click.option(
    "--disable",
    "disabled",
    multiple=True,
    metavar="RULE",
    help="Do not run this rule (repeatable; see --list-rules), as kube-linter's exclude.",
)
@click.option(
    "--baseline",
    metavar="FILE",
    default=None,
    help="Accept the findings this baseline lists (written by --write-baseline): they are"
    " reported as suppressed and do not fail the run.",
)
@click.option(
    "--write-baseline",
    metavar="FILE",
    default=None,
    help="Record every finding in FILE (a JSON baseline for --baseline), then report them"
    " as suppressed: adopt lint in a repository with existing findings.",
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
    disabled: tuple[str, ...],
    baseline: str | None,
    write_baseline: str | None,
    jobs: int | None,
    list_rules: bool,
    explain: str | None,
) -> None:
    """Check committed DCD and PodCliqueSet manifests for binding copies the operator
    would refuse at pod admission: absent, disagreeing, replaced, stale, provenance-changed,
    malformed or misplaced. Snapshots come from --checkpoint and from DynamoCheckpoint
    objects among PATHs.

    Files are read as `kubectl apply -f` reads them (JSON or YAML, any object with items
    is a list), and only DynamoComponentDeployment, PodCliqueSet and DynamoCheckpoint
    objects are checked. A document whose plain top-level `kind:` line names another kind
    cannot hold one, so it is skipped without being parsed: its YAML is not checked (use
    `kubectl apply --dry-run` or a YAML linter for that). Every other document is parsed
    in full, and bad input there is an error (exit 2). Files kubectl refuses too that are
    plainly not Kubernetes objects (Helm values.yaml and templates, kustomize patches)
    are skipped and counted in the summary.

    PATH: files, directories (their *.json/*.yaml/*.yml files, recursively, as kubectl
    -R -f reads them) or - for stdin.
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

    from renderer.writeroot import roots_for

    if namespace is not None:  # (the DGD model is not imported for a lint without --dgd)
        from renderer.model.namespace import check_namespace

        namespace = check_namespace(namespace)
    named = ctx.get_parameter_source("paths") == ParameterSource.COMMANDLINE
    if write_baseline is not None:
        _check_write_baseline(fix, paths)
    args = LintArgs(
        write_roots=roots_for(ctx, paths if named else ()) if fix else (),
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
        operator=_operator_settings(ctx),
        disabled_rules=_known_rules(disabled),
        jobs=jobs,
        baseline=baseline,
        write_baseline=write_baseline,
    )
    ctx.exit(execute(args, sys.stdout, sys.stderr))


def _check_write_baseline(fix: bool, paths: tuple[str, ...]) -> None:
    # (the file is only ever named on the command line, as -o is: no config key writes it)
    if fix:
        raise UsageError("--write-baseline records findings; run --fix first, then record")
    if "-" in paths:
        raise UsageError("--write-baseline names files; stdin (-) has none")


def _known_rules(disabled: tuple[str, ...]) -> tuple[str, ...]:
    from renderer.lint.rules import RULE_MODULES

    for rule in disabled:
        if rule not in RULE_MODULES:
            raise UsageError(f"--disable {rule}: no such rule (see --list-rules)")
    return tuple(dict.fromkeys(disabled))


def _operator_settings(ctx: click.Context) -> Any:
    from renderer.config import from_context

    config = from_context(ctx.find_root())
    return config.operator if config is not None else None
