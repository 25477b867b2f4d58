"""`dynamo-render render`: a DGD plus captured checkpoints to DCD or Grove manifests.

The click command only parses options into `RenderArgs`; `execute(args)` does the work
and returns an `Outcome` (exit code, stdout text, warnings, files to write), so the
behaviour is testable without click. Files are written last, atomically, and only
when their bytes change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from renderer.atomic import write_file
from renderer.errors import UsageError

if TYPE_CHECKING:
    from renderer.operator.config import OperatorConfig
    from renderer.source.model import SourceObject

Document = tuple[str, dict[str, Any]]  # (source name for `# Source:`, rendered object)

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
EXIT_OK = 0
EXIT_CHANGED = 1  # --check: the output directory is not up to date


@dataclass(frozen=True)
class RenderArgs:
    """Everything the command line says (paths as given)."""

    dgd_file: str
    checkpoints: tuple[str, ...] = ()
    target: str | None = None
    output_dir: str | None = None
    check: bool = False
    trusted_keys: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: tuple[str, ...] = ()  # validate against these CRDs instead of the bundled schemas
    source_name: str | None = None  # for `# Source:` (default: dgd_file as given)
    operator: OperatorConfig | None = None  # the config's `operator:` section


@dataclass
class Outcome:
    """What the command does: print `stdout`, warn on stderr, write `files`, exit."""

    exit_code: int
    stdout: str = ""
    warnings: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)  # (path, content), changed only


def _load_inputs(args: RenderArgs) -> tuple[SourceObject, list[SourceObject]]:
    from renderer.source import load_paths

    dgd_objects = load_paths([args.dgd_file], max_bytes=args.max_bytes)
    dgds = [o for o in dgd_objects if o.kind == "DynamoGraphDeployment"]
    if len(dgds) != 1:
        found = ", ".join(sorted({o.kind for o in dgd_objects})) or "nothing"
        raise UsageError(
            f"{args.dgd_file}: expected exactly one DynamoGraphDeployment, found "
            f"{len(dgds)} (objects: {found})"
        )
    checkpoints = (
        load_paths(list(args.checkpoints), max_bytes=args.max_bytes) if args.checkpoints else []
    )
    return dgds[0], list(checkpoints)


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
    """Load, render and trust-check: (source name, object) pairs and warnings."""
    from renderer.render import render
    from renderer.schema import check_inputs, check_outputs, load_crd_schemas

    dgd, checkpoints = _load_inputs(args)
    schemas = load_crd_schemas(args.crds, max_bytes=args.max_bytes) if args.crds else None
    # The DGD's schema first, as the API server checks it before the validating webhook
    # (and before the controller looks for checkpoints).
    check_inputs([dgd], schemas)
    result = render(dgd, checkpoints, target=args.target, config=args.operator)
    _check_trust(args, checkpoints, set(result.checkpoint_files))
    # Only the snapshot files render used count.
    used = set(result.checkpoint_files)
    check_inputs([c for c in checkpoints if c.file in used], schemas)
    source = args.source_name or args.dgd_file
    documents: list[Document] = [(source, obj) for obj in result.objects]
    check_outputs(documents, schemas)
    return documents, result.warnings


def _read_existing(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UsageError(f"cannot write {path}: a directory is in the way") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def planned_files(documents: list[Document], output_dir: str) -> list[tuple[str, bytes, bool]]:
    """(path, content, changed) for every object, named `<kind-lowercase>-<name>.yaml`."""
    from renderer.render.names import UnsafeNameError, output_file_name
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
        planned.append((str(path), content, _read_existing(path) != content))
    return planned


def execute(args: RenderArgs) -> Outcome:
    """Run the command's logic; raises DynamoRenderError (exit 2) on any bad input."""
    if args.check and args.output_dir is None:
        raise UsageError("--check needs -o DIR (it compares DIR with a fresh render)")
    documents, warnings = render_documents(args)
    if args.output_dir is None:
        from renderer.yamlout import dump_stream

        return Outcome(EXIT_OK, dump_stream(documents), warnings)
    out = Path(args.output_dir)
    try:
        if out.exists() and not out.is_dir():
            raise UsageError(f"-o {args.output_dir}: not a directory")
    except OSError as exc:  # a name too long, a permission denied on a parent
        raise UsageError(f"-o {args.output_dir}: {exc.strerror or exc}") from None
    planned = planned_files(documents, args.output_dir)
    changed = [(path, content) for path, content, is_changed in planned if is_changed]
    if args.check:
        listing = "".join(f"would write {path}\n" for path, _ in changed)
        return Outcome(EXIT_CHANGED if changed else EXIT_OK, listing, warnings)
    return Outcome(EXIT_OK, "", warnings, changed)


