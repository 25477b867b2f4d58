"""A small deterministic YAML emitter for rendered Kubernetes objects.

Written by hand on purpose: the render path must not import ruamel's round-trip
machinery (start-up time), and the output must be byte-stable across library versions.

Layout: block style, 2-space indentation, sequences indented under their key, mapping
keys in dict insertion order (renderers build objects in the Kubernetes-conventional
order apiVersion, kind, metadata, spec; label and annotation maps are sorted by the
renderer). Empty mappings and sequences are `{}` and `[]`.

Scalars are written so that Kubernetes' YAML reader (go-yaml v2, YAML 1.1 rules) reads
back exactly the value that was emitted:

- a string is plain only when it starts with a letter, `/` or `_`, holds only a
  conservative set of characters, is none of the YAML 1.1 null/bool words
  (`yes`, `on`, `null`, `~`, ...) and holds no `: ` and no trailing `:`. Everything
  else (`"true"`, `"010"`, `"1e3"`, `"0x1F"`, `"1_000"`, timestamps, `""`, leading or
  trailing space, `#`, indicators, newlines, non-ASCII) is double-quoted with escapes,
  except printable-ASCII text holding `"` (JSON), which is single-quoted;
- ints and bools as YAML 1.1 reads them; floats always with a `.` or an exponent form
  go-yaml reads as a float (NaN and infinities are refused: JSON has none);
  `None` as `null`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

__all__ = ["dump_object", "dump_stream", "format_scalar"]

# Characters a plain scalar may hold. Deliberately narrow: anything outside is quoted.


@cache
def _plain() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z_/][A-Za-z0-9_./=+\-@%,:() ]*\Z")


# YAML 1.1 words go-yaml v2 resolves to null or bool (compared lower-cased: quoting a
# mixed-case spelling that would have stayed a string is harmless).
_SPECIAL_WORDS = frozenset(
    {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "nan", "inf"}
)
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\v": "\\v",
    "\f": "\\f",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _needs_quotes(value: str) -> bool:
    if not _plain().match(value):
        return True
    if value.lower() in _SPECIAL_WORDS:
        return True
    # ": " starts a mapping value, a trailing ":" too; a trailing space would be dropped.
    return ": " in value or value.endswith((":", " "))


def _escape_char(ch: str) -> str:
    known = _ESCAPES.get(ch)
    if known is not None:
        return known
    code = ord(ch)
    if code < 0x20 or 0x7F <= code < 0xA0 or code in (0xFEFF, 0xFFFE, 0xFFFF):
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    if 0xD800 <= code <= 0xDFFF:
        # A lone surrogate cannot be written as UTF-8; the reader never produces one,
        # but fail loudly rather than emit a file Kubernetes would reject.
        raise ValueError(f"cannot emit lone surrogate U+{code:04X}")
    return ch


@cache
def _quote_needed() -> re.Pattern[str]:
    return re.compile('[\\\\"\x00-\x1f\x7f-\xa0\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')


@cache
def _printable_ascii() -> re.Pattern[str]:
    return re.compile(r"[\x20-\x7e]*\Z")


def _quote(value: str) -> str:
    if '"' in value and _printable_ascii().match(value):
        # JSON in an annotation reads far better single-quoted ('' is the only escape).
        return "'" + value.replace("'", "''") + "'"
    return '"' + _quote_needed().sub(lambda m: _escape_char(m.group()), value) + '"'


def _format_float(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        # JSON (and so a Kubernetes object) cannot hold these.
        raise ValueError(f"cannot emit {value!r}: Kubernetes objects are JSON")
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}e{exponent}"
    return text


def format_scalar(value: Any) -> str:
    """One scalar as YAML text that go-yaml v2 reads back as the same value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _format_float(value)
    if isinstance(value, str):
        return _quote(value) if _needs_quotes(value) else value
    raise TypeError(f"cannot emit a value of type {type(value).__name__}")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"mapping keys must be strings, not {type(key).__name__}")
    return format_scalar(key)


def _is_collection(value: Any) -> bool:
    return isinstance(value, Mapping | list | tuple) and len(value) > 0


def _inline(value: Any) -> str:
    """A value that fits after `key: ` or `- ` on the same line."""
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return format_scalar(value)


def _emit_mapping(mapping: Mapping[str, Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        if _is_collection(value):
            out.append(f"{pad}{_key(key)}:\n")
            _emit_block(value, indent + 2, out)
        else:
            out.append(f"{pad}{_key(key)}: {_inline(value)}\n")


def _emit_sequence(items: Sequence[Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for item in items:
        if not _is_collection(item):
            out.append(f"{pad}- {_inline(item)}\n")
            continue
        # Emit the item at indent+2, then fold its first line onto the "- " marker.
        nested: list[str] = []
        _emit_block(item, indent + 2, nested)
        nested[0] = f"{pad}- {nested[0][indent + 2 :]}"
        out.extend(nested)


def _emit_block(value: Any, indent: int, out: list[str]) -> None:
    if isinstance(value, Mapping):
        _emit_mapping(value, indent, out)
    else:
        _emit_sequence(value, indent, out)


def dump_object(obj: Mapping[str, Any]) -> str:
    """One object as a YAML document text (no `---`), ending in a newline."""
    if not obj:
        return "{}\n"
    out: list[str] = []
    _emit_mapping(obj, 0, out)
    return "".join(out)


def _comment_safe(text: str) -> str:
    # A file name with a newline must not end the comment and inject YAML.
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def source_comment(source_name: str) -> str:
    """The `# Source: <file>` line that precedes each rendered document."""
    return f"# Source: {_comment_safe(source_name)}\n"


def dump_stream(items: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """Several objects as one stream: each preceded by `# Source: <name>`, `---` between."""
    parts = [source_comment(name) + dump_object(obj) for name, obj in items]
    return "---\n".join(parts)
