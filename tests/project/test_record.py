"""renderer.record behaves as @dataclass does for what the records use: each case builds
the same class both ways and compares them (the dataclass is the reference)."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from renderer.record import FrozenInstanceError, FrozenRecord, Record, replace


@dataclasses.dataclass
class PointDC:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


class Point(Record):
    _fields = ("x", "y", "tags")

    def __init__(self, x: int, y: int = 0, tags: list[str] | None = None) -> None:
        self.x = x
        self.y = y
        self.tags = [] if tags is None else tags


@dataclasses.dataclass(frozen=True)
class NoteDC:
    text: str
    line: int = 1
    extra: tuple[str, ...] = dataclasses.field(default=(), compare=False)


class Note(FrozenRecord):
    _fields = ("text", "line", "extra")
    _compare = ("text", "line")
    text: str
    line: int
    extra: tuple[str, ...]

    def __init__(self, text: str, line: int = 1, extra: tuple[str, ...] = ()) -> None:
        self._set("text", text)
        self._set("line", line)
        self._set("extra", extra)


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