def apply(outcome: Outcome, output_dir: str | None) -> None:
    """Perform an outcome's side effects: warnings, files, stdout."""
    for warning in outcome.warnings:
        click.echo(f"dynamo-render: warning: {warning}", err=True)
    if outcome.files and output_dir is not None:
        try:
            Path(output_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {output_dir}: {exc.strerror or exc}") from None
        for path, content in outcome.files:
            write_file(path, content)
            # Like `helm template --output-dir`: say what changed (unchanged files are skipped).
            click.echo(f"wrote {path}")
    if outcome.stdout:
        click.echo(outcome.stdout, nl=False)


EPILOG = """\
Target: --target defaults to what the operator creates: the Grove PodCliqueSet, unless the
DGD has the annotation nvidia.com/enable-grove: "false" (then the DCDs).

Output order: the one PodCliqueSet, or the DCDs sorted by name (as the operator lists them).

Examples:

\b
  # to stdout, one YAML stream
  dynamo-render render deploy/llama.dgd.yaml --checkpoint snapshots
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
    "--target",
    type=click.Choice(["dcd", "grove"]),
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
    "--trusted-key",
    "trusted_keys",
    multiple=True,
    metavar="KEY",
    help="Trusted Ed25519 public key (repeatable): matched snapshots must be signed by one.",
)
@click.option(
    "--crd",
    "crds",
    multiple=True,
    metavar="FILE",
    help="Validate inputs and outputs against this CustomResourceDefinition (the installed"
    " operator's) instead of the bundled schemas (repeatable).",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Refuse input files larger than this.",
)
@click.pass_context
def command(  # noqa: PLR0917  (click passes one argument per option)
    ctx: click.Context,
    dgd_file: str | None,
    checkpoints: tuple[str, ...],
    target: str | None,
    output_dir: str | None,
    check: bool,
    trusted_keys: tuple[str, ...],
    max_bytes: int,
    crds: tuple[str, ...],
) -> None:
    """Render DGD_FILE (and the snapshots its checkpointed components restore from) into
    the manifests the Dynamo operator would create, with the checkpoint binding stamped
    everywhere the operator stamps it.

    Output: one YAML stream on stdout, each document preceded by `# Source: DGD_FILE`,
    `---` between documents; or, with -o DIR, one file per object, written atomically,
    only when its content changes.

    Without DGD_FILE: every `render:` entry of .dynamo-render.yaml, each into its own
    output folder (--checkpoint, --target and -o are then refused: each entry names its
    own); with --check, write nothing and exit 1 listing what would change.

    Inputs and outputs are validated against the bundled schemas (or --crd): a violation
    is exit 2 with its JSON path and line.
    """
    if dgd_file is None:
        from renderer.commands.render_config import run_configured

        given = [
            name
            for name, value in (
                ("--checkpoint", checkpoints),
                ("--target", target),
                ("-o", output_dir),
            )
            if value
        ]
        code = run_configured(
            ctx,
            check=check,
            per_dgd_options=given,
            trusted_keys=trusted_keys,
            max_bytes=max_bytes,
            crds=crds,
        )
        ctx.exit(code)
    from renderer.config import from_context

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
        operator=config.operator if config is not None else None,
    )
    outcome = execute(args)
    apply(outcome, output_dir)
    if outcome.exit_code:
        ctx.exit(outcome.exit_code)
