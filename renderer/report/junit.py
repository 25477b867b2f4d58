"""JUnit XML, the test report Jenkins, GitLab (`artifacts: reports: junit:`) and Azure
Pipelines read, shaped as kubeconform's: one `<testsuite>` per linted file, one
`<testcase>` per object with findings (`Kind/namespace/name`), a `<failure>` when the
object has an error (its rules in `type`, every finding in the body), warnings alone in
`<system-out>`. A file without findings is one passing test case; a skipped file (not
Kubernetes objects) a `<skipped>` one, and so is each suppressed finding (its reason in the
message). Paths are relative to the repository root.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from renderer.errors import report_text
from renderer.report import message_lines, repository_path

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult
    from renderer.lint.finding import Finding


def _case(name: str, classname: str, findings: list[Finding]) -> list[str]:
    errors = [f for f in findings if f.severity == "error"]
    body = "\n".join(
        message_lines(f"{f.line}:{f.column}: {f.severity} [{f.rule}] {f.message}") for f in findings
    )
    head = f"    <testcase name={quoteattr(report_text(name))} classname={quoteattr(classname)}"
    if not findings:
        return [head + "/>"]
    lines = [head + ">"]
    if errors:
        first = errors[0]
        rules = ",".join(dict.fromkeys(f.rule for f in errors))
        message = quoteattr(report_text(f"[{first.rule}] {first.message.partition(chr(10))[0]}"))
        lines.append(f"      <failure message={message} type={quoteattr(rules)}>")
        lines.append(escape(body) + "</failure>")
    else:
        lines.append(f"      <system-out>{escape(body)}</system-out>")
    lines.append("    </testcase>")
    return lines


def render(result: LintResult, *, color: bool = False, root: str | None = None) -> str:
    by_file: dict[str, dict[tuple[str, str, str], list[Finding]]] = {}
    for file in result.files:
        by_file.setdefault(file, {})
    for f in result.findings:
        by_file.setdefault(f.file, {}).setdefault((f.kind, f.namespace, f.name), []).append(f)
    suppressed: dict[str, list[str]] = {}
    for s in result.suppressed:
        f = s.finding
        label = "/".join(p for p in (f.kind, f.namespace, f.name) if p)
        reason = f"[{f.rule}] suppressed: {s.justification}"
        if s.refused:
            reason += " (the cluster still refuses it)"
        suppressed.setdefault(f.file, []).append(
            f"    <testcase name={quoteattr(report_text(label or f.file))}"
            f" classname={quoteattr(report_text(repository_path(f.file, root)))}>\n"
            f"      <skipped message={quoteattr(report_text(reason))}/>\n    </testcase>"
        )
        by_file.setdefault(f.file, {})
    suites: list[str] = []
    total = failures = 0
    for file, objects in by_file.items():
        path = report_text(repository_path(file, root))
        cases: list[str] = []
        failed = 0
        for (kind, namespace, name), findings in objects.items():
            label = "/".join(p for p in (kind, namespace, name) if p) or path
            cases += _case(label, path, findings)
            failed += any(f.severity == "error" for f in findings)
        if not objects:
            cases += _case(path, path, [])
        count = max(1, len(objects))
        total, failures = total + count, failures + failed
        suites.append(
            f'  <testsuite name={quoteattr(path)} tests="{count}" failures="{failed}"'
            f' errors="0" skipped="0">'
        )
        suites += cases
        suites.append("  </testsuite>")
    for file in result.skipped:
        path = report_text(repository_path(file, root))
        total += 1
        suites.append(
            f'  <testsuite name={quoteattr(path)} tests="1" failures="0" errors="0" skipped="1">'
        )
        suites.append(f"    <testcase name={quoteattr(path)} classname={quoteattr(path)}>")
        suites.append('      <skipped message="not Kubernetes objects"/>')
        suites.append("    </testcase>")
        suites.append("  </testsuite>")
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="dynamo-render lint" tests="{total}" failures="{failures}">'
    )
    return "\n".join([head, *suites, "</testsuites>"]) + "\n"
