"""A binding names a different checkpoint UID than the captured checkpoint's.

The checkpoint was deleted and re-created under the same name (a new UID), so the pod
webhook denies the pod with `automatic checkpoint UID differs`. Compared against the
DynamoCheckpoint named by the workload's `nvidia.com/dynamo-checkpoint-name` annotation
in the same namespace.

Bad (the snapshot's `metadata.uid` is `0d4f...`):

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/e48e...

Fixed:

    nvidia.com/dynamo-checkpoint-binding: v1/0d4f.../1/e48e...
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.checks import REPLACED
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity
from renderer.lint.rules._mismatch import check_mismatches

ID = REPLACED
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    return check_mismatches(ctx, ID, SEVERITY)
