"""The lint pipeline: objects in, ordered findings out (no I/O, no click).

collect (workloads and snapshots) -> match (context) -> run rules -> order findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.constants import CHECKPOINT_KIND, DCD_KIND, PCS_KIND
from renderer.lint.context import LintContext, Snapshot, build_snapshots
from renderer.lint.finding import ERROR, WARNING, Finding
from renderer.lint.rules import RULE_MODULES, get_rule
from renderer.record import Record, field
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.lint.suppress import Suppressed
    from renderer.trust import TrustedKey

LINT_KINDS = frozenset({DCD_KIND, PCS_KIND, CHECKPOINT_KIND})


class LintOptions(NamedTuple):
    strict: bool = False  # warnings become errors
    trusted_keys: Sequence[TrustedKey] | None = None  # None: no signature check
    dgd: SourceObject | None = None  # with it, render-drift compares against a fresh render
    rules: Sequence[str] | None = None  # None: every rule
    # rule `schema`: (apiVersion, kind) -> schema from --crd, replacing the bundled ones
    schemas: Mapping[tuple[str, str], dict[str, Any]] | None = None
    operator: Any = None  # OperatorConfig render-drift renders with (None: pinned defaults)


class LintResult(Record):
    findings: list[Finding]
    files: list[str]  # every file that contributed an object, in order
    objects: int  # objects linted (DCD, PCS, DynamoCheckpoint)
    fixed: int = 0  # findings --fix repaired
    changed_files: list[str] = field(default_factory=list)
    unfixed: list[str] = field(default_factory=list)  # why --fix left a file alone
    skipped: list[str] = field(default_factory=list)  # YAML files that are not K8s objects
    # findings a suppression comment or the baseline accepts (renderer.lint.suppress)
    suppressed: list[Suppressed] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)

    def summary(self) -> dict[str, Any]:
        return {
            "files": len(self.files),
            "objects": self.objects,
            "errors": self.errors,
            "warnings": self.warnings,
            "fixable": sum(1 for f in self.findings if f.fixable),
            "fixed": self.fixed,
            "changedFiles": list(self.changed_files),
            "skippedFiles": list(self.skipped),
            "suppressed": len(self.suppressed),
            "suppressedRefused": sum(1 for s in self.suppressed if s.refused),
        }


def _files(objects: Sequence[SourceObject]) -> list[str]:
    return list(dict.fromkeys(obj.file for obj in objects))


def prepare_snapshots(
    checkpoints: Sequence[SourceObject], linted: Sequence[SourceObject], options: LintOptions
) -> list[Snapshot]:
    """Every snapshot bound once, with its trust verdict when keys are given.

    --checkpoint files first (they are what the user pointed at), then the
    DynamoCheckpoint objects found among the linted paths (`linted` may hold other kinds).
    """
    snapshots = build_snapshots([*checkpoints, *linted])
    if options.trusted_keys is not None:
        from renderer.trust import check_trust_by_file  # noqa: PLC0415 - trust (and key parsing) only when trusted keys are given

        # the signature covers a whole file: pass every checkpoint of each file
        reasons = check_trust_by_file([s.obj for s in snapshots], options.trusted_keys)
        for snap in snapshots:
            snap.untrusted = reasons.get(snap.obj.file)
    return snapshots


def build_context(
    objects: Sequence[SourceObject],
    checkpoints: Sequence[SourceObject] = (),
    options: LintOptions | None = None,
) -> LintContext:
    options = options or LintOptions()
    linted = [obj for obj in objects if obj.kind in LINT_KINDS]
    return LintContext(
        objects=linted,
        snapshots=prepare_snapshots(checkpoints, linted, options),
        strict=options.strict,
        trust_checked=options.trusted_keys is not None,
        dgd=options.dgd,
        schemas=options.schemas or None,
        operator=options.operator,
    )


def rule_findings(ctx: LintContext, rule_ids: Sequence[str] | None = None) -> list[Finding]:
    """What the rules report, rule by rule, before `order_findings`."""
    findings: list[Finding] = []
    for rule_id in rule_ids if rule_ids is not None else list(RULE_MODULES):
        findings.extend(get_rule(rule_id).check(ctx))
    return findings


def order_findings(findings: Sequence[Finding], strict: bool) -> list[Finding]:
    """The report: `--strict` applied, each problem once, ordered by `sort_key`.

    Findings with one `sort_key` share a file and a rule, so the result depends only on
    the order of the findings within each (file, rule): a run split by file, whose parts
    keep that order, reports the same bytes as one run over every object.
    """
    if strict:
        findings = [f.with_severity(ERROR) if f.severity == WARNING else f for f in findings]
    # One problem found twice (e.g. the same misplaced map) is reported once.
    unique = {(f.sort_key, f.severity): f for f in findings}
    return sorted(unique.values(), key=lambda f: f.sort_key)


def run_rules(ctx: LintContext, rule_ids: Sequence[str] | None = None) -> list[Finding]:
    return order_findings(rule_findings(ctx, rule_ids), ctx.strict)


def lint_objects(
    objects: Sequence[SourceObject],
    checkpoints: Sequence[SourceObject] = (),
    options: LintOptions | None = None,
) -> LintResult:
    """Lint `objects` (any kinds; only DCD, PCS and DynamoCheckpoint are looked at).

    `checkpoints` are extra DynamoCheckpoint snapshots (`--checkpoint`). Raises
    InputError only for bad `--dgd` input; bad snapshots are findings.
    """
    options = options or LintOptions()
    ctx = build_context(objects, checkpoints, options)
    findings = run_rules(ctx, options.rules)
    linted = [obj for obj in objects if obj.kind in LINT_KINDS]
    return LintResult(findings, _files(linted), len(linted))
