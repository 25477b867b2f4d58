"""SARIF 2.1.0: one run, the rule catalogue from the rule docstrings, results with regions.

A file inside the repository root is a URI relative to `%SRCROOT%` (the root, whatever the
working directory: code scanning resolves it against the checkout); one outside it is a
`file://` URI. No absolute path of the machine that ran lint is written otherwise, so the
log is the same bytes on every machine.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from renderer import PROJECT_URL, __version__
from renderer.errors import report_text
from renderer.lint.rules import all_rules
from renderer.report import dump_json, inside_root, message_lines

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
_LEVELS = {"error": "error", "warning": "warning"}


def _location(file: str, root: str | None) -> dict[str, str]:
    """The artifactLocation of `file`: relative to the root (`uriBaseId`) when inside it."""
    relative = inside_root(file, root)
    if relative is None:
        return {"uri": _uri(file)}
    return {"uri": _uri(relative), "uriBaseId": SRCROOT}


def _uri(file: str) -> str:
    """A relative URI reference for a path as given (SARIF wants forward slashes), or a
    `file://` URI for an absolute one: the name's own bytes, percent-encoded (so a name
    that is not UTF-8 keeps its bytes)."""
    if file.startswith("<") and file.endswith(">"):
        return quote(os.fsencode(file.strip("<>")))
    path = PurePath(file)
    if path.is_absolute():  # a file:// URI: a bare /path is read relative to nothing known
        return "file://" + quote(os.fsencode(path.as_posix()))
    return quote(os.fsencode(path.as_posix()))


def _full_description(doc: str, summary: str) -> str:
    """The docstring's first paragraph after the summary line (the why), else the summary."""
    paragraphs = [p for p in doc.split("\n\n")[1:] if p.strip()]
    return " ".join(paragraphs[0].split()) if paragraphs else summary


def _rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("-")),
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": _full_description(rule.doc, rule.summary)},
            "help": {"text": rule.doc},
            "defaultConfiguration": {"level": _LEVELS[rule.severity]},
        }
        for rule in all_rules()
    ]


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    suppressions: list[list[dict[str, Any]] | None] = [None] * len(result.findings)
    findings = list(result.findings)
    for s in result.suppressed:
        findings.append(s.finding)
        # what code scanning shows as dismissed, with the repository's reason
        suppressions.append(
            [
                {
                    "kind": s.kind,
                    "status": "accepted",
                    "justification": report_text(s.justification),
                }
            ]
        )
    for f, suppression in zip(findings, suppressions, strict=True):
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": _LEVELS[f.severity],
                # shown by code-scanning viewers: controls and bidi overrides escaped, the
                # lines of a render-drift diff kept as lines
                "message": {"text": message_lines(f"{f.message}. Fix: {f.hint}")},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _location(f.file, root),
                            "region": {"startLine": f.line, "startColumn": f.column},
                        },
                        "logicalLocations": [
                            {
                                "name": report_text(f.name),
                                "fullyQualifiedName": report_text(
                                    "/".join(p for p in (f.kind, f.namespace, f.name) if p)
                                ),
                                "kind": "object",
                            }
                        ],
                    }
                ],
                "properties": {
                    "docIndex": f.doc_index,
                    "kind": f.kind,
                    "namespace": f.namespace,
                    "name": f.name,
                    "fixable": f.fixable,
                },
            }
        )
        if suppression is not None:
            results[-1]["suppressions"] = suppression
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "dynamo-render",
                        "version": __version__,
                        # this tool's address, never the operator's (omitted until published)
                        **({"informationUri": PROJECT_URL} if PROJECT_URL else {}),
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return dump_json(log)
