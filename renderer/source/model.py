"""What the input layer hands on: plain values that know where they came from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from renderer.record import Record

# A path into an object: mapping keys are str, sequence indexes are int.
Path = tuple[str | int, ...]


class Mark(NamedTuple):
    """A 1-based line and column in a file (ordered, hashable, immutable).

    A NamedTuple rather than a frozen dataclass: the reader records two of these per
    node, and tuple construction is several times cheaper.
    """

    line: int
    column: int


class SourceObject(Record):
    """One Kubernetes object read from YAML exactly as Kubernetes would read it.

    `data` holds plain JSON-like values (dict, list, str, int, float, bool, None),
    resolved with the go-yaml v2 rules sigs.k8s.io/yaml uses. `key_marks` and
    `value_marks` map a path to the position of the mapping key and of the value.
    """

    data: dict[str, Any]
    file: str
    doc_index: int
    item_index: int | None  # position inside a `kind: List`, else None
    key_marks: dict[Path, Mark]
    value_marks: dict[Path, Mark]
    # Only filled when the reader is asked for spans (`spans=True`): for each scalar value,
    # (start, end, style) with character offsets into the decoded file text, end exclusive,
    # and style "" (plain), "'", '"', "|" or ">". For in-place rewrites (lint --fix).
    value_spans: dict[Path, tuple[int, int, str]]

    # Its own __init__: one is made per object read, and the generic one costs about three
    # times the instructions (bench/bench_lint.py's corpus).
    def __init__(  # noqa: PLR0917 - the record's fields, in order
        self,
        data: dict[str, Any],
        file: str,
        doc_index: int = 0,
        item_index: int | None = None,
        key_marks: dict[Path, Mark] | None = None,
        value_marks: dict[Path, Mark] | None = None,
        value_spans: dict[Path, tuple[int, int, str]] | None = None,
    ) -> None:
        self.data = data
        self.file = file
        self.doc_index = doc_index
        self.item_index = item_index
        self.key_marks = {} if key_marks is None else key_marks
        self.value_marks = {} if value_marks is None else value_marks
        self.value_spans = {} if value_spans is None else value_spans

    @property
    def api_version(self) -> str:
        value = self.data.get("apiVersion")
        return value if isinstance(value, str) else ""

    @property
    def kind(self) -> str:
        value = self.data.get("kind")
        return value if isinstance(value, str) else ""

    @property
    def metadata(self) -> Mapping[str, Any]:
        value = self.data.get("metadata")
        return value if isinstance(value, dict) else {}

    @property
    def name(self) -> str:
        value = self.metadata.get("name")
        return value if isinstance(value, str) else ""

    @property
    def namespace(self) -> str:
        value = self.metadata.get("namespace")
        return value if isinstance(value, str) else ""

    def mark(self, path: Path, *, key: bool = True) -> Mark:
        """Position of `path` (its key, or its value), else of its nearest recorded ancestor."""
        marks = self.key_marks if key else self.value_marks
        probe = tuple(path)
        while probe:
            found = marks.get(probe) or self.key_marks.get(probe) or self.value_marks.get(probe)
            if found is not None:
                return found
            probe = probe[:-1]
        return self.value_marks.get((), Mark(1, 1))

    def where(self, path: Path = (), *, key: bool = True) -> str:
        """`file:line:column` of `path`, for messages."""
        m = self.mark(path, key=key)
        return f"{self.file}:{m.line}:{m.column}"
