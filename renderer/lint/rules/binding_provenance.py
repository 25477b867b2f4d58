"""UID and generation match, but the digest is not the captured checkpoint's.

The digest covers what the checkpoint was captured from (name, namespace, checkpoint ID,
automatic marker, artifact version, component, worker hash and the capture job), so a
different digest means the binding was computed from another capture, or by hand. The
pod webhook denies the pod with `automatic checkpoint provenance differs`.

Bad:

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/00000000...

Fixed (the digest recomputed from the snapshot):

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e.../1/e48eb2e4...
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.checks import PROVENANCE
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity
from renderer.lint.rules._mismatch import check_mismatches

ID = PROVENANCE
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    return check_mismatches(ctx, ID, SEVERITY)
