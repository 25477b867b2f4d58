"""Work several rules share: comparing each binding copy with its checkpoint, and fixes.

The four mismatch rules (malformed, replaced, stale, provenance) are one classification
of each present copy, computed once per run and kept in the context. The binding engine
says why a copy is refused in the operator's words; the rule ids are lint's.
"""

from __future__ import annotations

from typing import NamedTuple

from renderer.binding import (
    GENERATION_DIFFERS,
    NONCANONICAL,
    PROVENANCE_DIFFERS,
    UID_DIFFERS,
    verify_binding,
)
from renderer.goruntime.strconv import quote as go_quote
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.lint.context import LintContext
from renderer.lint.finding import DELETE, SET, FixAction
from renderer.lint.sites import MAP_PATH, Copy, Workload, mapping_at
from renderer.model.checkpoint import MANUAL, UNREADABLE

MALFORMED = "binding-malformed"
REPLACED = "binding-replaced"
STALE = "binding-stale"
PROVENANCE = "binding-provenance"

FIX_HINT = "run `dynamo-render lint --fix` to write the captured checkpoint's binding"
NO_FIX_HINT = (
    "re-render the manifest with the captured checkpoint (`dynamo-render render`), or pass"
    " the checkpoint's snapshot with --checkpoint so --fix can write its binding"
)


class Mismatch(NamedTuple):
    rule: str
    workload: Workload
    copy: Copy
    message: str


def copy_fixes(ctx: LintContext, workload: Workload, copy: Copy) -> tuple[FixAction, ...]:
    """The edit that gives `copy` its correct value, or () when that value is unknown."""
    if copy.map_entry is not None:
        pcs = ctx.pcs_of(copy)
        if pcs is None:
            return ()
        if pcs.map.error is not None and any(
            ctx.resolve(w).expected is None and not w.copies[0].value
            for w in pcs.workloads
            if w.misplaced is None
        ):
            # rewriting an unreadable map would drop entries we cannot verify (an entry
            # equals its clique's own copy: one that has it keeps that value)
            return ()
        desired = ctx.desired_map(pcs)
        current = mapping_at(pcs.obj.data, MAP_PATH[:-1]).get(BINDINGS_MAP_KEY)
        if desired == current:
            return ()
        if desired is None:
            return (FixAction(DELETE, MAP_PATH),)
        return (FixAction(SET, MAP_PATH, desired),)
    if workload.misplaced is not None or ctx.resolve(workload).state == MANUAL:
        # no binding belongs there (a manual checkpoint's is denied at admission)
        return (FixAction(DELETE, copy.path),) if copy.value is not None else ()
    if workload.odd is not None:
        return ()  # the operator never makes it a candidate: a binding is no fix (`odd_hint`)
    expected = ctx.resolve(workload).expected
    if expected is None or expected == copy.value:
        return ()
    return (FixAction(SET, copy.path, expected),)


def workload_fixes(ctx: LintContext, workload: Workload) -> tuple[FixAction, ...]:
    actions: list[FixAction] = []
    for copy in workload.copies:
        for action in copy_fixes(ctx, workload, copy):
            if action not in actions:
                actions.append(action)
    return tuple(actions)


def hint_for(fixes: tuple[FixAction, ...], workload: Workload | None = None) -> str:
    if not fixes and workload is not None and workload.odd is not None:
        return odd_hint(workload)
    return FIX_HINT if fixes else NO_FIX_HINT


def odd_hint(workload: Workload) -> str:
    """Why --fix leaves a restore candidate the operator never makes."""
    return (
        f"not fixed: {workload.odd}, which the operator never makes a restore candidate; the"
        " webhook reads labels and annotations, not component types: remove its restore"
        " metadata (and any binding), or render again"
    )


def _describe(copy: Copy) -> str:
    if copy.map_entry is not None:
        return f"checkpoint map entry for clique {copy.map_entry}"
    return f"{copy.label} {BINDING_KEY}"


