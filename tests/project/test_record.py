"""renderer.record behaves as @dataclass does for what the records use: each case builds
the same class both ways and compares them (the dataclass is the reference). The records
declare their fields once, in annotations, as the dataclasses do."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, ClassVar

import pytest

from renderer.record import FrozenInstanceError, FrozenRecord, Record, field, replace


@dataclasses.dataclass
class PointDC:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


class Point(Record):
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class NoteDC:
    text: str
    line: int = 1
    extra: tuple[str, ...] = dataclasses.field(default=(), compare=False)


class Note(FrozenRecord):
    text: str
    line: int = 1
    extra: tuple[str, ...] = field(default=(), compare=False)


@dataclasses.dataclass
class TotalDC:
    items: list[int]
    count: int = dataclasses.field(init=False)
    seen: ClassVar[int] = 0

    def __post_init__(self) -> None:
        self.count = len(self.items)


class Total(Record):
    items: list[int]
    count: int = field(init=False)
    seen: ClassVar[int] = 0

    def __init__(self, items: list[int]) -> None:  # computes `count`, as a record may
        self.items = items
        self.count = len(items)


class Labelled(Point):
    label: str = ""


@dataclasses.dataclass
class LabelledDC(PointDC):
    label: str = ""


def _strip(text: str) -> str:
    return text.replace("DC(", "(")


@pytest.mark.parametrize("args", [(1,), (1, 2), (1, 2, ["a"]), (0, -1, [])])
def test_repr_and_equality_match_the_dataclass(args: tuple[Any, ...]) -> None:
    assert repr(Point(*args)) == _strip(repr(PointDC(*args)))
    assert (Point(*args) == Point(*args)) is (PointDC(*args) == PointDC(*args)) is True
    assert (Point(*args) == Point(9)) is (PointDC(*args) == PointDC(9))
    assert Point(*args) != PointDC(*args)  # another class is never equal, as a dataclass


def test_a_default_factory_gives_each_record_its_own_value() -> None:
    a, b = Point(1), Point(1)
    a.tags.append("x")
    assert b.tags == [] == PointDC(1).tags


def test_mutable_records_are_unhashable_like_the_dataclass() -> None:
    with pytest.raises(TypeError):
        hash(PointDC(1))
    with pytest.raises(TypeError):
        hash(Point(1))


def test_frozen_records_compare_and_hash_on_their_compared_fields() -> None:
    assert Note("a", 2, ("x",)) == Note("a", 2, ("y",))
    assert NoteDC("a", 2, ("x",)) == NoteDC("a", 2, ("y",))
    assert hash(Note("a", 2)) == hash(("a", 2)) == hash(NoteDC("a", 2))
    assert repr(Note("a", 2, ("x",))) == _strip(repr(NoteDC("a", 2, ("x",))))


@pytest.mark.parametrize("action", ["set", "delete"])
def test_frozen_records_refuse_assignment_like_the_dataclass(action: str) -> None:
    notes: list[Any] = [Note("a"), NoteDC("a")]
    for note, error in zip(notes, (FrozenInstanceError, AttributeError), strict=True):
        with pytest.raises(error):
            if action == "set":
                note.text = "b"
            else:
                del note.text
    assert issubclass(FrozenInstanceError, AttributeError)


def test_replace_matches_dataclasses_replace() -> None:
    assert replace(Note("a", 2), line=3) == Note("a", 3)
    assert repr(replace(Point(1, 2, ["t"]), y=5)) == _strip(
        repr(dataclasses.replace(PointDC(1, 2, ["t"]), y=5))
    )
    with pytest.raises(TypeError):
        replace(Note("a"), nope=1)
    with pytest.raises(TypeError):
        dataclasses.replace(NoteDC("a"), nope=1)  # type: ignore[call-arg]


def test_records_survive_pickling() -> None:
    # lint workers receive requests and send findings back across processes
    note = Note("a", 2, ("x",))
    again = pickle.loads(pickle.dumps(note))
    assert again == note and again.extra == ("x",)
    point = pickle.loads(pickle.dumps(Point(1, 2, ["t"])))
    assert point == Point(1, 2, ["t"])


_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),  # missing required
    ((1, 2, [], 4), {}),  # too many positional
    ((1,), {"x": 2}),  # repeated
    ((1,), {"z": 2}),  # unknown
    ((), {"y": 1}),  # missing, with a keyword
    ((), {"x": 1, "tags": ["a"]}),
    ((1,), {"tags": ["a"], "y": 3}),
]


@pytest.mark.parametrize(("args", "kwargs"), _CALLS)
def test_arguments_bind_as_the_dataclass_binds_them(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    try:
        expected = repr(PointDC(*args, **kwargs))
    except TypeError:
        with pytest.raises(TypeError):
            Point(*args, **kwargs)
    else:
        assert repr(Point(*args, **kwargs)) == _strip(expected)


def test_fields_come_from_annotations_after_the_bases() -> None:
    assert Point._fields == ("x", "y", "tags")
    assert Labelled._fields == ("x", "y", "tags", "label")
    assert repr(Labelled(1, label="a")) == _strip(repr(LabelledDC(1, label="a")))
    assert Note._fields == ("text", "line", "extra")
    assert Note._compare == ("text", "line")


def test_a_field_outside_init_is_compared_but_not_an_argument() -> None:
    assert Total._fields == ("items",)
    assert Total._compare == ("items", "count")
    assert repr(Total([1])) == "Total(items=[1])"
    total = Total([1, 2])
    assert total.count == TotalDC([1, 2]).count == 2
    assert total == Total([1, 2]) and total != Total([1])
    with pytest.raises(TypeError):
        Total([1], 2)  # type: ignore[call-arg]


def test_declarations_the_dataclass_refuses_are_refused() -> None:
    with pytest.raises(TypeError):

        class Bad(Record):
            x: int = 0
            y: int  # type: ignore[misc]  # the mistake under test

    with pytest.raises(ValueError, match="factory"):

        class Shared(Record):
            tags: list[str] = []  # noqa: RUF012 - the mistake under test
