#!/usr/bin/env python3
"""The operator port's manifest (renderer/operator/PORT.tsv) and the first step of a bump.

The manifest lists every function and method of the pinned operator's Go files that the
port draws on, one a line: the Go file (relative to deploy/operator), the function
(``Name`` or ``Receiver.Name``) and its Python counterpart (``module:qualname``) or
``not ported: <reason>``. tests/operator/test_port_manifest.py checks it against the
pinned source (../shared/operator-oracle/operator-source.tar.xz).

Commands:

    python scripts/operator_port.py changed --git-dir MIRROR OLD NEW
        The manifest's functions whose Go source differs between two commits of the
        upstream history (read with ``git --git-dir=MIRROR show REV:deploy/operator/PATH``),
        and the functions of the manifest's files that one side has and the other has not.
        One line a function: file, function, ``changed``/``added``/``removed`` (as seen
        going from OLD to NEW), then its manifest entry or ``(not in the manifest)``; a
        file one side lacks also gets a ``(file missing at REV)`` line. Exit 0, the list on
        stdout (empty when nothing the port draws on changed); exit 2 when OLD or NEW is
        not a commit of MIRROR.

    python scripts/operator_port.py functions --source DIR [GO_FILE ...]
        Every function of those Go files (default: the manifest's files) under DIR (an
        unpacked deploy/operator module), one ``file<TAB>function`` a line: what a new
        manifest row starts from.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "renderer" / "operator" / "PORT.tsv"
UPSTREAM_PREFIX = "deploy/operator/"
NOT_PORTED = "not ported: "

# A top-level declaration: `func Name(`, `func (r *Recv) Name(`, generics allowed.
_FUNC = re.compile(
    r"^func (?:\((?:\w+ )?\*?(?P<recv>\w+)(?:\[[^\]]*\])?\) )?(?P<name>\w+)(?:\[[^\]]*\])?\(",
    re.M,
)


def go_functions(text: str) -> dict[str, str]:
    """Each top-level function of a gofmt'ed Go file: its key (``Name`` or ``Recv.Name``)
    and its source text, from its doc comment's first line to its closing brace."""
    lines = text.splitlines(keepends=True)
    found: dict[str, str] = {}
    for match in _FUNC.finditer(text):
        key = f"{match['recv']}.{match['name']}" if match["recv"] else match["name"]
        first = text.count("\n", 0, match.start())
        begin = first
        while begin > 0 and lines[begin - 1].startswith("//"):
            begin -= 1
        end = first
        if not lines[first].rstrip().endswith("}"):
            end = next(
                (i for i in range(first + 1, len(lines)) if lines[i].startswith("}")),
                len(lines) - 1,
            )
        if key in found:  # an init() per file is legal Go; keep them apart
            key = f"{key}#{first + 1}"
        found[key] = "".join(lines[begin : end + 1])
    return found


class Row:
    """One manifest line."""

    def __init__(self, go_file: str, function: str, python: str) -> None:
        self.go_file = go_file
        self.function = function
        self.python = python

    @property
    def ported(self) -> bool:
        return not self.python.startswith(NOT_PORTED)

    def line(self) -> str:
        return f"{self.go_file}\t{self.function}\t{self.python}\n"


def read_manifest(path: Path = MANIFEST) -> list[Row]:
    """The manifest's rows (comments and blank lines skipped)."""
    rows: list[Row] = []
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{path}:{number}: want three tab-separated fields: {raw!r}")
        rows.append(Row(*parts))
    return rows


def _git_show(git_dir: str, rev: str, go_file: str) -> str | None:
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{rev}:{UPSTREAM_PREFIX}{go_file}"],
        capture_output=True,
        check=False,
    )
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def check_commit(git_dir: str, rev: str) -> None:
    """ValueError unless `rev` names a commit of `git_dir` (else every file would read as
    missing at it, which looks like a real answer)."""
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"{rev!r} is not a commit of {git_dir}")


def changed(git_dir: str, old: str, new: str, rows: list[Row]) -> Iterator[str]:
    """What the bump from `old` to `new` must look at, one line each, manifest order."""
    by_file: dict[str, list[Row]] = {}
    for row in rows:
        by_file.setdefault(row.go_file, []).append(row)
    for go_file, file_rows in by_file.items():
        before, after = _git_show(git_dir, old, go_file), _git_show(git_dir, new, go_file)
        if before is None and after is None:
            yield f"{go_file}\t(file missing at {old} and {new})"
            continue
        if before == after:
            continue
        if before is None or after is None:
            yield f"{go_file}\t(file missing at {old if before is None else new})"
        old_funcs = go_functions(before) if before is not None else {}
        new_funcs = go_functions(after) if after is not None else {}
        for row in file_rows:
            was, now = old_funcs.get(row.function), new_funcs.get(row.function)
            if was == now:
                continue
            what = "removed" if now is None else "added" if was is None else "changed"
            yield f"{go_file}\t{row.function}\t{what}\t{row.python}"
        listed = {row.function for row in file_rows}
        for name in new_funcs:
            if name not in listed and name not in old_funcs:
                yield f"{go_file}\t{name}\tadded\t(not in the manifest)"
        for name in old_funcs:
            if name not in listed and name not in new_funcs:
                yield f"{go_file}\t{name}\tremoved\t(not in the manifest)"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    diff = sub.add_parser("changed", help="manifest functions whose Go source changed")
    diff.add_argument("--git-dir", required=True, help="a git mirror of ai-dynamo/dynamo")
    diff.add_argument("old")
    diff.add_argument("new")
    listing = sub.add_parser("functions", help="every function of Go files")
    listing.add_argument("--source", required=True, type=Path, help="deploy/operator, unpacked")
    listing.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    rows = read_manifest()
    if args.command == "changed":
        try:
            check_commit(args.git_dir, args.old)
            check_commit(args.git_dir, args.new)
        except ValueError as exc:
            print(f"operator_port.py: {exc}", file=sys.stderr)
            return 2
        for line in changed(args.git_dir, args.old, args.new, rows):
            print(line)
        return 0
    files = args.files or sorted({row.go_file for row in rows})
    for go_file in files:
        for name in go_functions((args.source / go_file).read_text("utf-8")):
            print(f"{go_file}\t{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
