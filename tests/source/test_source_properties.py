"""Properties: the reader fails only with InputError, returns plain values, and the
`kinds` pre-scan gives the same objects as filtering after a full read."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from renderer.errors import InputError
from renderer.source import load_bytes

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID = (
    b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: &l {x: 'y', n: 0644}\n"
    b'data:\n  <<: *l\n  k: "v\\u00e9"\n  list: [1, 2.5, yes, ~, 2025-06-01]\n  text: |\n'
    b"    hello\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret}\n"
)


def plain(value: Any, depth: int = 0) -> bool:
    assert depth < 600
    if isinstance(value, dict):
        return all(type(k) is str and plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v, depth + 1) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def check(data: bytes) -> None:
    try:
        objects = load_bytes(data, "fuzz.yaml", max_alias_nodes=2_000)
    except InputError as error:
        assert error.file == "fuzz.yaml"
        assert error.line is not None and error.line >= 1
        assert error.column is not None and error.column >= 1
        return
    for obj in objects:
        assert plain(obj.data)
        assert obj.kind and obj.api_version


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    check(data)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        chunk = draw(
            st.sampled_from(
                [
                    b":",
                    b"-",
                    b" ",
                    b"\t",
                    b"\n",
                    b"[",
                    b"}",
                    b"&a",
                    b"*a",
                    b"<<",
                    b"!!int",
                    b'"',
                    b"'",
                    b"\\",
                    b"\x00",
                    b"\xff",
                    b"---\n",
                    b"%YAML 1.2\n",
                    b"?",
                    b"|",
                ]
            )
            | st.binary(min_size=1, max_size=3)
        )
        if action == "insert":
            data[at:at] = chunk
        elif action == "delete":
            del data[at : at + len(chunk)]
        else:
            data[at : at + len(chunk)] = chunk
    return bytes(data)


@SETTINGS
@given(mutated())
def test_mutated_valid_yaml(data: bytes) -> None:
    check(data)


DOCUMENTS = [
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    b"apiVersion: v1\nkind: Target\nmetadata: {name: t}\n",
    b"apiVersion: v1\nkind: Target # why\n",
    b"kind: Other\napiVersion: v1\n",
    b"apiVersion: v1\nkind:\n  Target\n",
    b"'kind': Target\napiVersion: v1\n",
    b"{apiVersion: v1, kind: Target}\n",
    b"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Target}\n"
    b"- {apiVersion: v1, kind: B}\n",
    b"# only a comment\n",
    b"",
    b"apiVersion: v1\nb: &b {kind: Target}\n<<: *b\n",
    b"apiVersion: v1\nkind: Other\nnote: |\n  kind: Target\n",
    b'apiVersion: v1\nkind: "Target"\n',
    b"apiVersion: v1\nkind: Other\n...\n",
]


@SETTINGS
@given(st.lists(st.sampled_from(DOCUMENTS), min_size=1, max_size=6), st.booleans())
def test_kinds_prescan_matches_full_read(parts: list[bytes], leading: bool) -> None:
    data = (b"---\n" if leading else b"") + b"---\n".join(parts)
    try:
        everything = load_bytes(data, "s.yaml", spans=True, allow_empty=True)
    except InputError:
        return
    expected = [o for o in everything if o.kind == "Target"]
    assert load_bytes(data, "s.yaml", kinds={"Target"}, spans=True, allow_empty=True) == expected
