"""A binding (or the PCS checkpoint map) does not parse, or is not in canonical form.

Reported with the operator's own parse message, for example
`automatic checkpoint binding has invalid format "v1/abc"; expected
v1/<uid>/<generation>/<sha256>` or `automatic checkpoint binding generation "0" is
invalid`. The PodCliqueSet map `nvidia.com/dynamo-checkpoint-bindings` must be a JSON
object of clique name to binding string. Needs no snapshot: a malformed binding is
refused whatever the checkpoint.

A value the operator parses but never writes (a generation `+1` or `01`, an upper-case
hex digest) is malformed too: nothing that renders bindings produced it, so it was
edited. The message says it is not in canonical form and names the canonical value (the
captured checkpoint's binding, or, without a snapshot, the canonical spelling of the same
value); with the snapshot, `--fix` writes the computed binding. Rule `schema` leaves these
values to this rule, so each is one finding.

Bad:

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/0/e48e

Fixed (`--fix` writes the captured checkpoint's binding, when the snapshot is given):

    nvidia.com/dynamo-checkpoint-binding: v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/e48eb2e4...
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.keys import BINDINGS_MAP_KEY
from renderer.lint.checks import MALFORMED, copy_fixes, hint_for
from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity, finding_at
from renderer.lint.rules._mismatch import check_mismatches
from renderer.lint.sites import MAP_PATH

ID = MALFORMED
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from check_mismatches(ctx, ID, SEVERITY)
    for pcs in ctx.pcss:
        if pcs.map.error is None:
            continue
        # any engine clique's map copy gives the same whole-map fix
        fixes = next(
            (copy_fixes(ctx, w, w.copies[1]) for w in pcs.workloads if w.misplaced is None),
            (),
        )
        yield finding_at(
            pcs.obj,
            MAP_PATH,
            rule=ID,
            severity=SEVERITY,
            message=f"PCS {pcs.obj.namespace}/{pcs.obj.name}: {pcs.map.error}",
            hint=hint_for(fixes) if fixes else f"write {BINDINGS_MAP_KEY} as compact JSON",
            fixes=fixes,
        )
