"""GitLab Code Quality: a JSON array of issues, the report a merge request widget reads
(`artifacts: reports: codequality:`).

Each issue has GitLab's required fields: `description`, `check_name` (the rule),
`fingerprint`, `severity` (an error is `major`, a warning `minor`) and `location` (path
relative to the repository root, `lines.begin`). The fingerprint is the SHA-256 of the
rule, the path, the object (kind, namespace, name) and the message, not the line: GitLab
compares fingerprints between the merge request and its target branch, so an issue that
only moved is not reported as new. Two identical issues in one object are told apart by
their order. A suppressed finding the cluster still refuses is an `info` issue saying it is
suppressed, and why; other suppressed findings are left out.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from renderer.errors import report_text
from renderer.report import dump_json, message_lines, repository_path

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

_SEVERITIES = {"error": "major", "warning": "minor"}


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    issues: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    shown = [(f, "", _SEVERITIES[f.severity]) for f in result.findings]
    shown += [
        (s.finding, f"suppressed ({s.justification}), but the cluster still refuses this: ", "info")
        for s in result.suppressed
        if s.refused
    ]
    for f, prefix, severity in shown:
        path = repository_path(f.file, root)
        identity = "\0".join((f.rule, path, f.kind, f.namespace, f.name, f.message))
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        digest = hashlib.sha256(f"{identity}\0{occurrence}".encode("utf-8", "surrogateescape"))
        issues.append(
            {
                "type": "issue",
                "check_name": f.rule,
                "description": report_text(f"[{f.rule}] {prefix}{f.message.partition(chr(10))[0]}"),
                "content": {"body": message_lines(f"{prefix}{f.message}\n\nFix: {f.hint}")},
                "categories": ["Bug Risk"],
                "fingerprint": digest.hexdigest(),
                "severity": severity,
                "location": {
                    "path": report_text(path),
                    "lines": {"begin": f.line},
                },
            }
        )
    return dump_json(issues)
