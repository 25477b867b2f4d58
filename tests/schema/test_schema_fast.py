"""renderer.schema.fast answers exactly as jsonschema's Draft202012Validator, or not at all.

The fast path lets lint and render skip importing jsonschema for valid objects, so it must
never call valid what jsonschema calls invalid (or the reverse, which would cost only time
but would still be a wrong answer). Checked on every example, good and broken fixture,
vector, and on generated mutations of them.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from fractions import Fraction
from numbers import Number
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from paths import REPO, TESTS, VECTORS

from renderer.schema import BUNDLED, bundled_schema
from renderer.schema.check import without_nulls
from renderer.schema.fast import _number, is_valid
from renderer.source import load_paths

FILES = sorted(
    [
        *(TESTS / "schema-good").glob("*.yaml"),
        *(TESTS / "schema-broken").glob("*.yaml"),
        *(VECTORS).glob("*.input.yaml"),
        *(REPO / "examples").rglob("*.yaml"),
    ]
)


def _objects() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in FILES:
        for obj in load_paths([str(path)], max_bytes=1 << 24, allow_empty=True):
            if (obj.api_version, obj.kind) in BUNDLED:
                found.append((f"{path.relative_to(REPO)}#{obj.doc_index}", obj.data))
    return found


OBJECTS = _objects()


def _schema(data: dict[str, Any]) -> dict[str, Any]:
    schema = bundled_schema(data["apiVersion"], data["kind"])
    assert schema is not None
    return schema


def _jsonschema_valid(data: Any, schema: dict[str, Any]) -> bool:
    return bool(Draft202012Validator(schema).is_valid(data))


def test_the_fixtures_cover_every_bundled_schema_valid_and_invalid() -> None:
    answers = [((d["apiVersion"], d["kind"]), _jsonschema_valid(d, _schema(d))) for _, d in OBJECTS]
    assert {key for key, ok in answers if ok} == set(BUNDLED)
    assert sum(1 for _, ok in answers if not ok) >= 20  # the broken fixtures


@pytest.mark.parametrize(("name", "data"), OBJECTS, ids=[name for name, _ in OBJECTS])
def test_fixture_answer_is_jsonschemas(name: str, data: dict[str, Any]) -> None:
    schema = _schema(data)
    # the bundled schemas stay inside the mirrored subset: always an answer
    assert is_valid(data, schema) is _jsonschema_valid(data, schema)
    # and with nulls read as absent, the answer jsonschema gives for the pruned copy
    assert is_valid(data, schema, nulls_absent=True) is _jsonschema_valid(
        without_nulls(data), schema
    )


def _answers_agree(data: Any, schema: dict[str, Any]) -> None:
    """Both modes of the fast path against jsonschema (None is allowed: it asks jsonschema)."""
    for nulls_absent, exact in ((False, data), (True, without_nulls(data))):
        answer = is_valid(data, schema, nulls_absent=nulls_absent)
        if answer is not None:
            assert answer is _jsonschema_valid(exact, schema), (nulls_absent, data)


# Values that probe the type rules jsonschema is particular about.
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2147483647, 2147483648, -2147483649, 1.0, 1.5, -0.0, 2.0**63]),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(
        [
            "",
            "Auto",
            "auto",
            "vllm",
            "Ready",
            "v1/uid/1/" + "0" * 64,
            "v1/uid/1/" + "0" * 64 + "\n",
            "v1/uid/01/" + "0" * 64,
            "nvidia.com/v1beta1",
        ]
    ),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


@st.composite
def _mutated(draw: st.DrawFn) -> dict[str, Any]:
    _, original = draw(st.sampled_from(OBJECTS))
    data: dict[str, Any] = copy.deepcopy(original)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = [p for p in _paths(data) if len(p) >= 2]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = data
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(_VALUES)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "name", "replicas", "mode", "x"]))] = draw(
                _VALUES
            )
        else:
            parent.append(draw(_VALUES))
    return data


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_objects_get_jsonschemas_answer(data: dict[str, Any]) -> None:
    _answers_agree(data, _schema(data))


# Wrong types, nulls and empty containers, put in place of a value or beside it.
_REPLACEMENTS: list[Any] = [None, "x", 7, 1.5, True, [], {}, [None], {"a": None}, "", -1]


def _at(data: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    return parent, path[-1]


def _systematic(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every value of `data` removed, nulled and replaced (by a value that rotates through
    `_REPLACEMENTS`), and an unknown field added to every mapping, one change a copy."""
    found = []
    for index, path in enumerate(p for p in _paths(data) if p):
        for action in ("delete", "null", "replace", "add"):
            mutated = copy.deepcopy(data)
            parent, last = _at(mutated, path)
            value = copy.deepcopy(_REPLACEMENTS[index % len(_REPLACEMENTS)])
            if action == "delete":
                del parent[last]
            elif action == "null":
                parent[last] = None
            elif action == "replace":
                parent[last] = value
            elif isinstance(parent[last], dict):
                parent[last]["x-unknown"] = value
            elif isinstance(parent[last], list):
                parent[last].append(value)
            else:
                continue
            found.append(mutated)
    return found


