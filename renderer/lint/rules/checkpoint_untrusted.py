"""With `--trusted-key`: a snapshot file that is not signed by a trusted key.

The signature (`SNAPSHOT.sig`, from `dynamo-render snapshot sign`) covers every bound
field of every checkpoint in the file. An unsigned, re-signed or edited snapshot could pin
a workload to anything, so its checkpoints are not used: workloads that name them are
`checkpoint-unverifiable`, and `--fix` writes nothing from them.

Bad: `snapshots/decode.yaml` without `snapshots/decode.yaml.sig`.

Fixed: `dynamo-render snapshot sign snapshots/decode.yaml --key team.key`.
"""

from __future__ import annotations

from collections.abc import Iterator

from renderer.lint.context import LintContext
from renderer.lint.finding import ERROR, Finding, Severity, finding_at

ID = "checkpoint-untrusted"
SEVERITY: Severity = ERROR


def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.trust_checked:
        return
    reported: set[str] = set()
    for snap in ctx.snapshots:
        if snap.untrusted is None or snap.obj.file in reported:
            continue
        reported.add(snap.obj.file)
        yield finding_at(
            snap.obj,
            (),
            rule=ID,
            severity=SEVERITY,
            message=snap.untrusted,
            hint="sign the snapshot with `dynamo-render snapshot sign`, or trust its key",
            key=True,
        )
