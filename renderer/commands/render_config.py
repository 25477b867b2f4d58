"""`dynamo-render render` without DGD_FILE: every DGD listed in .dynamo-render.yaml.

`render` re-renders each configured DGD into its output folder; `render --check` writes
nothing and exits 1 listing the files that differ from a fresh render (the pre-commit hook
`dynamo-render-render-check` and the CI job run this). Every entry is rendered before any
file is written, so one bad entry means no output at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from renderer.errors import UsageError

if TYPE_CHECKING:
    from renderer.commands.render import Outcome, RenderArgs

EXIT_OK = 0
EXIT_CHANGED = 1
UPDATE_HINT = "run `dynamo-render render` to update them, then commit the result"
# Fewer entries are rendered in this process: one takes a few milliseconds, about what
# starting the workers costs.
PARALLEL_MIN_ENTRIES = 4


def _execute_or_none(args: RenderArgs) -> Outcome | None:
    from renderer.commands.render import execute
    from renderer.errors import DynamoRenderError

    try:
        return execute(args)
    except DynamoRenderError:
        return None


def execute_all(entries: Sequence[RenderArgs], jobs: int | None) -> list[Outcome]:
    """`execute` of every entry, in order, on up to `jobs` processes (None: the CPUs
    available). Rendering writes nothing, so the entries are independent; when one
    fails, they are rendered again in this process, which raises the first entry's
    error as a serial run does."""
    from renderer.commands.render import execute
    from renderer.parallel import ordered_map, resolve_jobs

    workers = resolve_jobs(jobs)
    if workers > 1 and len(entries) >= PARALLEL_MIN_ENTRIES:
        found = list(ordered_map(_execute_or_none, entries, jobs=workers))
        if all(outcome is not None for outcome in found):
            return [outcome for outcome in found if outcome is not None]
    return [execute(args) for args in entries]


def run_configured(
    ctx: click.Context,
    *,
    check: bool,
    per_dgd_options: list[str],
    trusted_keys: tuple[str, ...],
    max_bytes: int,
    crds: tuple[str, ...],
    jobs: int | None = None,
) -> int:
    """Render every configured job; returns the exit code. `per_dgd_options` names the
    options given that only make sense with DGD_FILE (an error here). `jobs`: worker
    processes (None: the CPUs available)."""
    from renderer.commands.render import RenderArgs, write_outcome
    from renderer.commands.writeroot import require_inside
    from renderer.config import CONFIG_NAME, from_context

    config = from_context(ctx.find_root())
    if config is None or not config.render:
        raise UsageError(
            f"render needs DGD_FILE, or `render:` entries in {CONFIG_NAME} at the repository root"
        )
    if per_dgd_options:
        raise UsageError(
            f"{', '.join(per_dgd_options)}: only with DGD_FILE; the entries of {config.file}"
            " name their own checkpoints, target and output"
        )
    # the config may come from a pull request: its output folders must stay in its root
    # (checked again here with symlinks resolved; the config reader refused `..`)
    for job in config.render:
        require_inside(job.output, [config.base_dir or str(Path.cwd())])
    entries = [
        RenderArgs(
            job.dgd,
            job.checkpoints,
            job.target,
            job.output,
            check,
            trusted_keys,
            max_bytes,
            crds,
            source_name=job.source,
            namespace=job.namespace,
            namespace_option=f"namespace: of the entry at {job.where}",
        )
        for job in config.render
    ]
    outcomes: list[Outcome] = execute_all(entries, jobs)
    for outcome in outcomes:
        for warning in outcome.warnings:
            click.echo(f"dynamo-render: warning: {warning}", err=True)
    if check:
        listing = "".join(outcome.stdout for outcome in outcomes)
        click.echo(listing, nl=False)
        if any(outcome.exit_code for outcome in outcomes):
            click.echo(f"dynamo-render: rendered files are out of date; {UPDATE_HINT}", err=True)
            return EXIT_CHANGED
        return EXIT_OK
    for job, outcome in zip(config.render, outcomes, strict=True):
        write_outcome(outcome, job.output)
    return EXIT_OK
