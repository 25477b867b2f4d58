"""The operator's golden-manifest matcher (internal/testing/golden, pinned) on parsed data.

The upstream cluster goldens (tests/operator/goldens/upstream/) are contracts, not plain
objects: mappings are strict unless ``$strict: false``; scalar directives ``$ignore`` /
``$exists`` (present, any scalar), ``$notexists``, ``$glob:`` (Go path.Match),
``$pattern:`` (anchored Go regexp), ``$var:<name>`` (a caller variable); a one-key mapping
``{$ignore: true}`` etc. stands for the same on a mapping value; sequences match exactly.
"""

from __future__ import annotations

import re
from typing import Any

DIRECTIVES = ("$ignore", "$exists", "$notexists")


def _is_not_exists(value: Any) -> bool:
    return value in ("$notexists", {"$notexists": True})


def _glob_regex(glob: str) -> str:
    """path.Match as a regex: ``*`` and ``?`` never cross ``/``; ``[...]`` classes kept."""
    out = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.index("]", i + 1)
            body = glob[i + 1 : end].replace("^", "\\^")
            if body.startswith("\\^"):
                body = "^" + body[2:]
            out.append(f"[{body}]")
            i = end
        elif char == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def match(expected: Any, actual: Any, variables: dict[str, str], path: str = "") -> list[str]:
    """Mismatches between an upstream contract and an object (empty: it matches)."""
    if isinstance(expected, dict) and len(expected) == 1:
        ((key, value),) = expected.items()
        if key in DIRECTIVES and value is True:
            return [f"{path}: field exists"] if key == "$notexists" else []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: {actual!r} is not a mapping"]
        strict = expected.get("$strict", True)
        fields = {
            ("$strict" if k == "$$strict" else k): v for k, v in expected.items() if k != "$strict"
        }
        out: list[str] = []
        for name, value in fields.items():
            sub = f"{path}.{name}"
            if name not in actual:
                if not _is_not_exists(value):
                    out.append(f"{sub}: field does not exist")
                continue
            if _is_not_exists(value):
                out.append(f"{sub}: field exists")
                continue
            out += match(value, actual[name], variables, sub)
        if strict:
            out += [
                f"{path}.{name}: unexpected field"
                for name in actual
                if name not in fields or _is_not_exists(fields[name])
            ]
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: sequence {actual!r} does not match {expected!r}"[:400]]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out += match(e, a, variables, f"{path}[{i}]")
        return out
    return _match_scalar(expected, actual, variables, path)


def _match_scalar(expected: Any, actual: Any, variables: dict[str, str], path: str) -> list[str]:
    if isinstance(expected, str):
        if expected.startswith("$var:"):
            want = variables[expected[len("$var:") :]]
            return [] if actual == want else [f"{path}: {actual!r} != variable {want!r}"]
        if expected in ("$ignore", "$exists"):
            ok = not isinstance(actual, dict | list)
            return [] if ok else [f"{path}: expected a scalar"]
        if expected == "$notexists":
            return [f"{path}: field exists"]
        if expected.startswith("$glob:"):
            pattern = _glob_regex(expected[len("$glob:") :])
            ok = isinstance(actual, str) and re.fullmatch(pattern, actual) is not None
            return [] if ok else [f"{path}: {actual!r} does not match {expected!r}"]
        if expected.startswith("$pattern:"):
            pattern = expected[len("$pattern:") :]
            ok = isinstance(actual, str) and re.fullmatch(f"(?:{pattern})", actual) is not None
            return [] if ok else [f"{path}: {actual!r} does not match {expected!r}"]
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: value is {actual!r}, want {expected!r}"]
    return []
