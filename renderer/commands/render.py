"""`dynamo-render render`: a DGD plus captured checkpoints to DCD or Grove manifests.

The click command only parses options into `RenderArgs` (DGD_FILE) or `ConfiguredArgs`
(the `render:` entries of the config); `execute(args, out, err)` runs
`renderer.pipeline.render` (load, check, render, plan the -o folder), prints the result,
writes the files and returns the exit code, as every command's `execute` does. `plan(args)`
is what to print and write, without doing it. Files are written last, atomically, and
only when their bytes change.

`-o DIR` owns the files it wrote there, the ones whose first line is this DGD's
`# Source:` header: one whose object no longer renders is removed (`--check` lists it as
a change). Any other file in DIR is never read or touched. Only regular files are read
or replaced (see `writeroot`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from renderer.commands.options import crd_option, max_bytes_option, trusted_key_option
from renderer.constants import (
    DEFAULT_MAX_BYTES,
    EXIT_FINDINGS,
    EXIT_OK,
    TARGETS,
    Target,
)
from renderer.errors import UsageError, one_line
from renderer.pipeline.requests import RenderRequest
from renderer.record import FrozenRecord, Record, field

if TYPE_CHECKING:
    from renderer.config import RenderJob
    from renderer.operator.config import OperatorConfig
    from renderer.pipeline.requests import RenderOutcome


class RenderArgs(RenderRequest):
    """The library request plus what to do with its output."""

    check: bool = False  # with output_dir: write nothing, list what would change, exit 1
    require_bound: bool = False  # exit 1, printing and writing nothing, when a component is unbound
    diff: bool = False  # with output_dir: also print a unified diff of each file changed


class ConfiguredArgs(FrozenRecord):
    """Without DGD_FILE: the config's `render:` entries, and the options that apply to
    every one of them."""

    entries: tuple[RenderJob, ...] = ()
    root: str = ""  # the repository root: every entry's output folder stays inside it
    check: bool = False
    trusted_keys: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: tuple[str, ...] = ()
    operator: OperatorConfig | None = None  # the config's `operator:` section
    workers: int | None = None  # -j: processes for the entries (None: the CPUs available)
    require_bound: bool = False
    diff: bool = False  # --diff: a unified diff of each file that changes


class Outcome(Record):
    """What the command does: print `stdout`, warn on stderr, write `files`, exit."""

    exit_code: int
    stdout: str = ""
    warnings: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)  # (path, content), changed only
    removals: list[str] = field(default_factory=list)  # owned files no object renders to now
    unbound: list[str] = field(
        default_factory=list
    )  # --require-bound: the components that fail the gate
    diff: str = ""  # --diff: the unified diff of the changes, printed after the rest


def plan(args: RenderArgs) -> Outcome:
    """Render and say what to print and write; raises DynamoRenderError (exit 2) on any
    bad input."""
    from renderer.pipeline.render import run_render

    _refuse_check_without_output(args)
    return _printed(args, run_render(args))


def _refuse_check_without_output(args: RenderArgs) -> None:
    if args.check and args.output_dir is None:
        raise UsageError("--check needs -o DIR (it compares DIR with a fresh render)")
    if args.kustomization and args.output_dir is None:
        raise UsageError("--kustomization needs -o DIR (it lists the files written there)")
    if args.diff and args.output_dir is None:
        raise UsageError("--diff needs -o DIR (it shows how the files in DIR change)")


def _printed(args: RenderArgs, result: RenderOutcome) -> Outcome:
    """The render's output as the command gives it: the stream, or with -o the files to
    write (with --check, their listing instead, and exit 1 when there are any; with --diff,
    a unified diff of each change besides). With --require-bound, an unbound component is
    exit 1 with nothing printed or written (the --check listing aside): a release gate must
    not hand on what it refuses."""
    unbound = result.unbound if args.require_bound else []
    output = result.output
    diff = ""
    if output is not None and args.diff:
        diff = _diff(output.writes, output.removals, args.max_bytes)
    if output is not None and args.check:
        listing = "".join(f"would write {one_line(path)}\n" for path, _ in output.writes)
        listing += "".join(f"would remove {one_line(path)}\n" for path in output.removals)
        failed = output.changed or bool(unbound)
        code = EXIT_FINDINGS if failed else EXIT_OK
        return Outcome(code, listing, result.warnings, [], [], unbound, diff)
    if unbound:
        return Outcome(EXIT_FINDINGS, "", result.warnings, unbound=unbound)
    if output is None:
        from renderer.yamlout import dump_stream

        return Outcome(EXIT_OK, dump_stream(result.documents), result.warnings)
    return Outcome(EXIT_OK, "", result.warnings, output.writes, output.removals, diff=diff)


def _diff(writes: list[tuple[str, bytes]], removals: list[str], max_bytes: int) -> str:
    """--diff: each file as it is on disk now against what the render makes of it."""
    from renderer.filediff import unified
    from renderer.writeroot import read_regular

    def old(path: str) -> bytes | None:
        data = read_regular(path, max_bytes + 1)
        if data is not None and len(data) > max_bytes:
            raise UsageError(f"{path}: larger than {max_bytes} bytes, not shown (--max-bytes)")
        return data

    parts = [unified(path, old(path), new) for path, new in writes]
    parts += [unified(path, old(path), None) for path in removals]
    return "".join(parts)


def write_outcome(outcome: Outcome, output_dir: str, out: TextIO | None = None) -> None:
    """Write an outcome's files into `output_dir` (created when needed) and remove the
    owned files no object renders to; the one code path of `-o` and config-driven render."""
    from renderer.atomic import remove_leftovers, write_file
    from renderer.writeroot import make_folder

    if not outcome.files and not outcome.removals:
        return
    make_folder(output_dir)
    remove_leftovers(output_dir)
    for path, content in outcome.files:
        write_file(path, content)
        # Like `helm template --output-dir`: say what changed (unchanged files are skipped).
        click.echo(f"wrote {one_line(path)}", file=out)
    for path in outcome.removals:
        try:
            Path(path).unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot remove {path}: {exc.strerror or exc}") from None
        click.echo(f"removed {one_line(path)}", file=out)


def apply(
    outcome: Outcome, output_dir: str | None, out: TextIO | None = None, err: TextIO | None = None
) -> None:
    """Perform an outcome's side effects: warnings, files, stdout (None: the process's)."""
    for warning in outcome.warnings:
        click.echo(f"dynamo-render: warning: {one_line(warning)}", file=err, err=True)
    for line in outcome.unbound:
        click.echo(
            f"dynamo-render: --require-bound: {one_line(line)}: its workloads carry no binding",
            file=err,
            err=True,
        )
    if output_dir is not None:
        write_outcome(outcome, output_dir, out)
    if outcome.stdout:
        click.echo(outcome.stdout, file=out, nl=False)
    if outcome.diff:
        from renderer.filediff import colorize

        stream = out if out is not None else sys.stdout
        color = _is_terminal(stream)
        click.echo(colorize(outcome.diff) if color else outcome.diff, file=out, nl=False)


def _is_terminal(stream: TextIO) -> bool:
    """Colour only for a terminal, and never under NO_COLOR (https://no-color.org)."""
    import os

    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def execute(args: RenderArgs | ConfiguredArgs, out: TextIO, err: TextIO) -> int:
    """Render as the command line would: plan, write and print; returns the exit code."""
    if isinstance(args, ConfiguredArgs):
        return _execute_configured(args, out, err)
    outcome = plan(args)
    apply(outcome, args.output_dir, out, err)
    return outcome.exit_code


def _execute_configured(shared: ConfiguredArgs, out: TextIO, err: TextIO) -> int:
    """Every `render:` entry of the config, with the options given for all of them.

    Every entry is rendered before any file is written, so one bad entry means no output
    at all; then each is applied as `execute` applies one."""
    from renderer.commands.render_config import UPDATE_HINT
    from renderer.pipeline.render import run_renders

    runs = [
        RenderArgs(
            dgd_file=job.dgd,
            checkpoints=job.checkpoints,
            target=job.target,
            output_dir=job.output,
            check=shared.check,
            trusted_keys=shared.trusted_keys,
            max_bytes=shared.max_bytes,
            crds=shared.crds,
            source_name=job.source,
            namespace=job.namespace,
            namespace_option=f"namespace: of the entry at {job.where}",
            operator=shared.operator,
            # the config may come from a pull request: its output folders stay in its root
            write_roots=(shared.root,),
            dgd_uid=job.dgd_uid,
            dgd_uid_option=f"dgdUID: of the entry at {job.where}",
            require_bound=shared.require_bound,
            diff=shared.diff,
            kustomization=job.kustomization,
        )
        for job in shared.entries
    ]
    results = run_renders(runs, shared.workers)
    outcomes = [_printed(args, result) for args, result in zip(runs, results, strict=True)]
    for args, outcome in zip(runs, outcomes, strict=True):
        apply(outcome, args.output_dir, out, err)
    if shared.check and any(_stale(outcome) for outcome in outcomes):
        click.echo(f"dynamo-render: rendered files are out of date; {UPDATE_HINT}", file=err)
    if any(outcome.exit_code for outcome in outcomes):
        return EXIT_FINDINGS
    return EXIT_OK


def _stale(outcome: Outcome) -> bool:
    """A --check outcome that lists a file to write or remove."""
    return bool(outcome.stdout)


# kubectl's -o formats: `render -o json` from habit would write a folder named json
_KUBECTL_FORMATS = frozenset({"json", "yaml", "wide", "name", "custom-columns", "go-template"})


def _warn_kubectl_output_format(output_dir: str) -> None:
    """`-o json` (a kubectl habit) names the output folder here: say so, unless a folder
    of that name exists already (then it is meant)."""
    format_name = output_dir.split("=", 1)[0]
    if format_name not in _KUBECTL_FORMATS and format_name not in ("jsonpath", "template"):
        return
    if Path(output_dir).is_dir():
        return
    click.echo(
        f"dynamo-render: warning: -o {one_line(output_dir)} is the output folder here (one"
        f" file per object is written into {one_line(output_dir)}/), not kubectl's output"
        " format; without -o, render prints one YAML stream on stdout",
        err=True,
    )


EPILOG = """\
Target: --target defaults to what the operator creates: the Grove PodCliqueSet, unless the
DGD has the annotation nvidia.com/enable-grove: "false" (then the DCDs).

Output order: DGDs in file then document order; for each, its one PodCliqueSet, or its
DCDs sorted by name (as the operator lists them).

Examples:

\b
  # to stdout, one YAML stream
  dynamo-render render deploy/llama.dgd.yaml --checkpoint snapshots
\b
  # a DGD without metadata.namespace (like upstream's examples, once their image
  # tag names a release), into dynamo-prod
  dynamo-render render examples/backends/vllm/deploy/agg.yaml -n dynamo-prod
\b
  # every DGD of a folder, one file per object
  dynamo-render render deploy/ -n dynamo-prod -o rendered
\b
  # one file per object, then: does the folder still match a fresh render?
  dynamo-render render deploy/llama.dgd.yaml --checkpoint snapshots -o rendered
  dynamo-render render deploy/llama.dgd.yaml --checkpoint snapshots -o rendered --check
\b
  # every `render:` entry of .dynamo-render.yaml (the pre-commit hook and CI run this)
  dynamo-render render --check

Checkpoints not captured yet (docs/admission.md): a checkpointed component whose checkpoint
is not among the snapshots is rendered as the operator renders it before the capture
(no binding), with a warning naming the checkpoint and the kubectl command that saves it;
a snapshot captured for an older worker spec is a warning that it is outdated.

\b
  # day 1: the DGD is applied, its checkpoint not captured yet
  dynamo-render render deploy/llama.dgd.yaml --dgd-uid "$uid" -o rendered
\b
  # a release gate: every checkpointed component bound
  dynamo-render render --check --require-bound

Exit codes: 0 rendered (or --check: up to date); 1 --check: files would change, or
--require-bound: a component is unbound; 2 usage or input error (nothing is printed or
written).
"""


@click.command(
    "render",
    short_help="Render a DGD into DCD or Grove manifests, bound to checkpoints.",
    epilog=EPILOG,
)
@click.argument("dgd_file", metavar="[DGD_FILE]", required=False)
@click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    metavar="PATH",
    help="Captured DynamoCheckpoint snapshot file or directory (repeatable).",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    default=None,
    help="Namespace of DGDs that carry none (as kubectl apply -n / helm template -n); a DGD"
    " in another namespace is an error.",
)
@click.option(
    "--target",
    type=click.Choice(TARGETS),
    default=None,
    help="dcd: one DynamoComponentDeployment per component; grove: one PodCliqueSet.",
)
@click.option(
    "-o",
    "--output-dir",
    metavar="DIR",
    default=None,
    help="Write one file per object, <kind>-<name>.yaml, instead of stdout.",
)
@click.option(
    "--check",
    is_flag=True,
    help="With -o DIR, or without DGD_FILE: write nothing; list the files that would change"
    " and exit 1 if there are any.",
)
@click.option(
    "--dgd-uid",
    "dgd_uid",
    metavar="UID",
    default=None,
    help="The live DGD's metadata.uid, which automatic checkpoint names need (kubectl get"
    " dynamographdeployment NAME -n NS -o jsonpath='{.metadata.uid}'); DGD_FILE must hold one"
    " DGD. Without it: a snapshot's ownerReference to the DGD.",
)
@click.option(
    "--require-bound",
    is_flag=True,
    help="A release gate: exit 1, printing and writing nothing, when a checkpointed component"
    " is not bound (its checkpoint not captured, or its snapshot not given).",
)
@click.option(
    "--kustomization",
    is_flag=True,
    help="With -o DIR: also write DIR/kustomization.yaml listing exactly the files render"
    " writes there (kept up to date; --check lists it when stale).",
)
@click.option(
    "--diff",
    is_flag=True,
    help="With -o DIR (or without DGD_FILE), with or without --check: also print a unified"
    " diff of each file that changes (colour only on a terminal).",
)
@trusted_key_option(
    "Trusted Ed25519 public key (repeatable): matched snapshots must be signed by one."
)
@crd_option(
    "Validate inputs and outputs against this CustomResourceDefinition (the installed"
    " operator's) instead of the bundled schemas (repeatable)."
)
@max_bytes_option()
@click.option(
    "-j",
    "--jobs",
    "workers",
    type=click.IntRange(min=1),
    default=None,
    help="Without DGD_FILE: render the entries on this many processes (same output as"
    " one) [default: the CPUs available; a few entries render in this process].",
)
@click.pass_context
def command(  # noqa: PLR0917  (click passes one argument per option)
    ctx: click.Context,
    dgd_file: str | None,
    checkpoints: tuple[str, ...],
    namespace: str | None,
    target: Target | None,
    output_dir: str | None,
    check: bool,
    dgd_uid: str | None,
    require_bound: bool,
    kustomization: bool,
    diff: bool,
    trusted_keys: tuple[str, ...],
    max_bytes: int,
    crds: tuple[str, ...],
    workers: int | None,
) -> None:
    """Render DGD_FILE (and the snapshots its checkpointed components restore from) into
    the manifests the Dynamo operator would create, with the checkpoint binding stamped
    everywhere the operator stamps it.

    DGD_FILE may hold several DGDs (objects of other kinds beside them are ignored), or be
    a directory of such files: every DGD is rendered, in file then document order. A DGD
    without metadata.namespace takes -n NS.

    Output: one YAML stream on stdout, each document preceded by `# Source: DGD_FILE`,
    `---` between documents; or, with -o DIR, one file per object, written atomically,
    only when its content changes.

    Without DGD_FILE: every `render:` entry of .dynamo-render.yaml, each into its own
    output folder (--checkpoint, -n, --target and -o are then refused: each entry names
    its own); with --check, write nothing and exit 1 listing what would change.

    Inputs and outputs are validated against the bundled schemas (or --crd): a violation
    is exit 2 with its JSON path and line. A DGD field its CRD does not declare (the
    pinned operator's, or the --crd one) is exit 2 at its key, as kubectl apply refuses it.
    """
    from renderer.config import from_context

    config = from_context(ctx.find_root())
    operator = config.operator if config is not None else None
    args: RenderArgs | ConfiguredArgs
    if dgd_file is None:
        from renderer.commands.render_config import configured_jobs

        given = [
            name
            for name, value in (
                ("--checkpoint", checkpoints),
                ("-n", namespace),
                ("--target", target),
                ("-o", output_dir),
                ("--dgd-uid", dgd_uid),
                ("--kustomization", kustomization),
            )
            if value
        ]
        entries, root = configured_jobs(ctx, given)
        args = ConfiguredArgs(
            entries,
            root,
            check,
            trusted_keys,
            max_bytes,
            crds,
            workers=workers,
            operator=operator,
            require_bound=require_bound,
            diff=diff,
        )
    else:
        from renderer.model.namespace import check_namespace
        from renderer.render.uid import check_dgd_uid

        if output_dir is not None:
            _warn_kubectl_output_format(output_dir)
        args = RenderArgs(
            dgd_file,
            checkpoints,
            target,
            output_dir,
            trusted_keys,
            max_bytes,
            crds,
            namespace=None if namespace is None else check_namespace(namespace),
            operator=operator,
            dgd_uid=None if dgd_uid is None else check_dgd_uid(dgd_uid),
            check=check,
            require_bound=require_bound,
            diff=diff,
            kustomization=kustomization,
        )
    code = execute(args, sys.stdout, sys.stderr)
    if code:
        ctx.exit(code)
