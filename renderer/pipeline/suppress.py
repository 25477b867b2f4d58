"""The I/O of suppressions (`renderer.lint.suppress`): read the comments of the files that
have findings and the baseline file, split a lint result into findings and suppressed
ones, and write a baseline.

Only a file with a finding is read again, and only a file holding the marker text is
searched line by line: a clean run, or a run without suppressions, costs one byte search
per file with findings.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from renderer.errors import InputError
from renderer.lint.rules import RULE_MODULES
from renderer.record import replace
from renderer.source.files import STDIN_NAME, read_file
from renderer.source.text import decode_input

if TYPE_CHECKING:
    from renderer.lint.engine import LintResult
    from renderer.lint.finding import Finding
    from renderer.lint.suppress import Comment, Suppressed

_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _comments(file: str, max_bytes: int) -> list[Comment]:
    from renderer.lint.suppress import MARKER, parse_comments  # noqa: PLC0415 - suppression parsing only for a file with findings

    if file == STDIN_NAME:
        return []  # read once, already consumed: stdin carries no suppressions
    data = read_file(file, max_bytes)
    if MARKER not in data and data[:2] not in _UTF16_BOMS:
        return []
    text, _ = decode_input(data, file, max_bytes)
    return parse_comments(text, file, RULE_MODULES)


def baseline_name(file: str, baseline_dir: str) -> str:
    """A finding's file as a baseline names it: relative to the baseline's folder, with
    forward slashes, so the same checkout matches from any working directory."""
    try:
        relative = os.path.relpath(os.path.realpath(file), baseline_dir)
    except ValueError:  # another drive (Windows)
        relative = file
    return PurePath(relative).as_posix()


def _baseline_dir(path: str) -> str:
    return str(Path(os.path.realpath(path)).parent)


def read_baseline(path: str, max_bytes: int) -> Counter[str]:
    from renderer.lint.suppress import parse_baseline  # noqa: PLC0415 - suppression parsing only with a baseline

    data = read_file(path, max_bytes)
    if len(data) > max_bytes:
        raise InputError(
            f"baseline is larger than the size limit of {max_bytes} bytes (--max-bytes)", path
        )
    return parse_baseline(data, path)


def apply_suppressions(result: LintResult, *, baseline: str | None, max_bytes: int) -> LintResult:
    """`result` with the findings a comment or the baseline accepts moved to `suppressed`.
    A baseline is read (and a bad one refused) even when there is nothing to suppress."""
    prints = read_baseline(baseline, max_bytes) if baseline is not None else Counter()
    if not result.findings:
        return result
    from renderer.lint.suppress import EXTERNAL, IN_SOURCE, Suppressed, fingerprint, match_comment  # noqa: PLC0415 - suppression parsing only for a lint with findings

    by_file: dict[str, list[Comment]] = {}
    for file in dict.fromkeys(f.file for f in result.findings):
        by_file[file] = _comments(file, max_bytes)
    base_dir = _baseline_dir(baseline) if baseline is not None else ""
    kept: list[Finding] = []
    suppressed: list[Suppressed] = list(result.suppressed)
    for finding in result.findings:
        comment = match_comment(finding, by_file[finding.file])
        if comment is not None:
            where = f"{finding.file}:{comment.line}"
            suppressed.append(Suppressed(finding, IN_SOURCE, comment.reason, where))
            continue
        if baseline is not None and prints:
            key = fingerprint(finding, baseline_name(finding.file, base_dir))
            if prints[key] > 0:
                prints[key] -= 1  # one entry accepts one finding
                reason = f"in the baseline {baseline}"
                suppressed.append(Suppressed(finding, EXTERNAL, reason, baseline))
                continue
        kept.append(finding)
    return replace(result, findings=kept, suppressed=suppressed)


def write_baseline(path: str, result: LintResult) -> int:
    """Write the baseline of `result`'s findings to `path`; returns how many it holds."""
    from renderer.atomic import write_file  # noqa: PLC0415 - writing only for --write-baseline
    from renderer.lint.suppress import baseline_document  # noqa: PLC0415 - writing only for --write-baseline

    base_dir = _baseline_dir(path)
    entries = [(f, baseline_name(f.file, base_dir)) for f in result.findings]
    write_file(path, baseline_document(entries).encode("ascii"))
    return len(entries)
