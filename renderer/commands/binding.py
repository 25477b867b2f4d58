"""`dynamo-render binding SNAPSHOT...`: compute or verify checkpoint bindings offline.

Thin shell: options are parsed here, the work is `renderer.binding`. Every snapshot is
bound before anything is printed, so a bad one means exit 2 and no partial output.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import click

from renderer.commands.options import max_bytes_option
from renderer.constants import CHECKPOINT_KIND, EXIT_FINDINGS, EXIT_OK
from renderer.errors import InputError, UsageError, one_line, report_text

if TYPE_CHECKING:
    from renderer.binding import BoundCheckpoint

EPILOG = """\
Examples:

\b
  # one line per checkpoint: <namespace>/<name> <binding>
  kubectl get dynamocheckpoint checkpoint-a1b2 -n prod -o yaml > snap.yaml
  dynamo-render binding snap.yaml
\b
  # every snapshot under a directory, with the exact JSON text that was hashed
  dynamo-render binding snapshots/ --json
\b
  # does a committed binding still match the captured checkpoint?
  dynamo-render binding snap.yaml --verify v1/7c9e.../1/3f1a...
\b
  # from stdin
  kubectl get dynamocheckpoint -n prod -o yaml | dynamo-render binding -

Exit codes: 0 bindings printed or --verify matched; 1 --verify did not match (the
operator's reason is printed); 2 a snapshot is unreadable or cannot be bound (why, at
file:line:column; among them a field the pinned operator's types do not have). Objects
of other kinds are ignored. Warnings (a checkpoint not Ready) go to stderr.
"""


@dataclass(frozen=True)
class BindingArgs:
    snapshots: tuple[str, ...]
    as_json: bool
    verify: str | None
    max_bytes: int


def bind_snapshots(paths: Sequence[str], *, max_bytes: int) -> list[BoundCheckpoint]:
    """Every DynamoCheckpoint in `paths`, bound; InputError when there is none."""
    from renderer.binding import bind
    from renderer.binding.checkpoint import is_checkpoint
    from renderer.source import load_paths

    # Every document is parsed, not only checkpoints: a snapshot file with a malformed or
    # hostile document in it is reported, never half-read.
    objects = load_paths(paths, max_bytes=max_bytes, allow_empty=True)
    checkpoints = [obj for obj in objects if is_checkpoint(obj)]
    if not checkpoints:
        if objects:  # point at what was found instead
            first = objects[0]
            mark = first.mark(("kind",), key=False)
            raise InputError(
                f"no {CHECKPOINT_KIND} objects found (this is a {first.kind})",
                first.file,
                mark.line,
                mark.column,
            )
        names = ["<stdin>" if path == "-" else path for path in paths]
        where = (names[0], 1, 1) if len(names) == 1 else (", ".join(names), None, None)
        raise InputError(f"no {CHECKPOINT_KIND} objects found (no YAML documents)", *where)
    return [bind(obj) for obj in checkpoints]


def _json_record(bound: BoundCheckpoint) -> dict[str, Any]:
    cp = bound.checkpoint
    return {
        "namespace": cp.namespace,
        "name": cp.name,
        "uid": cp.uid,
        "generation": cp.generation,
        "checkpointID": cp.checkpoint_id,
        "binding": bound.value,
        "digest": bound.binding.digest,
        "canonical": bound.canonical,
    }


def format_json(bound: Sequence[BoundCheckpoint]) -> str:
    """The `--json` document: an array, one object per checkpoint, in input order (written
    as lint's JSON report is: controls, separators and bidi overrides escaped)."""
    from renderer.report import dump_json

    return dump_json([_json_record(b) for b in bound])


def _label(bound: BoundCheckpoint) -> str:
    """`namespace/name` as printed: names come from the snapshot, so line breaks, controls
    and bidi overrides in them are escaped (one line per checkpoint, nothing a terminal or a
    CI log reads as a command)."""
    return report_text(f"{bound.checkpoint.namespace}/{bound.checkpoint.name}")


def format_lines(bound: Sequence[BoundCheckpoint]) -> str:
    return "".join(f"{_label(b)} {report_text(b.value)}\n" for b in bound)


def _verify_target(value: str, bound: Sequence[BoundCheckpoint]) -> BoundCheckpoint:
    """The checkpoint a binding is checked against: the only one, or the one with its UID."""
    if len(bound) == 1:
        return bound[0]
    uid = value.split("/")[1] if value.count("/") == 3 else None
    matching = [b for b in bound if b.checkpoint.uid == uid]
    if len(matching) == 1:
        return matching[0]
    raise UsageError(
        f"--verify needs one checkpoint, or one whose UID is the binding's; found {len(bound)}"
        f" checkpoints and {len(matching)} with UID {uid!r}"
    )


def _report(args: BindingArgs, bound: Sequence[BoundCheckpoint]) -> tuple[int, str]:
    """(exit code, stdout text) for the bound snapshots."""
    from renderer.binding import verify_binding

    if args.verify is None:
        return EXIT_OK, format_json(bound) if args.as_json else format_lines(bound)
    target = _verify_target(args.verify, bound)
    label = _label(target)
    reason = verify_binding(args.verify, target)
    if reason is None:
        return EXIT_OK, f"{label}: binding matches\n"
    detail = report_text(f"{reason} (computed {target.value})")
    return EXIT_FINDINGS, f"{label}: binding does not match: {detail}\n"


def execute(args: BindingArgs, out: TextIO, err: TextIO) -> int:
    """Bind (and verify) as the command line would, print; returns the exit code.

    Everything is computed before anything is printed: a bad snapshot is exit 2 alone."""
    if args.as_json and args.verify is not None:
        raise UsageError("--json and --verify cannot be combined")
    bound = bind_snapshots(args.snapshots, max_bytes=args.max_bytes)
    code, text = _report(args, bound)
    for warning in (w for b in bound for w in b.warnings):
        err.write(f"dynamo-render: warning: {one_line(warning)}\n")
    out.write(text)
    return code


@click.command(
    "binding",
    epilog=EPILOG,
    short_help="Compute or verify checkpoint bindings from snapshots.",
)
@click.argument("snapshots", nargs=-1, required=True, metavar="SNAPSHOT...")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON array: namespace, name, uid, generation, checkpointID, binding,"
    " digest and canonical (the exact text hashed).",
)
@click.option(
    "--verify",
    metavar="BINDING",
    help="Check BINDING against the snapshot's checkpoint (the only one, or the one with"
    " BINDING's UID): exit 0 match, 1 mismatch with the reason. Not with --json.",
)
@max_bytes_option("Refuse snapshot files larger than this.")
@click.pass_context
def command(
    ctx: click.Context,
    snapshots: tuple[str, ...],
    as_json: bool,
    verify: str | None,
    max_bytes: int,
) -> None:
    """Print the binding v1/<uid>/<generation>/<sha256> of each DynamoCheckpoint in SNAPSHOT
    (files, directories of *.yaml/*.yml, or - for stdin), computed exactly as the operator
    computes it from the checkpoint `kubectl get dynamocheckpoint -o yaml` prints.
    """
    code = execute(BindingArgs(snapshots, as_json, verify, max_bytes), sys.stdout, sys.stderr)
    if code:
        ctx.exit(code)
