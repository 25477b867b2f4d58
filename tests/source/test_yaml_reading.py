"""Every row of yaml-reading.jsonl: our reader agrees with sigs.k8s.io/yaml (go-yaml v2).

Rows where only YAMLToJSONStrict fails (`strict_error`) are decided one by one: a key
written twice in one mapping is rejected (naming both lines); merge-key overrides and
overlapping merges keep working as in Kubernetes' non-strict reader.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from paths import VECTORS

from renderer.errors import InputError
from renderer.source import load_bytes, to_go_json
from renderer.source.reader import iter_values

ROWS = [
    json.loads(line)
    for line in (VECTORS / "yaml-reading.jsonl").read_text(encoding="ascii").splitlines()
]
BY_CASE = {row["case"]: row for row in ROWS}

# strict_error rows we reject: literal duplicate keys (Go's strict reader rejects them too).
REJECTED_DUPLICATES = {
    "dup-top": (1, 2),
    "dup-nested": (2, 4),
    "dup-null-first": (1, 2),
    "dup-flow": (1, 1),
    "dup-int-key": (1, 2),
    "key-collision-bool": (1, 2),  # `true` and `yes` are the same Go key
}
# strict_error rows we accept with the non-strict (Kubernetes) result: merges.
ACCEPTED_MERGES = {
    "dup-merged",
    "dup-merge-list-overlap",
    "merge-single",
    "merge-list",
    "merge-override-before",
    "merge-inline-map",
    "merge-y-key-is-bool",
}


def first_value(yaml_text: str) -> Any:
    """One YAMLToJSON call: the first document only (later ones are never parsed)."""
    return next(iter_values(yaml_text.encode("utf-8"), "case.yaml"), None)


def test_every_strict_row_is_decided() -> None:
    strict = {row["case"] for row in ROWS if "strict_error" in row}
    assert strict == set(REJECTED_DUPLICATES) | ACCEPTED_MERGES


@pytest.mark.parametrize("row", ROWS, ids=[row["case"] for row in ROWS])
def test_row(row: dict[str, Any]) -> None:
    case = row["case"]
    if case in REJECTED_DUPLICATES:
        first, second = REJECTED_DUPLICATES[case]
        with pytest.raises(InputError) as caught:
            first_value(row["yaml"])
        assert "duplicate key" in caught.value.message
        assert f"first set on line {first}" in caught.value.message
        assert caught.value.line == second
        return
    if row["error"] is not None:
        with pytest.raises(InputError) as caught:
            first_value(row["yaml"])
        assert caught.value.line is not None and caught.value.line >= 1
        assert caught.value.column is not None and caught.value.column >= 1
        assert caught.value.message
        return
    got = to_go_json(first_value(row["yaml"]))
    assert got in (row.get("json_alternatives") or [row["json"]])


def test_error_messages_say_what_go_says() -> None:
    """Messages need not be identical, but carry Go's key phrase for the common errors."""
    phrases = {
        "tab-indent": "cannot start any token",
        "esc-slash": "unknown escape character",
        "esc-surrogate": "invalid Unicode character escape code",
        "err-alias-cycle": "contains itself",
        "anchor-undefined": "unknown anchor 'nope'",
        "directive-yaml12": "incompatible YAML document",
        "key-uint64": "uint64",
        "float-nan": "NaN",
        "tag-int-invalid": "cannot decode !!str `abc` as a !!int",
        "merge-non-map": "map merge requires map or sequence of maps",
    }
    for case, phrase in phrases.items():
        with pytest.raises(InputError) as caught:
            first_value(BY_CASE[case]["yaml"])
        assert phrase in caught.value.message, case


def test_positions_of_errors() -> None:
    with pytest.raises(InputError) as caught:
        first_value(BY_CASE["tab-indent"]["yaml"])
    assert (caught.value.line, caught.value.column) == (2, 1)
    with pytest.raises(InputError) as caught:
        first_value(BY_CASE["esc-slash"]["yaml"])
    assert (caught.value.line, caught.value.column) == (1, 6)


# Rule 1 is about a single YAMLToJSON call. Our files are split per document, as kubectl
# does, and every document is read with the same rules.
def test_stream_is_split_per_document() -> None:
    values = list(iter_values(b"a: 1\n---\nb: 0644\n---\nc: yes\n", "s.yaml"))
    assert values == [{"a": 1}, {"b": 420}, {"c": True}]


def test_split_keeps_empty_documents_as_null() -> None:
    values = list(iter_values(BY_CASE["two-docs-first-empty"]["yaml"].encode(), "s.yaml"))
    assert values == [None, {"b": 2}]  # `---`, `---` + `b: 2`: two documents


def test_later_document_errors_are_errors_for_a_stream() -> None:
    # YAMLToJSON never reads document 2; kubectl (and we) read every document.
    text = BY_CASE["two-docs-second-invalid"]["yaml"].encode()
    assert first_value(text.decode()) == {"a": 1}
    with pytest.raises(InputError) as caught:
        list(iter_values(text, "s.yaml"))
    assert caught.value.line == 4


def test_directive_in_later_document_is_checked() -> None:
    with pytest.raises(InputError, match="incompatible YAML document"):
        list(iter_values(b"a: 1\n---\n%YAML 1.2\n---\nb: 2\n", "s.yaml"))
    with pytest.raises(InputError, match="incompatible YAML document"):
        list(iter_values(b"a: 1\n...\n%YAML 1.2\n---\nb: 2\n", "s.yaml"))


INPUT_CASES = [
    json.loads(line)
    for line in (VECTORS / "expected.jsonl").read_text(encoding="ascii").splitlines()
]


@pytest.mark.parametrize("row", INPUT_CASES, ids=[row["case"] for row in INPUT_CASES])
def test_binding_input_files_read_as_go_read_them(row: dict[str, Any]) -> None:
    path = VECTORS / f"{row['case']}.input.yaml"
    (obj,) = load_bytes(path.read_bytes(), path.name)
    assert to_go_json(obj.data) == row["input_json"]
