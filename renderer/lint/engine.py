"""The lint pipeline: objects in, ordered findings out (no I/O, no click).

collect (workloads and snapshots) -> match (context) -> run rules -> order findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.constants import CHECKPOINT_KIND, DCD_KIND, PCS_KIND
from renderer.lint.context import LintContext, build_snapshots
from renderer.lint.finding import ERROR, WARNING, Finding
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.trust import TrustedKey

LINT_KINDS = frozenset({DCD_KIND, PCS_KIND, CHECKPOINT_KIND})


@dataclass(frozen=True)
class LintOptions:
    strict: bool = False  # warnings become errors
    trusted_keys: Sequence[TrustedKey] | None = None  # None: no signature check
    dgd: SourceObject | None = None  # with it, render-drift compares against a fresh render
    rules: Sequence[str] | None = None  # None: every rule
    # rule `schema`: (apiVersion, kind) -> schema from --crd, replacing the bundled ones
    schemas: Mapping[tuple[str, str], dict[str, Any]] | None = None
    operator: Any = None  # OperatorConfig render-drift renders with (None: pinned defaults)


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[str]  # every file that contributed an object, in order
    objects: int  # objects linted (DCD, PCS, DynamoCheckpoint)
    fixed: int = 0  # findings --fix repaired
    changed_files: list[str] = field(default_factory=list)
    unfixed: list[str] = field(default_factory=list)  # why --fix left a file alone
    skipped: list[str] = field(default_factory=list)  # YAML files that are not K8s objects

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
        }


def _files(objects: Sequence[SourceObject]) -> list[str]:
    return list(dict.fromkeys(obj.file for obj in objects))


def build_context(
    objects: Sequence[SourceObject],
    checkpoints: Sequence[SourceObject] = (),
    options: LintOptions | None = None,
) -> LintContext:
    options = options or LintOptions()
    linted = [obj for obj in objects if obj.kind in LINT_KINDS]
    # Snapshots: --checkpoint files first (they are what the user pointed at), then the
    # DynamoCheckpoint objects found among the linted paths.
    snapshots = build_snapshots([*checkpoints, *linted])
    trust_checked = options.trusted_keys is not None
    if options.trusted_keys is not None:
        from renderer.trust import check_trust_by_file

        # the signature covers a whole file: pass every checkpoint of each file
        reasons = check_trust_by_file([s.obj for s in snapshots], options.trusted_keys)
        for snap in snapshots:
            snap.untrusted = reasons.get(snap.obj.file)
    return LintContext(
        objects=linted,
        snapshots=snapshots,
        strict=options.strict,
        trust_checked=trust_checked,
        dgd=options.dgd,
        schemas=options.schemas or None,
        operator=options.operator,
    )


def run_rules(ctx: LintContext, rule_ids: Sequence[str] | None = None) -> list[Finding]:
    from renderer.lint.rules import RULE_MODULES, get_rule

    findings: list[Finding] = []
    for rule_id in rule_ids if rule_ids is not None else list(RULE_MODULES):
        findings.extend(get_rule(rule_id).check(ctx))
    if ctx.strict:
        findings = [f.with_severity(ERROR) if f.severity == WARNING else f for f in findings]
    # One problem found twice (e.g. the same misplaced map) is reported once.
    unique = {(f.sort_key, f.severity): f for f in findings}
    return sorted(unique.values(), key=lambda f: f.sort_key)


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
