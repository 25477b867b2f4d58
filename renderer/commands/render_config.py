"""`dynamo-render render` without DGD_FILE: the DGDs listed in .dynamo-render.yaml.

`render` re-renders each configured DGD into its output folder; `render --check` writes
nothing and exits 1 listing the files that differ from a fresh render (the pre-commit hook
`dynamo-render-render-check` and the CI job run this). This module finds the entries;
`commands.render.execute_configured` renders and writes them with render's own steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from renderer.errors import UsageError

if TYPE_CHECKING:
    from renderer.commands.render import Outcome, RenderArgs
    from renderer.config import RenderJob

UPDATE_HINT = "run `dynamo-render render` to update them, then commit the result"
# Fewer entries are rendered in this process: one takes a few milliseconds, about what
# starting the workers costs.
PARALLEL_MIN_ENTRIES = 4


def _or_none(plan: Callable[[RenderArgs], Outcome], args: RenderArgs) -> Outcome | None:
    from renderer.errors import DynamoRenderError

    try:
        return plan(args)
    except DynamoRenderError:
        return None


def plan_all(
    plan: Callable[[RenderArgs], Outcome], entries: Sequence[RenderArgs], workers: int | None
) -> list[Outcome]:
    """`plan` (render's own) of every entry, in order, on up to `workers` processes (None:
    the CPUs available). Planning writes nothing, so the entries are independent; when one
    fails, they are planned again in this process, which raises the first entry's error as
    a serial run does."""
    from functools import partial

    from renderer.parallel import ordered_map, resolve_jobs

    jobs = resolve_jobs(workers)
    if jobs > 1 and len(entries) >= PARALLEL_MIN_ENTRIES:
        found = list(ordered_map(partial(_or_none, plan), entries, jobs=jobs))
        if all(outcome is not None for outcome in found):
            return [outcome for outcome in found if outcome is not None]
    return [plan(args) for args in entries]


def configured_jobs(ctx: click.Context, per_dgd_options: list[str]) -> list[RenderJob]:
    """The `render:` entries of the config. `per_dgd_options` names the options given that
    only make sense with DGD_FILE (an error here)."""
    from renderer.config import CONFIG_NAME, from_context
    from renderer.writeroot import require_inside

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
    return list(config.render)
