"""`dynamo-render render`: a DGD plus captured checkpoints to DCD or Grove manifests.

The click command only parses options into `RenderArgs`; `plan(args)` does the work and
returns an `Outcome` (exit code, stdout text, warnings, files to write and remove), so the
behaviour is testable without click; `apply` performs it and `execute(args, out, err)` does
both and returns the exit code, as every command's `execute` does. Files are written last,
atomically, and only when their bytes change.

`-o DIR` owns the files it wrote there, the ones whose first line is this DGD's
`# Source:` header: one whose object no longer renders is removed (`--check` lists it as
a change). Any other file in DIR is never read or touched. Only regular files are read
or replaced (see `writeroot`).
"""

from __future__ import annotations

import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from renderer.atomic import remove_leftovers, write_file
from renderer.commands.options import crd_option, max_bytes_option, trusted_key_option
from renderer.constants import DEFAULT_MAX_BYTES, DGD_KIND, EXIT_FINDINGS, EXIT_OK, TARGETS, Target
from renderer.errors import UsageError

if TYPE_CHECKING:
    from renderer.config import RenderJob
    from renderer.operator.config import OperatorConfig
    from renderer.source.model import SourceObject

Document = tuple[str, dict[str, Any]]  # (source name for `# Source:`, rendered object)


@dataclass(frozen=True)
class RenderArgs:
    """Everything the command line says (paths as given)."""

    dgd_file: str
    checkpoints: tuple[str, ...] = ()
    target: Target | None = None
    output_dir: str | None = None
    check: bool = False
    trusted_keys: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: tuple[str, ...] = ()  # validate against these CRDs instead of the bundled schemas
    source_name: str | None = None  # for `# Source:` (default: dgd_file as given)
    namespace: str | None = None  # for DGDs without metadata.namespace (kubectl apply -n)
    namespace_option: str = "-n/--namespace"  # how messages name where it came from
    operator: OperatorConfig | None = None  # the config's `operator:` section


@dataclass(frozen=True)
class ConfiguredArgs:
    """Without DGD_FILE: the options that apply to every `render:` entry of the config."""

    check: bool = False
    trusted_keys: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: tuple[str, ...] = ()
    operator: OperatorConfig | None = None  # the config's `operator:` section
    workers: int | None = None  # -j: processes for the entries (None: the CPUs available)


@dataclass
class Outcome:
    """What the command does: print `stdout`, warn on stderr, write `files`, exit."""

    exit_code: int
    stdout: str = ""
    warnings: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)  # (path, content), changed only
    removals: list[str] = field(default_factory=list)  # owned files no object renders to now


def _load_inputs(args: RenderArgs) -> tuple[list[SourceObject], list[SourceObject]]:
    """Every DGD of DGD_FILE (a file of several documents, or a directory of them), in file
    then document order and placed in `--namespace`, and the snapshots."""
    from renderer.model.namespace import with_namespace
    from renderer.source import load_paths

    # YAML beside the DGDs that is not Kubernetes objects (a Helm chart) is ignored, as
    # objects of other kinds are.
    dgd_objects = load_paths([args.dgd_file], max_bytes=args.max_bytes, skipped=[])
    dgds = [
        with_namespace(o, args.namespace, args.namespace_option)
        for o in dgd_objects
        if o.kind == DGD_KIND
    ]
    if not dgds and dgd_objects:
        from renderer.errors import InputError

        first = dgd_objects[0]  # a misspelt kind: say where, and what was meant
        mark = first.mark(("kind",), key=False)
        found = ", ".join(sorted({o.kind for o in dgd_objects}))
        raise InputError(
            f"kind {first.kind!r} is not DynamoGraphDeployment (no DynamoGraphDeployment in"
            f" {args.dgd_file}; objects: {found})",
            first.file,
            mark.line,
            mark.column,
        )
    if not dgds:
        found = ", ".join(sorted({o.kind for o in dgd_objects})) or "nothing"
        raise UsageError(f"{args.dgd_file}: no DynamoGraphDeployment found (objects: {found})")
    _refuse_twins(dgds)
    checkpoints = (
        load_paths(list(args.checkpoints), max_bytes=args.max_bytes) if args.checkpoints else []
    )
    return dgds, list(checkpoints)


def _refuse_twins(dgds: list[SourceObject]) -> None:
    """Two DGDs of one namespace and name would render the same objects twice."""
    from renderer.errors import InputError

    seen: dict[tuple[str, str], SourceObject] = {}
    for dgd in dgds:
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