def rule_of_reason(reason: str) -> str:
    """The rule that reports the operator's admission `reason`: UID, generation and
    provenance differ have a rule each; anything else (a parse message, a non-canonical
    spelling) is binding-malformed."""
    rules = {UID_DIFFERS: REPLACED, GENERATION_DIFFERS: STALE, PROVENANCE_DIFFERS: PROVENANCE}
    return rules.get(reason, MALFORMED)


def _noncanonical(value: str, canonical: str) -> str:
    return f"{NONCANONICAL} {go_quote(value)}; its canonical form is {go_quote(canonical)}"


def _classify(ctx: LintContext, workload: Workload, copy: Copy, value: str) -> Mismatch | None:
    """The mismatch of one present copy, or None when it is right (or cannot be checked)."""
    what = f"{workload.label}: {_describe(copy)}"
    parsed = ctx.parse(value)
    if isinstance(parsed, str):
        return Mismatch(MALFORMED, workload, copy, f"{what}: {parsed}")
    resolution = ctx.resolve(workload)
    snap = resolution.snapshot
    if resolution.expected is None or snap is None or snap.bound is None:
        # Unverifiable; but a spelling the operator accepts and never writes (`+1`, `01`,
        # upper-case hex) is wrong whatever the checkpoint.
        if str(parsed) != value:
            return Mismatch(
                MALFORMED, workload, copy, f"{what}: {_noncanonical(value, str(parsed))}"
            )
        return None
    bound = snap.bound
    reason = verify_binding(value, bound)
    if reason is None:
        return None
    want = bound.binding
    name = resolution.name
    rule = rule_of_reason(reason)
    if rule == MALFORMED:
        # parsable, equal to the checkpoint's binding, but not spelled as the operator does
        return Mismatch(MALFORMED, workload, copy, f"{what}: {reason}")
    if rule == REPLACED:
        return Mismatch(
            REPLACED,
            workload,
            copy,
            f"{what}: UID {parsed.uid} is not the UID {want.uid} of checkpoint"
            f" {name} (the checkpoint was deleted and re-created; admission: {reason})",
        )
    if rule == STALE:
        return Mismatch(
            STALE,
            workload,
            copy,
            f"{what}: generation {parsed.generation} is not the generation"
            f" {want.generation} of checkpoint {name} (admission: {reason})",
        )
    return Mismatch(
        PROVENANCE,
        workload,
        copy,
        f"{what}: digest {parsed.digest} is not the digest {want.digest} of checkpoint"
        f" {name} ({_first_difference(parsed.digest, want.digest)}): what it was captured"
        f" from changed (admission: {reason})",
    )


def _first_difference(given: str, wanted: str) -> str:
    """Where two digests part, so that two that differ near the end read differently."""
    at = next((i for i, (a, b) in enumerate(zip(given, wanted, strict=False)) if a != b), None)
    if at is None:
        at = min(len(given), len(wanted))
    return f"they differ from hex digit {at + 1} on"


def mismatches(ctx: LintContext) -> list[Mismatch]:
    """Every present copy of every checked workload that would be refused, classified.

    The reason is the binding engine's (`verify_binding`, the operator's wording), mapped
    to a rule by `rule_of_reason`: a value the operator cannot parse, or parses but that is
    not in canonical form, is malformed; then UID, generation and digest, in the
    operator's order.
    """
    if ctx.mismatches is not None:
        return ctx.mismatches
    found: list[Mismatch] = []
    for workload in ctx.workloads():
        if workload.misplaced is not None:
            continue
        state = ctx.resolve(workload).state
        if state in (MANUAL, UNREADABLE):
            continue  # any binding there is denied: binding-misplaced / checkpoint-invalid
        for copy in workload.copies:
            if not copy.value:
                continue  # an empty binding is a missing one (binding-absent)
            mismatch = _classify(ctx, workload, copy, copy.value)
            if mismatch is not None:
                found.append(mismatch)
    ctx.mismatches = found
    return found