def _null_everywhere(data: Any) -> Any:
    """`data` with a null field beside the fields of every mapping, at every depth."""
    if isinstance(data, dict):
        return {**{k: _null_everywhere(v) for k, v in data.items()}, "x-null": None}
    if isinstance(data, list):
        return [_null_everywhere(v) for v in data]
    return data


# one object per bundled schema, valid, the smallest: every change to it is checked
_BASES = [
    min(
        (
            d
            for _, d in OBJECTS
            if (d["apiVersion"], d["kind"]) == key and _jsonschema_valid(d, _schema(d))
        ),
        key=lambda d: len(_paths(d)),
    )
    for key in sorted(BUNDLED)
]


@pytest.mark.parametrize("base", _BASES, ids=[f"{d['kind']}-{d['apiVersion']}" for d in _BASES])
def test_every_single_change_gets_jsonschemas_answer(base: dict[str, Any]) -> None:
    schema = _schema(base)
    for mutated in _systematic(base):
        _answers_agree(mutated, schema)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "data"), OBJECTS, ids=[name for name, _ in OBJECTS])
def test_every_single_change_to_every_fixture_gets_jsonschemas_answer(
    name: str, data: dict[str, Any]
) -> None:
    schema = _schema(data)
    for mutated in _systematic(data):
        _answers_agree(mutated, schema)


@pytest.mark.parametrize(("name", "data"), OBJECTS, ids=[name for name, _ in OBJECTS])
def test_nulls_at_every_depth_are_absent_fields(name: str, data: dict[str, Any]) -> None:
    schema = _schema(data)
    nulled = _null_everywhere(data)
    # additionalProperties: false rejects x-null unless it is pruned: both modes differ
    assert is_valid(nulled, schema, nulls_absent=True) is _jsonschema_valid(data, schema)
    _answers_agree(nulled, schema)


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "integer"}, 1.0, True),
        ({"type": "number"}, False, False),
        ({"enum": [1]}, True, False),
        ({"enum": [True]}, 1, False),
        ({"const": 0}, 0.0, True),
        ({"pattern": "^a"}, 7, True),
        ({"pattern": "b"}, "abc", True),
        ({"not": {"pattern": "\\s"}}, "a\n", False),
        ({"properties": {"a": False}}, {"b": 1}, True),
        ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}, False),
        ({"additionalProperties": False, "patternProperties": {"^x-": {}}}, {"x-y": 1}, True),
        ({"minimum": 1}, "0", True),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, False),
        ({"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}, "minLength": 2}, "x", False),
    ],
)
def test_keyword_semantics_match_jsonschema(
    schema: dict[str, Any], instance: Any, expected: bool
) -> None:
    assert _jsonschema_valid(instance, schema) is expected
    assert is_valid(instance, schema) is expected


@pytest.mark.parametrize(
    "schema",
    [
        {"uniqueItems": True},
        {"if": {"type": "string"}, "then": {"minLength": 2}},
        {"$id": "https://example.com/s", "type": "object"},
        {"properties": {"a": {"$ref": "other.json#/x"}}},
        {"properties": {"a": {"$ref": "#/$defs/a~1b"}}},
        {"type": "datetime"},
        {"enum": [[1]]},
    ],
)
def test_outside_the_subset_there_is_no_answer(schema: dict[str, Any]) -> None:
    assert is_valid({"a": [1]}, schema) is None


@pytest.mark.parametrize(
    "value",
    [0, -3, 2.5, float("inf"), True, False, None, "1", [], {}, 1j, Decimal("1.5"), Fraction(1, 3)],
    ids=repr,
)
def test_number_is_jsonschemas_number(value: object) -> None:
    # a Number that is not a bool, whether or not the fast path answers without the ABC
    assert _number(value) is (isinstance(value, Number) and not isinstance(value, bool))
