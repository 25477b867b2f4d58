"""A quick valid / invalid answer for the bundled schemas, without importing jsonschema.

jsonschema costs about 35 ms to import (half of a single-file lint) and is slow per object,
while almost every committed or rendered object is valid, and then only the answer matters.
`is_valid(instance, schema)` evaluates the small subset of draft 2020-12 that the bundled
schemas use, with jsonschema's exact semantics (a bool is not an integer but 1.0 is, enum
and const compare as jsonschema's `equal`, `pattern` is `re.search`, `$ref` sits beside its
sibling keywords, `format` asserts nothing without a format checker). Anything outside that
subset (another keyword, a remote or escaped `$ref`, an unusual Python type) answers None,
and the caller asks jsonschema, which also words the messages when the answer is False.

Each schema is compiled once into nested closures, one per schema object, each specialised
to its keywords (no keyword is looked up again per instance, a subschema that accepts
anything costs nothing, and a `$ref` is followed at compile time). With `nulls_absent=True`
the answer is jsonschema's for the instance with every null mapping value removed at every
depth (`check.without_nulls`, what the API server validates), without making that copy.
Keywords are not necessarily checked in the schema's order: that changes only whether an
invalid instance answers False or None, never a True.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["is_valid"]

# Keywords that never affect validity (annotations; format without a format checker).
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$comment",
        "$defs",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
# Python types whose jsonschema behaviour is mirrored here (JSON-like data from the loader).
_SCALARS = (str, bool, int, float, type(None))
# Type names whose check is one isinstance: a subschema of only this type is inlined.
_CLASSES: dict[str, type] = {"object": dict, "array": list, "string": str, "boolean": bool}
_OBJECT_KEYWORDS = frozenset(
    {"properties", "patternProperties", "additionalProperties", "required"}
)
_ARRAY_KEYWORDS = frozenset({"items", "minItems", "maxItems"})
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_KEYWORDS = frozenset({"minimum", "maximum"})
_MISSING = object()

Check = Callable[[Any], bool]


class _Unsupported(Exception):
    """The schema or the instance leaves the mirrored subset: ask jsonschema."""


def _accept(instance: Any) -> bool:
    return True


def _reject(instance: Any) -> bool:
    return False


def _raiser(reason: str) -> Check:
    def check(instance: Any) -> bool:
        raise _Unsupported(reason)

    return check


def _is_integer(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


def _number(instance: Any) -> bool:
    """jsonschema's number: a numbers.Number that is not a bool. The read values are ints
    and floats, answered without importing `numbers` (3 million instructions of a cold
    lint); any other type is asked of the ABC."""
    if isinstance(instance, bool):
        return False
    if isinstance(instance, (int, float)):
        return True
    from numbers import Number  # noqa: PLC0415 - numbers costs 3 M instructions of a cold lint; only an unusual type needs it

    return isinstance(instance, Number)


def _is_null(instance: Any) -> bool:
    return instance is None


def _type_check(name: Any) -> Check:
    cls = _CLASSES.get(name) if isinstance(name, str) else None
    if cls is not None:
        return lambda instance: isinstance(instance, cls)
    if name == "integer":
        return _is_integer
    if name == "number":
        return _number
    if name == "null":
        return _is_null
    return _raiser(f"type {name!r}")


def _equal(one: Any, two: Any, *, nulls_absent: bool) -> bool:
    """jsonschema's `equal` for scalars (True is not 1); containers are left to it.

    With nulls pruned, a container is never the same object as it was (it may be a copy)."""
    if one is two and not (nulls_absent and isinstance(one, (dict, list))):
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if not isinstance(one, _SCALARS) or not isinstance(two, _SCALARS):
        raise _Unsupported("container or unusual type in enum/const")
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # `one is two` already matched equal booleans
    return bool(one == two)


class _Node:
    """A compiled subschema: its check, and the class when the check is one isinstance."""

    __slots__ = ("check", "cls", "trivial")

    def __init__(self, check: Check, cls: type | None = None, *, trivial: bool = False) -> None:
        self.check = check
        self.cls = cls
        self.trivial = trivial


_ACCEPT = _Node(_accept, trivial=True)
_REJECT = _Node(_reject)


class _Compiler:
    def __init__(self, root: dict[str, Any], *, nulls_absent: bool) -> None:
        self.root = root
        self.nulls_absent = nulls_absent
        self._done: dict[int, _Node] = {}
        self._busy: dict[int, list[Check]] = {}  # subschemas being compiled (a `$ref` cycle)

    def node(self, schema: Any) -> _Node:
        key = id(schema)
        found = self._done.get(key)
        if found is not None:
            return found
        pending = self._busy.get(key)
        if pending is not None:
            return _Node(_forward(pending))
        cell = [_raiser("unfinished")]
        self._busy[key] = cell
        try:
            built = self._build(schema)
        except (_Unsupported, TypeError, AttributeError, ValueError, KeyError, re.error) as exc:
            built = _Node(_raiser(f"{type(exc).__name__}: {exc}"))
        cell[0] = built.check
        del self._busy[key]
        self._done[key] = built
        return built

    def resolve(self, ref: Any) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#/") or "~" in ref or "%" in ref:
            raise _Unsupported(f"$ref {ref!r}")
        node: Any = self.root
        for step in ref[2:].split("/"):
            if not isinstance(node, dict) or step not in node:
                raise _Unsupported(f"$ref {ref!r}")
            node = node[step]
        return node

    def _build(self, schema: Any) -> _Node:
        if schema is True:
            return _ACCEPT
        if schema is False:
            return _REJECT
        if not isinstance(schema, dict):
            raise _Unsupported("schema is not an object")
        keywords = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
        if not keywords:
            return _ACCEPT
        if set(keywords) == {"$ref"}:
            return self.node(self.resolve(keywords["$ref"]))
        type_name = keywords.pop("type", _MISSING)
        rest = self._generic(keywords)
        if type_name is _MISSING:
            return self._untyped(keywords, rest)
        if not isinstance(type_name, str) or type_name not in _CLASSES:
            return self._untyped(keywords, [_types(type_name), *rest])
        groups = {
            "object": _OBJECT_KEYWORDS,
            "array": _ARRAY_KEYWORDS,
            "string": _STRING_KEYWORDS,
            "boolean": frozenset(),
        }
        # keywords for other instance types assert nothing on an instance of this type
        own = {k: v for k, v in keywords.items() if k in groups[type_name]}
        if not own and not rest:
            cls = _CLASSES[type_name]
            return _Node(lambda instance: isinstance(instance, cls), cls)
        if type_name == "object":
            return _Node(self._object(own, rest, typed=True))
        if type_name == "array":
            return _Node(self._array(own, rest, typed=True))
        if type_name == "string":
            return _Node(_string(own, rest, typed=True))
        return _Node(_typed(bool, rest))

    def _untyped(self, keywords: dict[str, Any], parts: list[Check]) -> _Node:
        checks = list(parts)
        own = {k: v for k, v in keywords.items() if k in _OBJECT_KEYWORDS}
        if own:
            checks.append(self._object(own, [], typed=False))
        own = {k: v for k, v in keywords.items() if k in _ARRAY_KEYWORDS}
        if own:
            checks.append(self._array(own, [], typed=False))
        own = {k: v for k, v in keywords.items() if k in _STRING_KEYWORDS}
        if own:
            checks.append(_string(own, [], typed=False))
        own = {k: v for k, v in keywords.items() if k in _NUMBER_KEYWORDS}
        if own:
            checks.append(_bounds(own))
        if not checks:
            return _ACCEPT
        if len(checks) == 1:
            return _Node(checks[0])
        return _Node(_every(checks))

    def _generic(self, keywords: dict[str, Any]) -> list[Check]:
        """The checks of keywords that apply to an instance of any type, and a raising check
        for each keyword outside the subset."""
        checks: list[Check] = []
        known = _OBJECT_KEYWORDS | _ARRAY_KEYWORDS | _STRING_KEYWORDS | _NUMBER_KEYWORDS
        for keyword, value in keywords.items():
            if keyword in known:
                continue
            if keyword == "$ref":
                sub = self.node(self.resolve(value))
                if not sub.trivial:
                    checks.append(sub.check)
            elif keyword == "allOf":
                subs = [self.node(each) for each in value]
                checks.extend(sub.check for sub in subs if not sub.trivial)
            elif keyword == "anyOf":
                checks.append(_any([self.node(each).check for each in value]))
            elif keyword == "oneOf":
                checks.append(_one([self.node(each).check for each in value]))
            elif keyword == "not":
                checks.append(_not(self.node(value).check))
            elif keyword == "enum":
                checks.append(_enum(list(value), nulls_absent=self.nulls_absent))
            elif keyword == "const":
                checks.append(_const(value, nulls_absent=self.nulls_absent))
            else:
                checks.append(_raiser(keyword))
        return checks

    def _object(self, own: dict[str, Any], rest: list[Check], *, typed: bool) -> Check:
        properties = own.get("properties", {})
        patterns_given = own.get("patternProperties", {})
        required = tuple(own.get("required", ()))
        typed_props: list[tuple[Any, type]] = []
        checked_props: list[tuple[Any, Check]] = []
        for key, sub_schema in properties.items():
            sub = self.node(sub_schema)
            if sub.trivial:
                continue
            if sub.cls is not None:
                typed_props.append((key, sub.cls))
            else:
                checked_props.append((key, sub.check))
        patterns = [(re.compile(p), self.node(s)) for p, s in patterns_given.items()]
        additional = own.get("additionalProperties", _MISSING)
        extra: Check | None = None
        if additional is not _MISSING:
            sub = _REJECT if additional is False else self.node(additional)
            # a trivial one still scans the keys when there are patterns: re.search raises
            # for a key that is not a string, as jsonschema's does
            if not sub.trivial or patterns:
                extra = sub.check
        return _object_check(
            required=required,
            typed_props=tuple(typed_props),
            checked_props=tuple(checked_props),
            known=frozenset(properties),
            patterns=tuple((rx, sub.check) for rx, sub in patterns),
            extra=extra,
            rest=tuple(rest),
            typed=typed,
            nulls_absent=self.nulls_absent,
        )

    def _array(self, own: dict[str, Any], rest: list[Check], *, typed: bool) -> Check:
        min_items = own.get("minItems")
        max_items = own.get("maxItems")
        items = self.node(own["items"]) if "items" in own else _ACCEPT
        item_cls = items.cls
        item_check = None if items.trivial or item_cls is not None else items.check
        rest_t = tuple(rest)

        def check(instance: Any) -> bool:
            if not isinstance(instance, list):
                return not typed
            if min_items is not None and not len(instance) >= min_items:
                return False
            if max_items is not None and not len(instance) <= max_items:
                return False
            if item_cls is not None:
                for item in instance:
                    if not isinstance(item, item_cls):
                        return False
            elif item_check is not None:
                for item in instance:
                    if not item_check(item):
                        return False
            return not rest_t or all(part(instance) for part in rest_t)

        return check


def _object_check(
    *,
    required: tuple[Any, ...],
    typed_props: tuple[tuple[Any, type], ...],
    checked_props: tuple[tuple[Any, Check], ...],
    known: frozenset[Any],
    patterns: tuple[tuple[re.Pattern[str], Check], ...],
    extra: Check | None,
    rest: tuple[Check, ...],
    typed: bool,
    nulls_absent: bool,
) -> Check:
    scan = bool(patterns) or extra is not None

    def check(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return not typed
        get = instance.get
        if nulls_absent:  # a null value is an absent key
            for name in required:
                if get(name) is None:
                    return False
            for key, cls in typed_props:
                value = get(key)
                if value is not None and not isinstance(value, cls):
                    return False
            for key, sub in checked_props:
                value = get(key)
                if value is not None and not sub(value):
                    return False
        else:
            for name in required:
                if name not in instance:
                    return False
            for key, cls in typed_props:
                value = get(key, _MISSING)
                if value is not _MISSING and not isinstance(value, cls):
                    return False
            for key, sub in checked_props:
                value = get(key, _MISSING)
                if value is not _MISSING and not sub(value):
                    return False
        if scan:
            for key, value in instance.items():
                if nulls_absent and value is None:
                    continue
                matched = False
                for rx, sub in patterns:
                    if rx.search(key):
                        matched = True
                        if not sub(value):
                            return False
                if extra is not None and not matched and key not in known and not extra(value):
                    return False
        return not rest or all(part(instance) for part in rest)

    return check


def _string(own: dict[str, Any], rest: list[Check], *, typed: bool) -> Check:
    min_length = own.get("minLength")
    max_length = own.get("maxLength")
    searches = (re.compile(own["pattern"]).search,) if "pattern" in own else ()
    rest_t = tuple(rest)

    def check(instance: Any) -> bool:
        if not isinstance(instance, str):
            return not typed
        if min_length is not None and not len(instance) >= min_length:
            return False
        if max_length is not None and not len(instance) <= max_length:
            return False
        for search in searches:
            if search(instance) is None:
                return False
        return not rest_t or all(part(instance) for part in rest_t)

    return check


def _bounds(own: dict[str, Any]) -> Check:
    minimum = own.get("minimum", _MISSING)
    maximum = own.get("maximum", _MISSING)

    def check(instance: Any) -> bool:
        if not _number(instance):
            return True
        if not isinstance(instance, (int, float)):
            raise _Unsupported("unusual number type")
        if minimum is not _MISSING and instance < minimum:
            return False
        return not (maximum is not _MISSING and instance > maximum)

    return check


def _forward(cell: list[Check]) -> Check:
    """A check for a subschema still being compiled (a `$ref` back to it): its own check
    once that is done."""

    def check(instance: Any) -> bool:
        return cell[0](instance)

    return check


def _types(value: Any) -> Check:
    """The `type` keyword: one name, or a list of names tried in order."""
    if isinstance(value, str):
        return _type_check(value)
    checks = tuple(_type_check(name) for name in value) if isinstance(value, list) else None
    if checks is None:
        return _raiser(f"type {value!r}")
    return lambda instance: any(check(instance) for check in checks)


def _typed(cls: type, rest: list[Check]) -> Check:
    parts = tuple(rest)

    def check(instance: Any) -> bool:
        return isinstance(instance, cls) and all(part(instance) for part in parts)

    return check


def _every(checks: list[Check]) -> Check:
    parts = tuple(checks)

    def check(instance: Any) -> bool:
        for part in parts:  # noqa: SIM110 - a loop, not all(): no generator per call
            if not part(instance):
                return False
        return True

    return check


def _any(checks: list[Check]) -> Check:
    parts = tuple(checks)
    return lambda instance: any(part(instance) for part in parts)


def _one(checks: list[Check]) -> Check:
    parts = tuple(checks)
    return lambda instance: sum(1 for part in parts if part(instance)) == 1


def _not(sub: Check) -> Check:
    return lambda instance: not sub(instance)


def _enum(values: list[Any], *, nulls_absent: bool) -> Check:
    strings = frozenset(v for v in values if type(v) is str)

    def check(instance: Any) -> bool:
        if type(instance) is str:
            # `equal` of a string and anything is ==, and a str equals only a str
            return instance in strings
        return any(_equal(each, instance, nulls_absent=nulls_absent) for each in values)

    return check


def _const(value: Any, *, nulls_absent: bool) -> Check:
    return lambda instance: _equal(instance, value, nulls_absent=nulls_absent)


# (id(schema), nulls_absent) -> (schema, compiled check); the schema is held beside its check,
# so its id cannot be reused while the entry exists
_COMPILED: dict[tuple[int, bool], tuple[dict[str, Any], Check]] = {}


def is_valid(instance: Any, schema: dict[str, Any], *, nulls_absent: bool = False) -> bool | None:
    """True / False exactly as jsonschema's Draft202012Validator would say; None: ask it.

    With `nulls_absent`, the answer is for `instance` with its null mapping values removed
    at every depth. For schemas known to be well formed (the bundled ones): no schema check
    is done here.
    """
    if "$id" in schema:
        return None  # a base URI changes how `$ref` resolves
    key = (id(schema), nulls_absent)
    held = _COMPILED.get(key)
    try:
        if held is None or held[0] is not schema:
            if len(_COMPILED) > 64:
                _COMPILED.clear()
            held = (schema, _Compiler(schema, nulls_absent=nulls_absent).node(schema).check)
            _COMPILED[key] = held
        return held[1](instance)
    except (_Unsupported, TypeError, AttributeError, re.error, RecursionError):
        return None
