"""The YAML emitter: quoting YAML 1.1 look-alikes, layout, and a round trip through the reader."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.source import load_bytes
from renderer.yamlout import dump_object, dump_stream, format_scalar


def _read_back(value: Any) -> Any:
    """Emit {"v": value} inside an object and read it back as Kubernetes would."""
    text = dump_object({"apiVersion": "v1", "kind": "ConfigMap", "v": value})
    return load_bytes(text.encode("utf-8"), "out.yaml")[0].data["v"]


# Strings that YAML 1.1 (go-yaml v2, what Kubernetes reads with) would turn into
# something else if written plain.
LOOKALIKES = [
    "true",
    "True",
    "TRUE",
    "false",
    "yes",
    "Yes",
    "no",
    "NO",
    "y",
    "n",
    "on",
    "Off",
    "null",
    "Null",
    "~",
    "",
    "010",
    "0o17",
    "0x1F",
    "0b101",
    "1_000",
    "1e3",
    "1E3",
    "-1",
    "+1",
    ".5",
    "1.",
    ".inf",
    "-.Inf",
    ".nan",
    "12:30",
    "190:20:30",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    " lead",
    "trail ",
    "a: b",
    "a #b",
    "key:",
    "-",
    "- x",
    "?",
    "? x",
    ":x",
    "[a]",
    "{a}",
    "*alias",
    "&anchor",
    "!tag",
    "|",
    ">",
    "'q'",
    '"q"',
    "%directive",
    "@at",
    "`tick",
    "#comment",
    "multi\nline",
    "tab\there",
    "nul\0byte",
    "bell\a",
    "del\x7f",
    "nel\x85",
    "nbsp\xa0x",
    "bom\ufeff",
    "ls\u2028ps\u2029",
    "é",
    "日本",
    "emoji \U0001f600",
    "back\\slash",
    'json {"a": 1}',
]


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalike_strings_stay_strings(text: str) -> None:
    assert _read_back(text) == text


@pytest.mark.parametrize(
    ("text", "emitted"),
    [
        ("true", '"true"'),
        ("yes", '"yes"'),
        ("on", '"on"'),
        ("010", '"010"'),
        ("1e3", '"1e3"'),
        ("0x1F", '"0x1F"'),
        ("1_000", '"1_000"'),
        ("null", '"null"'),
        ("~", '"~"'),
        ("2001-12-14", '"2001-12-14"'),
        ("", '""'),
        (" x", '" x"'),
        ("a: b", '"a: b"'),
        ("a #b", '"a #b"'),
        ("line\nbreak", '"line\\nbreak"'),
        ('{"a":"b"}', '\'{"a":"b"}\''),
        ("plain-text", "plain-text"),
        (
            "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1",
            "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1",
        ),
        ("v1/uid/1/abc", "v1/uid/1/abc"),
    ],
)
def test_quoting(text: str, emitted: str) -> None:
    assert format_scalar(text) == emitted


@pytest.mark.parametrize(
    "value", [0, 1, -1, 2**63 - 1, -(2**63), True, False, None, 1.5, -0.25, 1e20, 1e-7, 0.1]
)
def test_non_strings_round_trip(value: Any) -> None:
    got = _read_back(value)
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_refuses_values_json_cannot_hold(value: float) -> None:
    with pytest.raises(ValueError, match="JSON"):
        format_scalar(value)


def test_layout() -> None:
    obj = {
        "apiVersion": "v1",
        "kind": "X",
        "metadata": {"name": "a", "labels": {}},
        "list": [1, {"k": "v", "m": [2]}, [3, 4], []],
    }
    assert dump_object(obj) == (
        "apiVersion: v1\n"
        "kind: X\n"
        "metadata:\n"
        "  name: a\n"
        "  labels: {}\n"
        "list:\n"
        "  - 1\n"
        "  - k: v\n"
        "    m:\n"
        "      - 2\n"
        "  - - 3\n"
        "    - 4\n"
        "  - []\n"
    )


def test_stream() -> None:
    text = dump_stream([("a.yaml", {"kind": "A"}), ("dir/b\nc.yaml", {"kind": "B"})])
    # A newline in a file name cannot break out of the comment.
    assert text == "# Source: a.yaml\nkind: A\n---\n# Source: dir/b?c.yaml\nkind: B\n"


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
)
_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=["Cs"]), max_size=8), children, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_round_trip_property(value: Any) -> None:
    """Whatever the renderer emits, Kubernetes' YAML reader reads back the same value."""
    assert _read_back(value) == value


@settings(max_examples=100, deadline=None)
@given(_values)
def test_deterministic(value: Any) -> None:
    obj = {"apiVersion": "v1", "kind": "X", "v": value}
    assert dump_object(obj) == dump_object(obj)
