"""Markdown for the rule reference, built from the rule docstrings.

The README and docs/lint.md embed this text between `<!-- rules:begin -->` and
`<!-- rules:end -->`; a test fails when they drift from the docstrings, and
`scripts/update-docs` rewrites them.
"""

from __future__ import annotations

from renderer.lint.rules import Rule, all_rules

BEGIN = "<!-- rules:begin (generated from the rule docstrings by scripts/update-docs) -->"
END = "<!-- rules:end -->"


def rule_markdown(rule: Rule, level: int = 3) -> str:
    """One rule: a heading with its id and severity, then its docstring.

    Docstring lines indented by four spaces are examples; they become fenced YAML blocks.
    """
    out = [f"{'#' * level} `{rule.id}` ({rule.severity})", ""]
    lines = rule.doc.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("    "):
            out.append(line)
            index += 1
            continue
        block: list[str] = []
        while index < len(lines) and (lines[index].startswith("    ") or not lines[index].strip()):
            block.append(lines[index][4:])
            index += 1
        trailing = 0
        while block and not block[-1].strip():
            block.pop()
            trailing += 1
        out.extend(["```yaml", *block, "```", *([""] * trailing)])
    return "\n".join(out).rstrip() + "\n"


def rules_markdown(level: int = 3) -> str:
    """Every rule, in --list-rules order."""
    return "\n".join(rule_markdown(rule, level) for rule in all_rules())


def replace_section(page: str, level: int = 3) -> str:
    """`page` with the text between the markers replaced by the current rule reference."""
    start = page.index(BEGIN) + len(BEGIN)
    end = page.index(END, start)
    return page[:start] + "\n\n" + rules_markdown(level) + "\n" + page[end:]
