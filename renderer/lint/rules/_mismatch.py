"""The check shared by the four mismatch rules: report the copies classified as `rule`."""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.checks import copy_fixes, hint_for, mismatches
from renderer.lint.context import LintContext
from renderer.lint.finding import Finding, Severity, finding_at


def check_mismatches(ctx: LintContext, rule: str, severity: Severity) -> Iterator[Finding]:
    for found in mismatches(ctx):
        if found.rule != rule:
            continue
        fixes = copy_fixes(ctx, found.workload, found.copy)
        yield finding_at(
            found.copy.obj,
            found.copy.path,
            rule=rule,
            severity=severity,
            message=found.message,
            hint=hint_for(fixes, found.workload),
            fixes=fixes,
        )
