"""A quick valid / invalid answer for the bundled schemas, without importing jsonschema.

jsonschema costs about 35 ms to import (half of a single-file lint) and is slow per object,
while almost every committed or rendered object is valid, and then only the answer matters.
`is_valid(instance, schema)` evaluates the small subset of draft 2020-12 that the bundled
schemas use, with jsonschema's exact semantics (a bool is not an integer but 1.0 is, enum
and const compare as jsonschema's `equal`, `pattern` is `re.search`, `$ref` sits beside its
sibling keywords, `format` asserts nothing without a format checker). Anything outside that
subset (another keyword, a remote or escaped `$ref`, an unusual Python type) answers None,
and the caller asks jsonschema, which also words the messages when the answer is False.
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


class _Unsupported(Exception):
    """The schema or the instance leaves the mirrored subset: ask jsonschema."""


def _is_type(instance: Any, name: str) -> bool:
    if name == "object":
        return isinstance(instance, dict)
    if name == "string":
        return isinstance(instance, str)
    if name == "array":
        return isinstance(instance, list)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "integer":
        if isinstance(instance, bool):
            return False
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return _number(instance)
    if name == "null":
        return instance is None
    raise _Unsupported(name)


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's `equal` for scalars (True is not 1); containers are left to it."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if not isinstance(one, _SCALARS) or not isinstance(two, _SCALARS):
        raise _Unsupported("container or unusual type in enum/const")
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # `one is two` already matched equal booleans
    return bool(one == two)


def _number(instance: Any) -> bool:
    """jsonschema's number: a numbers.Number that is not a bool. The read values are ints
    and floats, answered without importing `numbers` (3 million instructions of a cold
    lint); any other type is asked of the ABC."""
    if isinstance(instance, bool):
        return False
    if isinstance(instance, (int, float)):
        return True
    from numbers import Number

    return isinstance(instance, Number)


class _Evaluator:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self._resolved: dict[str, Any] = {}  # `$ref` -> its schema, looked up once

    def resolve(self, ref: Any) -> Any:
        if type(ref) is str:
            found = self._resolved.get(ref, _MISSING)
            if found is not _MISSING:
                return found
        if not isinstance(ref, str) or not ref.startswith("#/") or "~" in ref or "%" in ref:
            raise _Unsupported(f"$ref {ref!r}")
        node: Any = self.root
        for step in ref[2:].split("/"):
            if not isinstance(node, dict) or step not in node:
                raise _Unsupported(f"$ref {ref!r}")
            node = node[step]
        self._resolved[ref] = node
        return node

    def valid(self, instance: Any, schema: Any) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict):
            raise _Unsupported("schema is not an object")
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS:
                continue
            check = _KEYWORDS.get(keyword)
            if check is None:
                raise _Unsupported(keyword)
            if not check(self, value, instance, schema):
                return False
        return True


def _type(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if type(value) is str:  # the common case: one type name
        return _is_type(instance, value)
    names = value if isinstance(value, list) else [value]
    return any(_is_type(instance, name) for name in names)


def _properties(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(ev.valid(instance[key], sub) for key, sub in value.items() if key in instance)


def _pattern_properties(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not isinstance(instance, dict):
        return True
    for pattern, sub in value.items():
        for key, item in instance.items():
            if re.search(pattern, key) and not ev.valid(item, sub):
                return False
    return True


def _additional(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not isinstance(instance, dict):
        return True
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in known and not any(re.search(pattern, key) for pattern in patterns)
    ]
    if isinstance(value, dict):
        return all(ev.valid(instance[key], value) for key in extras)
    return bool(value) or not extras


def _required(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in value)


def _items(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not isinstance(instance, list):
        return True
    return all(ev.valid(item, value) for item in instance)


def _min_items(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, list) or len(instance) >= value


def _max_items(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, list) or len(instance) <= value


def _min_length(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, str) or len(instance) >= value


def _max_length(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, str) or len(instance) <= value


def _pattern(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, str) or re.search(value, instance) is not None


def _minimum(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not _number(instance):
        return True
    if not isinstance(instance, (int, float)):
        raise _Unsupported("unusual number type")
    return not instance < value


def _maximum(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    if not _number(instance):
        return True
    if not isinstance(instance, (int, float)):
        raise _Unsupported("unusual number type")
    return not instance > value


def _enum(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return any(_equal(each, instance) for each in value)


def _const(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return _equal(instance, value)


def _ref(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return ev.valid(instance, ev.resolve(value))


def _all_of(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return all(ev.valid(instance, sub) for sub in value)


def _any_of(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return any(ev.valid(instance, sub) for sub in value)


def _one_of(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return sum(1 for sub in value if ev.valid(instance, sub)) == 1


def _not(ev: _Evaluator, value: Any, instance: Any, schema: dict[str, Any]) -> bool:
    return not ev.valid(instance, value)


_Check = Callable[[_Evaluator, Any, Any, dict[str, Any]], bool]
_MISSING = object()
_EVALUATORS: dict[int, tuple[dict[str, Any], _Evaluator]] = {}
_KEYWORDS: dict[str, _Check] = {
    "type": _type,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "minItems": _min_items,
    "maxItems": _max_items,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "minimum": _minimum,
    "maximum": _maximum,
    "enum": _enum,
    "const": _const,
    "$ref": _ref,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
}


def is_valid(instance: Any, schema: dict[str, Any]) -> bool | None:
    """True / False exactly as jsonschema's Draft202012Validator would say; None: ask it.

    For schemas known to be well formed (the bundled ones): no schema check is done here.
    """
    if "$id" in schema:
        return None  # a base URI changes how `$ref` resolves
    # one evaluator per schema, so its `$ref` look-ups are kept across objects (the schema
    # is held beside it, so its id cannot be reused while the entry exists)
    held = _EVALUATORS.get(id(schema))
    if held is None or held[0] is not schema:
        if len(_EVALUATORS) > 64:
            _EVALUATORS.clear()
        held = (schema, _Evaluator(schema))
        _EVALUATORS[id(schema)] = held
    try:
        return held[1].valid(instance, schema)
    except (_Unsupported, TypeError, AttributeError, re.error, RecursionError):
        return None
