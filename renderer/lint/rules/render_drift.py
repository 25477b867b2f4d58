"""With `--dgd`: committed objects differ from a fresh render of that DGD.

Placeholder until the renderer lands.
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding

ID = "render-drift"
SEVERITY = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.dgd is None:
        return
    yield from ()