def _source_name(args: RenderArgs, dgd: SourceObject) -> str:
    """`# Source:` of a DGD's output: DGD_FILE as given (or as the config writes it), and
    for a folder, the file's place inside it after that."""
    import os

    named = args.source_name or args.dgd_file
    if args.dgd_file in (dgd.file, "-"):
        return named
    inside = os.path.relpath(dgd.file, args.dgd_file)
    return f"{named.rstrip('/')}/{Path(inside).as_posix()}"


def _check_trust(
    args: RenderArgs, checkpoints: list[SourceObject], matched_files: set[str]
) -> None:
    """Every matched snapshot file must be signed by a trusted key (when keys are given)."""
    if not args.trusted_keys:
        return
    from renderer.errors import InputError
    from renderer.trust import check_trust_by_file, load_trusted_keys

    keys = load_trusted_keys(list(args.trusted_keys))
    verdicts = check_trust_by_file(checkpoints, keys)
    for file in sorted(matched_files):
        reason = verdicts.get(file)
        if reason is not None:
            raise InputError(f"untrusted checkpoint snapshot: {reason}", file)


def render_documents(args: RenderArgs) -> tuple[list[Document], list[str]]:
    """Load, render and trust-check every DGD: (source name, object) pairs and warnings."""
    from renderer.render import render
    from renderer.schema import check_inputs, check_outputs, load_crd_schemas
    from renderer.schema.fields import check_fields

    dgds, checkpoints = _load_inputs(args)
    schemas = load_crd_schemas(args.crds, max_bytes=args.max_bytes) if args.crds else None
    documents: list[Document] = []
    warnings: list[str] = []
    used: set[int] = set()  # ids of the snapshots some component of some DGD restores from
    files: set[str] = set()
    for dgd in dgds:
        # The DGD's fields and schema first, as the API server checks them before the
        # validating webhook (and before the controller looks for checkpoints).
        check_fields(dgd, schemas)
        check_inputs([dgd], schemas)
        # A snapshot one DGD uses is not "unused" for the others: that warning is given
        # once, below, for the snapshots none of them uses.
        result = render(
            dgd, checkpoints, target=args.target, config=args.operator, warn_unused=False
        )
        used.update(id(obj) for obj in result.checkpoints)
        files.update(result.checkpoint_files)
        warnings.extend(result.warnings)
        source = _source_name(args, dgd)
        documents.extend((source, obj) for obj in result.objects)
    warnings.extend(_unused_snapshots(checkpoints, used, dgds))
    _check_trust(args, checkpoints, files)
    # Only the snapshot files render used count.
    check_inputs([c for c in checkpoints if c.file in files], schemas)
    check_outputs(documents, schemas)
    return documents, list(dict.fromkeys(warnings))


def _unused_snapshots(
    checkpoints: list[SourceObject], used: set[int], dgds: list[SourceObject]
) -> list[str]:
    """One warning per snapshot no component of any DGD restores from (a snapshot one DGD
    uses is not unused because another does not); one DGD is named, several are not."""
    from renderer.binding.checkpoint import is_checkpoint

    (one,) = dgds if len(dgds) == 1 else (None,)
    of = f"DGD {one.namespace}/{one.name}" if one is not None else "the DGDs rendered"
    return [
        f"{c.where(('metadata', 'name'))}: checkpoint {c.namespace}/{c.name} matches no"
        f" checkpoint-enabled component of {of}"
        for c in checkpoints
        if is_checkpoint(c) and id(c) not in used
    ]


def planned_files(documents: list[Document], output_dir: str) -> list[tuple[str, bytes, bool]]:
    """(path, content, changed) for every object, named `<kind-lowercase>-<name>.yaml`."""
    from renderer.render.names import UnsafeNameError, output_file_name
    from renderer.writeroot import read_regular
    from renderer.yamlout import dump_object, source_comment

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


def owned_leftovers(output_dir: str, source: str, planned: set[str]) -> list[str]:
    """Files in `output_dir` this render wrote (its `# Source:` first line) that no object
    renders to any more. Only regular `*.yaml` files are looked at; others are not ours."""
    from renderer.writeroot import lstat_or_none, read_regular
    from renderer.yamlout import source_comment

    header = source_comment(source).encode("utf-8")
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
        if read_regular(path, len(header)) == header:
            found.append(path)
    return found


