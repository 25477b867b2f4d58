"""`dynamo-render render` without DGD_FILE: the DGDs listed in .dynamo-render.yaml.

`render` re-renders each configured DGD into its output folder; `render --check` writes
nothing and exits 1 listing the files that differ from a fresh render (the pre-commit hook
`dynamo-render-render-check` and the CI job run this). This module finds the entries;
`commands.render.execute` renders them with `renderer.pipeline.render.run_renders` and
writes them with render's own steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from renderer.errors import UsageError

if TYPE_CHECKING:
    from renderer.config import RenderJob

UPDATE_HINT = "run `dynamo-render render` to update them, then commit the result"


def configured_jobs(
    ctx: click.Context, per_dgd_options: list[str]
) -> tuple[tuple[RenderJob, ...], str]:
    """The `render:` entries of the config, and the repository root their output folders
    must stay in (the config may come from a pull request; the config reader refused
    `..`, the render checks again with symlinks resolved). `per_dgd_options` names the
    options given that only make sense with DGD_FILE (an error here)."""
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
    return tuple(config.render), config.base_dir or str(Path.cwd())
