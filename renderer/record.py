"""Plain record classes: what `@dataclass` gives, without compiling code at import.

`@dataclass` writes each class's `__init__`, `__repr__` and `__eq__` (frozen: also
`__setattr__`, `__delattr__` and `__hash__`) as source text and compiles it when the module
is imported: 3 million instructions a class, 5 million frozen, about a tenth of a cold
one-file lint for the records on its path. A `Record` subclass declares its fields once, as
a dataclass does, with class annotations and defaults:

    class Copy(Record):
        obj: SourceObject
        label: str
        map_entry: str | None = None
        notes: list[str] = field(default_factory=list)

and this base gives the rest, as `@dataclass` would, from code compiled once:

- the fields are the class's annotations (after its bases'), in order; `ClassVar[...]`
  ones are not fields. Under `from __future__ import annotations` they are strings: only
  the names are read, never the types;
- `__init__` takes them positionally or by keyword: a field without a default is required,
  TypeError for a missing, unknown or repeated argument; `field(default_factory=f)` calls
  `f` for each record that is not given the field; `field(init=False)` is not an argument
  (the record's own `__init__` sets it);
- `repr`: `Name(field=value, ...)` over the `__init__` fields;
- `==`: same class and equal compared fields (all, but those with `field(compare=False)`),
  else NotImplemented; a mutable record is unhashable, as a dataclass with `eq=True`;
- `FrozenRecord`: assignment and deletion raise `FrozenInstanceError` (an AttributeError),
  the hash is that of the compared fields;
- `replace(record, **changes)`: a copy with some fields changed, as `dataclasses.replace`.

A record whose `__init__` computes more than that writes its own (a frozen one sets fields
with `_set`), and so does one made per object or document read: the generic `__init__`
costs about three times the instructions of a written-out one. A class that names
`_fields` itself keeps them and reads no annotations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar, cast, dataclass_transform

R = TypeVar("R", bound="_Base")
T = TypeVar("T")

_MISSING: Any = object()
_FACTORY: Any = object()
_NOT_INIT: Any = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class _Field:
    """What `field()` leaves in a class body until `__init_subclass__` reads it."""

    __slots__ = ("compare", "default", "factory", "init")

    def __init__(
        self, default: Any, factory: Callable[[], Any] | None, init: bool, compare: bool
    ) -> None:
        self.default = default
        self.factory = factory
        self.init = init
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], T] | None = None,
    init: bool = True,
    compare: bool = True,
) -> T:
    """A field's options, as `dataclasses.field`: its default or default factory, whether
    `__init__` takes it, whether `==` and the hash look at it."""
    # typed as the field's value, as `dataclasses.field` is
    return cast(T, _Field(default, default_factory, init, compare))


class _Base:
    """What both kinds of record share. (Two bases, not one the other's subclass, so that a
    type checker sees each kind's records as dataclasses of that kind.)"""

    _fields: ClassVar[tuple[str, ...]] = ()  # the __init__ parameters, in order
    _compare: ClassVar[tuple[str, ...]] = ()  # the fields `==` and the hash look at
    _defaults: ClassVar[dict[str, Any]] = {}  # field -> default value
    _factories: ClassVar[dict[str, Callable[[], Any]]] = {}  # field -> default factory
    _names: ClassVar[frozenset[str]] = frozenset()  # `_fields` as a set
    # the fields from `_plain_from` on have plain defaults (no factory): `_plain_tail`
    _plain_from: ClassVar[int] = 0
    _plain_tail: ClassVar[tuple[Any, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        namespace = cls.__dict__
        if "_fields" in namespace:  # named by hand: no annotations read
            cls._names = frozenset(cls._fields)
            cls._plain_from, cls._plain_tail = len(cls._fields), ()
            if "_compare" not in namespace:
                cls._compare = cls._fields
            return
        # dicts as ordered sets: a field redeclared by a subclass keeps its place
        fields = dict.fromkeys(cls._fields)
        compare = dict.fromkeys(cls._compare)
        defaults = dict(cls._defaults)
        factories = dict(cls._factories)
        get = namespace.get
        # the class's own annotations (`inspect.get_annotations` would import inspect)
        for name, annotation in get("__annotations__", {}).items():
            if annotation.__class__ is str:
                if annotation.startswith(("ClassVar", "typing.ClassVar")):
                    continue
            elif getattr(annotation, "__origin__", None) is ClassVar:
                continue
            value = get(name, _MISSING)
            if value.__class__ is _Field:
                value = cls._field_spec(name, value, compare, factories, defaults)
                if value is _NOT_INIT:
                    continue
            else:
                compare[name] = None
            fields[name] = None
            if value is _FACTORY:
                continue
            if value is not _MISSING:
                if value.__class__ in (list, dict, set):
                    raise ValueError(
                        f"{cls.__qualname__}.{name}: a mutable default needs a factory"
                    )
                defaults[name] = value
                factories.pop(name, None)  # a base's factory, replaced
            elif name in defaults or name in factories:
                raise TypeError(f"{cls.__qualname__}: field {name!r} redeclared without default")
        optional = False
        for name in fields:
            if name in defaults or name in factories:
                optional = True
            elif optional:
                raise TypeError(
                    f"{cls.__qualname__}: non-default argument {name!r} follows default argument"
                )
        names = cls._fields = tuple(fields)
        cls._names = frozenset(names)
        plain_from = len(names)
        while plain_from and names[plain_from - 1] in defaults:
            plain_from -= 1
        cls._plain_from = plain_from
        cls._plain_tail = tuple([defaults[name] for name in names[plain_from:]])
        cls._compare = tuple(compare)
        cls._defaults = defaults
        cls._factories = factories

    @classmethod
    def _field_spec(
        cls,
        name: str,
        spec: _Field,
        compare: dict[str, None],
        factories: dict[str, Callable[[], Any]],
        defaults: dict[str, Any],
    ) -> Any:
        """What `__init_subclass__` makes of `name = field(...)`: its default, or _FACTORY
        (its factory is recorded), or _NOT_INIT."""
        value = spec.default
        if value is _MISSING:
            delattr(cls, name)  # no class attribute hides a missing instance one
        else:
            setattr(cls, name, value)
        if spec.compare:
            compare[name] = None
        if not spec.init:
            return _NOT_INIT
        if spec.factory is not None:
            factories[name] = spec.factory
            defaults.pop(name, None)  # a base's default, replaced
            return _FACTORY
        return value

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if kwargs or len(args) != len(fields):
            self.__dict__.update(self._complete(args, kwargs))
        else:  # every field, in order: the common case, kept short
            self.__dict__.update(zip(fields, args))  # noqa: B905 - same lengths

    @classmethod
    def _complete(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterable[tuple[str, Any]]:
        """(field, value) of every field, from `__init__`'s arguments and the defaults."""
        n = len(args)
        if not kwargs and cls._plain_from <= n < len(cls._fields):
            # the first fields given, the rest plain defaults: no dict to merge
            values = args + cls._plain_tail[n - cls._plain_from :]
            return zip(cls._fields, values)  # noqa: B905 - same lengths
        return cls._arguments(args, kwargs).items()

    @classmethod
    def _arguments(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Field -> value from `__init__`'s arguments and the defaults, as a dataclass's
        `__init__` binds them (with its TypeErrors)."""
        fields = cls._fields
        given = dict(zip(fields, args))  # noqa: B905 - more args than fields: refused below
        if kwargs:
            if args and not given.keys().isdisjoint(kwargs):
                cls._refuse(args, kwargs)
            given.update(kwargs)
        values = {**cls._defaults, **given}
        for name, factory in cls._factories.items():
            if name not in values:
                values[name] = factory()
        if len(values) != len(fields) or len(args) > len(fields) or not cls._names >= kwargs.keys():
            cls._refuse(args, kwargs)
        return values

    @classmethod
    def _refuse(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """The TypeError a dataclass's `__init__` raises for these arguments."""
        fields = cls._fields
        name = cls.__qualname__
        if len(args) > len(fields):
            raise TypeError(
                f"{name}() takes {len(fields)} positional arguments but {len(args)} were given"
            )
        for key in kwargs:
            if key in fields[: len(args)]:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            if key not in fields:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
        optional = cls._defaults.keys() | cls._factories.keys()
        missing = [repr(f) for f in fields[len(args) :] if f not in kwargs and f not in optional]
        raise TypeError(
            f"{name}() missing {len(missing)} required argument(s): {', '.join(missing)}"
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({inner})"

    def _key(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._compare])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__ and isinstance(other, _Base):
            return self._key() == other._key()
        return NotImplemented

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # unhashable unless frozen


@dataclass_transform(field_specifiers=(field,))
class Record(_Base):
    """Base of a mutable record (see the module docstring)."""


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class FrozenRecord(_Base):
    """Base of an immutable record: fields are set once, by `__init__` (its own: `_set`)."""

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