def plan(args: RenderArgs) -> Outcome:
    """Run the command's logic; raises DynamoRenderError (exit 2) on any bad input."""
    if args.check and args.output_dir is None:
        raise UsageError("--check needs -o DIR (it compares DIR with a fresh render)")
    documents, warnings = render_documents(args)
    if args.output_dir is None:
        from renderer.yamlout import dump_stream

        return Outcome(EXIT_OK, dump_stream(documents), warnings)
    from renderer.writeroot import check_folder

    check_folder(args.output_dir)
    planned = planned_files(documents, args.output_dir)
    changed = [(path, content) for path, content, is_changed in planned if is_changed]
    source = args.source_name or args.dgd_file
    removals = owned_leftovers(args.output_dir, source, {path for path, _, _ in planned})
    if args.check:
        listing = "".join(f"would write {path}\n" for path, _ in changed)
        listing += "".join(f"would remove {path}\n" for path in removals)
        return Outcome(EXIT_FINDINGS if changed or removals else EXIT_OK, listing, warnings)
    return Outcome(EXIT_OK, "", warnings, changed, removals)


def write_outcome(outcome: Outcome, output_dir: str, out: TextIO | None = None) -> None:
    """Write an outcome's files into `output_dir` (created when needed) and remove the
    owned files no object renders to; the one code path of `-o` and config-driven render."""
    from renderer.writeroot import make_folder

    if not outcome.files and not outcome.removals:
        return
    make_folder(output_dir)
    remove_leftovers(output_dir)
    for path, content in outcome.files:
        write_file(path, content)
        # Like `helm template --output-dir`: say what changed (unchanged files are skipped).
        click.echo(f"wrote {path}", file=out)
    for path in outcome.removals:
        try:
            Path(path).unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot remove {path}: {exc.strerror or exc}") from None
        click.echo(f"removed {path}", file=out)


def apply(
    outcome: Outcome, output_dir: str | None, out: TextIO | None = None, err: TextIO | None = None
) -> None:
    """Perform an outcome's side effects: warnings, files, stdout (None: the process's)."""
    for warning in outcome.warnings:
        click.echo(f"dynamo-render: warning: {warning}", file=err, err=True)
    if output_dir is not None:
        write_outcome(outcome, output_dir, out)
    if outcome.stdout:
        click.echo(outcome.stdout, file=out, nl=False)


def execute(args: RenderArgs, out: TextIO, err: TextIO) -> int:
    """Render as the command line would: plan, write and print; returns the exit code."""
    outcome = plan(args)
    apply(outcome, args.output_dir, out, err)
    return outcome.exit_code


def execute_configured(
    jobs: list[RenderJob], shared: ConfiguredArgs, out: TextIO, err: TextIO
) -> int:
    """Every `render:` entry of the config, with the options given for all of them.

    Every entry is rendered before any file is written, so one bad entry means no output
    at all; then each is applied as `execute` applies one."""
    from renderer.commands.render_config import UPDATE_HINT

    runs = [
        RenderArgs(
            job.dgd,
            job.checkpoints,
            job.target,
            job.output,
            shared.check,
            shared.trusted_keys,
            shared.max_bytes,
            shared.crds,
            source_name=job.source,
            namespace=job.namespace,
            namespace_option=f"namespace: of the entry at {job.where}",
            operator=shared.operator,
        )
        for job in jobs
    ]
    from renderer.commands.render_config import plan_all

    outcomes = plan_all(plan, runs, shared.workers)
    for args, outcome in zip(runs, outcomes, strict=True):
        apply(outcome, args.output_dir, out, err)
    if shared.check and any(outcome.exit_code for outcome in outcomes):
        click.echo(f"dynamo-render: rendered files are out of date; {UPDATE_HINT}", file=err)
        return EXIT_FINDINGS
    return EXIT_OK


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

Exit codes: 0 rendered (or --check: up to date); 1 --check: files would change; 2 usage or
input error (nothing is printed or written).
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
    if dgd_file is None:
        from renderer.commands.render_config import configured_jobs

        given = [
            name
            for name, value in (
                ("--checkpoint", checkpoints),
                ("-n", namespace),
                ("--target", target),
                ("-o", output_dir),
            )
            if value
        ]
        from renderer.config import from_context

        config = from_context(ctx.find_root())
        shared = ConfiguredArgs(
            check,
            trusted_keys,
            max_bytes,
            crds,
            workers=workers,
            operator=config.operator if config is not None else None,
        )
        jobs = configured_jobs(ctx, given)
        ctx.exit(execute_configured(jobs, shared, sys.stdout, sys.stderr))
    from renderer.config import from_context
    from renderer.model.namespace import check_namespace

    config = from_context(ctx.find_root())
    args = RenderArgs(
        dgd_file,
        checkpoints,
        target,
        output_dir,
        check,
        trusted_keys,
        max_bytes,
        crds,
        namespace=None if namespace is None else check_namespace(namespace),
        operator=config.operator if config is not None else None,
    )
    code = execute(args, sys.stdout, sys.stderr)
    if code:
        ctx.exit(code)
