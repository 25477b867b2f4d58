"""A binding carries an older (or newer) generation than the captured checkpoint.

The checkpoint's spec changed after the manifest was rendered, so its
`metadata.generation` moved on and the pod webhook denies the pod with
`automatic checkpoint generation differs`.

Bad (the snapshot is at `generation: 2`):

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/e48e...

Fixed:

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/2/e48e...
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.checks import STALE
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity
from renderer.lint.rules._mismatch import check_mismatches

ID = STALE
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    return check_mismatches(ctx, ID, SEVERITY)
