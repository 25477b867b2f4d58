"""Suppressions: findings a repository has decided to accept, each with its reason.

Three sources, applied after the rules ran (so a clean run pays nothing for them):

- an in-source comment on its own line inside an object's document,
  `# dynamo-render: ignore RULE[,RULE...]: REASON`, which accepts that rule's findings
  in that document (every item of a `kind: List`). A comment, not an annotation: it never
  reaches the cluster (an annotation on a DCD would be copied to its pods and change the
  pod template, so a rollout), and it is read from the repository, which is what lint
  reads. A comment without a reason or naming no known rule is an input error at its
  line: an accepted finding always says why.
- a baseline file (`--baseline FILE`, written by `--write-baseline FILE`): the findings
  a repository had when it adopted lint, by fingerprint. A fingerprint is the rule, the
  file (relative to the baseline's folder), the object's kind, namespace and name and the
  message without positions, so it survives lines moving; the same finding twice needs
  two entries.
- rules disabled for the whole run (`--disable`, config `lint: disable`) are not run at
  all: they are no findings, hence not counted here.

A suppressed finding does not fail the run, but it is never silent: it is counted in
every format's summary, listed in json and SARIF (`suppressions`, with its
justification), and when it is one the cluster refuses (`REFUSED_RULES`: the API server
rejects the object, or the pod webhook denies its pods), printed on every run, in text and
github formats too, saying so.

Pure: the caller reads the files (`renderer.pipeline.suppress`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from renderer.errors import InputError
from renderer.lint.finding import Finding
from renderer.record import FrozenRecord

# Rules whose findings the cluster refuses: the API server rejects (or strips) what
# `schema` reports, and the operator's pod webhook denies pods on what the others report.
# Suppressing one is allowed (a repository may hold a manifest it does not apply yet), but
# it is printed loudly on every run.
REFUSED_RULES: Final = frozenset(
    {
        "schema",
        "binding-absent",
        "binding-disagree",
        "binding-replaced",
        "binding-stale",
        "binding-provenance",
        "binding-malformed",
        "checkpoint-invalid",
        "checkpoint-outdated",
    }
)

SuppressionKind = Literal["inSource", "external"]
IN_SOURCE: Final = "inSource"  # SARIF's names for a comment and for a baseline
EXTERNAL: Final = "external"
BASELINE_VERSION: Final = 1
MARKER: Final = b"dynamo-render:"  # a file without it holds no suppression comment

_COMMENT = re.compile(r"^[ \t]*#[ \t]*dynamo-render:[ \t]*ignore\b(?P<rest>.*)$")
_RULE = re.compile(r"[a-z][a-z0-9-]*\Z")
# kubectl's document separator: `---` at the start of a line, then only blanks
_SEPARATOR = re.compile(r"---[ \t\r]*\Z")
# what moves when lines move: file positions and diff hunk headers in messages
_POSITIONS = re.compile(r"@@ [-+0-9, ]+ @@|:\d+:\d+|\blines? \d+(?:(?:, | and )\d+)*")


class Suppressed(FrozenRecord):
    """A finding accepted by a comment or the baseline, and why."""

    finding: Finding
    kind: SuppressionKind
    justification: str
    source: str  # `file:line` of the comment, or the baseline file

    @property
    def refused(self) -> bool:
        """The cluster still refuses it: the suppression only hides it from lint."""
        return self.finding.rule in REFUSED_RULES

    def to_json(self) -> dict[str, Any]:
        return {
            **self.finding.to_json(),
            "suppression": {
                "kind": self.kind,
                "justification": self.justification,
                "source": self.source,
                "refused": self.refused,
            },
        }


class Comment(FrozenRecord):
    """One `# dynamo-render: ignore` comment: its rules, reason and document's lines."""

    rules: frozenset[str]
    reason: str
    line: int  # 1-based, of the comment
    first: int  # the lines of its document, 1-based, inclusive
    last: int


def parse_comments(text: str, file: str, known_rules: Iterable[str]) -> list[Comment]:
    """The suppression comments of a file's text. A line inside a block scalar that reads
    exactly like one counts too (lint does not parse the file again to tell). Raises
    InputError at the comment for one without a reason or with an unknown rule."""
    known = frozenset(known_rules)
    lines = text.split("\n")
    found: list[tuple[frozenset[str], str, int]] = []
    starts = [1]  # first line of each document
    for number, line in enumerate(lines, start=1):
        if line.startswith("---") and _SEPARATOR.match(line):
            starts.append(number + 1)
            continue
        match = _COMMENT.match(line.rstrip("\r"))
        if match is None:
            continue
        column = line.index("#") + 1
        rules_text, colon, reason = match.group("rest").partition(":")
        reason = reason.strip()
        rules = [r.strip() for r in rules_text.split(",")]
        if not colon or not reason or not all(rules):
            raise InputError(
                "a suppression names the rules and gives a reason:"
                " `# dynamo-render: ignore RULE[,RULE]: REASON`",
                file,
                number,
                column,
            )
        for rule in rules:
            if not _RULE.match(rule) or rule not in known:
                raise InputError(
                    f"suppression of {rule!r}: no such rule (see lint --list-rules)",
                    file,
                    number,
                    column,
                )
        found.append((frozenset(rules), reason, number))
    ends = [start - 2 for start in starts[1:]] + [len(lines)]
    comments = []
    for named, why, number in found:
        index = max(i for i, start in enumerate(starts) if start <= number)
        comments.append(Comment(named, why, number, starts[index], ends[index]))
    return comments


def match_comment(finding: Finding, comments: Sequence[Comment]) -> Comment | None:
    for comment in comments:
        if finding.rule in comment.rules and comment.first <= finding.line <= comment.last:
            return comment
    return None


def fingerprint(finding: Finding, file: str) -> str:
    """Stable across line moves: no line or column, `file` as the baseline names it."""
    message = _POSITIONS.sub("", finding.message)
    parts = (finding.rule, file, finding.kind, finding.namespace, finding.name, message)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def baseline_document(entries: Iterable[tuple[Finding, str]]) -> str:
    """The baseline file for these (finding, file as the baseline names it): sorted, so
    writing it twice gives the same bytes."""
    rows = sorted(
        (
            {
                "fingerprint": fingerprint(f, file),
                "rule": f.rule,
                "file": file,
                "kind": f.kind,
                "namespace": f.namespace,
                "name": f.name,
                "message": f.message,
            }
            for f, file in entries
        ),
        key=lambda row: (row["file"], row["rule"], row["kind"], row["name"], row["fingerprint"]),
    )
    document = {"version": BASELINE_VERSION, "tool": "dynamo-render", "findings": rows}
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def parse_baseline(data: bytes, file: str) -> Counter[str]:
    """The fingerprints of a baseline file (a multiset). InputError when it is not one."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not a baseline file (JSON from --write-baseline): {exc}", file) from None
    rows = document.get("findings") if isinstance(document, Mapping) else None
    if (
        not isinstance(document, Mapping)
        or document.get("version") != BASELINE_VERSION
        or not isinstance(rows, list)
    ):
        raise InputError(
            f"not a baseline file: expected version {BASELINE_VERSION} and a findings list"
            " (write one with --write-baseline)",
            file,
        )
    prints: Counter[str] = Counter()
    for row in rows:
        value = row.get("fingerprint") if isinstance(row, Mapping) else None
        if not isinstance(value, str):
            raise InputError("a baseline finding without a fingerprint", file)
        prints[value] += 1
    return prints
