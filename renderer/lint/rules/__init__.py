"""The rule registry: one module per rule, listed here once, in a stable order.

A rule module's docstring is its documentation (`lint --explain RULE` prints it, SARIF
carries it as `help`); its first line is the short description. It defines `ID`,
`SEVERITY` (the default; `--strict` promotes warnings) and `check(ctx)`, a generator of
findings. Adding a rule is one module plus one line in `RULE_MODULES`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from renderer.lint.context import LintContext
    from renderer.lint.finding import Finding, Severity

# rule id -> module under renderer.lint.rules (order = --list-rules order)
RULE_MODULES: dict[str, str] = {
    "binding-absent": "binding_absent",
    "binding-disagree": "binding_disagree",
    "binding-replaced": "binding_replaced",
    "binding-stale": "binding_stale",
    "binding-provenance": "binding_provenance",
    "binding-malformed": "binding_malformed",
    "binding-misplaced": "binding_misplaced",
    "checkpoint-unnamed": "checkpoint_unnamed",
    "checkpoint-pending": "checkpoint_pending",
    "checkpoint-unverifiable": "checkpoint_unverifiable",
    "checkpoint-invalid": "checkpoint_invalid",
    "checkpoint-untrusted": "checkpoint_untrusted",
    "checkpoint-outdated": "checkpoint_outdated",
    "render-drift": "render_drift",
    "schema": "schema",
}


class Rule(NamedTuple):
    id: str
    severity: Severity
    summary: str  # first line of the docstring
    doc: str  # the whole docstring, dedented
    check: Callable[[LintContext], Iterable[Finding]]


def _load(rule_id: str) -> ModuleType:
    return importlib.import_module(f"renderer.lint.rules.{RULE_MODULES[rule_id]}")


def get_rule(rule_id: str) -> Rule:
    """The rule named `rule_id` (KeyError when there is none)."""
    module = _load(rule_id)
    doc = inspect.cleandoc(module.__doc__ or rule_id)
    if rule_id != module.ID:
        raise RuntimeError(f"rule module {module.__name__} declares {module.ID}, not {rule_id}")
    return Rule(rule_id, module.SEVERITY, doc.splitlines()[0], doc, module.check)


def all_rules() -> list[Rule]:
    return [get_rule(rule_id) for rule_id in RULE_MODULES]
