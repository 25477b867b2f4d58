"""Plain record classes: what `@dataclass` gives, without compiling code at import.

`@dataclass` writes each class's `__init__`, `__repr__` and `__eq__` (frozen: also
`__setattr__`, `__delattr__` and `__hash__`) as source text and compiles it when the module
is imported: 3 million instructions a class, 5 million frozen, about a tenth of a cold
one-file lint for the records on its path. A `Record` subclass writes its own `__init__`
(compiled into the module's bytecode like any function) and names its fields in `_fields`;
this base gives the rest as `@dataclass` would:

- `repr`: `Name(field=value, ...)` over `_fields`;
- `==`: same class and equal `_compare` fields (default: `_fields`), else NotImplemented;
  a mutable record is unhashable, as a dataclass with `eq=True`;
- `FrozenRecord`: assignment and deletion raise `FrozenInstanceError` (an AttributeError),
  the hash is that of the compared fields; its `__init__` sets fields with `_set`;
- `replace(record, **changes)`: a copy with some fields changed, as `dataclasses.replace`.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="Record")


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class Record:
    """Base of a mutable record (see the module docstring)."""

    _fields: ClassVar[tuple[str, ...]] = ()  # the __init__ parameters, in order
    _compare: ClassVar[tuple[str, ...] | None] = None  # None: all of `_fields`

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({inner})"

    def _key(self) -> tuple[Any, ...]:
        names = self._fields if self._compare is None else self._compare
        return tuple([getattr(self, name) for name in names])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__ and isinstance(other, Record):
            return self._key() == other._key()
        return NotImplemented

    __hash__: ClassVar[None] = None  # type: ignore[assignment]


class FrozenRecord(Record):
    """Base of an immutable record: fields are set once, by `__init__` through `_set`."""

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._key())


def replace(record: R, **changes: Any) -> R:
    """A copy of `record` with `changes` (field name -> value), as `dataclasses.replace`."""
    unknown = set(changes) - set(record._fields)
    if unknown:
        raise TypeError(f"{type(record).__qualname__} has no field {sorted(unknown)[0]!r}")
    values = {name: getattr(record, name) for name in record._fields}
    values.update(changes)
    return type(record)(**values)
