"""Validate located objects (and rendered plain objects) against their schema.

jsonschema is imported here only inside functions: `import renderer.schema` stays cheap, and
a lint run without schema checks never pays for it. Objects checked against a bundled schema
are first tried with `renderer.schema.fast` (no jsonschema); jsonschema runs only when that
says invalid (for the messages) or cannot answer.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from renderer.errors import InputError
from renderer.schema.bundled import BUNDLED, SchemaKey, bundled_schema
from renderer.schema.crd import ORIGIN_KEY
from renderer.schema.fast import is_valid
from renderer.schema.messages import describe
from renderer.schema.violation import Violation
from renderer.source import load_bytes
from renderer.source.model import Mark, Path, SourceObject

Schemas = Mapping[SchemaKey, dict[str, Any]]
_T = TypeVar("_T")
# (path reported, path whose position is shown, show the key (True) or the value, message)
_Explained = tuple[Path, Path, bool, str]
_Locate = Callable[[Path, bool], Mark]

# id(schema) -> (schema, compiled validator); the schema is kept so its id cannot be reused.
_COMPILED: dict[int, tuple[dict[str, Any], Any]] = {}
_MAX_FALLBACK = 200
# A schema from --crd comes with the repository: a `pattern` that backtracks, a huge `enum`
# checked against every item of a long list or `uniqueItems` over thousands of objects can
# take hours on one small file. Checking one object against such a schema is stopped here.
CRD_CHECK_SECONDS = 10.0


def _schema_for(key: SchemaKey, extra: Schemas | None) -> tuple[dict[str, Any], str, bool] | None:
    """(schema, title, bundled) for an apiVersion and kind, or None."""
    if extra and key in extra:
        schema = extra[key]
        title = schema.get("title")
        name = title if isinstance(title, str) else f"schema for {key[1]} {key[0]}"
        return schema, name, False
    found = bundled_schema(*key)
    return None if found is None else (found, BUNDLED[key], True)


def _compiled(schema: dict[str, Any], title: str, *, trusted: bool) -> Any:
    entry = _COMPILED.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    from jsonschema import Draft202012Validator  # noqa: PLC0415 - jsonschema only for an object the fast checks do not answer
    from jsonschema.exceptions import SchemaError  # noqa: PLC0415 - jsonschema only for an object the fast checks do not answer

    # The bundled schemas are checked by the test suite; checking them again would double
    # the first validation's cost for every lint run.
    if not trusted:
        where = _origin(schema)
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise InputError(f"{title} is not a valid JSON Schema: {exc.message}", *where) from None
        except RecursionError:
            raise InputError(f"{title}: the schema is nested too deeply to check", *where) from None
    validator = Draft202012Validator(schema)
    _COMPILED[id(schema)] = (schema, validator)
    return validator


def _origin(schema: Mapping[str, Any]) -> tuple[str, int, int] | tuple[()]:
    """The CRD file, line and column a converted schema came from (renderer.schema.crd)."""
    origin = schema.get(ORIGIN_KEY)
    if isinstance(origin, list) and len(origin) == 3:
        return str(origin[0]), int(origin[1]), int(origin[2])
    return ()


class _Expired(InputError):
    """The time for checking one object against a --crd schema ran out."""


@contextmanager
def _stopped_after(seconds: float, error: InputError) -> Iterator[None]:
    """Raise `error` if the block runs longer than `seconds` (an interval timer: the
    regular-expression engine and jsonschema's loops both stop for a signal). Only in the
    main thread of a process, where signals are delivered; elsewhere the block just runs."""
    import signal  # noqa: PLC0415 - signal only to time a check against a --crd schema

    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _Expired(error.message, error.file, error.line, error.column)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _checked(errors: Callable[[], _T], title: str, at: tuple[Any, ...]) -> _T:
    """`errors()` for an object and a schema given with --crd, within CRD_CHECK_SECONDS;
    InputError at the object when it takes longer or recurses too deep."""
    slow = InputError(
        f"checking this object against {title} took over {CRD_CHECK_SECONDS:g} s and was"
        " stopped: the schema (from --crd) has a `pattern` that backtracks, or an `enum` or"
        " `uniqueItems` too large for the lists it checks",
        *at,
    )
    try:
        with _stopped_after(CRD_CHECK_SECONDS, slow):
            return errors()
    except RecursionError:
        raise InputError(f"{title}: this object is nested too deeply to check", *at) from None


def _unknown_keys(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key for key in instance if key not in known and not any(re.search(p, key) for p in patterns)
    ]


def _explain(error: Any) -> Iterator[_Explained]:
    path: Path = tuple(error.absolute_path)
    validator: str = error.validator
    if validator == "required" and isinstance(error.instance, dict):
        for name in error.validator_value:
            if name not in error.instance:
                yield (*path, name), path, True, "required field is missing"
        return
    if validator == "additionalProperties" and error.validator_value is False:
        for name in _unknown_keys(error.instance, error.schema):
            yield (
                (*path, name),
                (*path, name),
                True,
                "unknown field: not in the schema (the API server would drop it)",
            )
        return
    if validator in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match  # noqa: PLC0415 - jsonschema only for an object the fast checks do not answer

        yield from _explain(best_match(error.context))
        return
    message = describe(validator, error.validator_value, error.instance, error.schema)
    if message is None:
        message = error.message
        if len(message) > _MAX_FALLBACK:
            message = message[: _MAX_FALLBACK - 3] + "..."
    yield path, path, False, message


def _collect(errors: Iterable[Any], locate: _Locate, file: str, title: str) -> list[Violation]:
    found: dict[tuple[str, str], Violation] = {}
    for error in errors:
        for path, mark_path, key, message in _explain(error):
            mark = locate(mark_path, key)
            violation = Violation(file, mark.line, mark.column, path, message, title)
            found.setdefault((violation.json_path, message), violation)
    return sorted(found.values(), key=Violation.sort_key)


def without_nulls(value: Any) -> Any:
    """`value` without the null fields the API server prunes before it validates a custom
    resource (a non-nullable field set to null counts as absent: `containers: null` in
    upstream's recipes is accepted by the cluster). A copy only where a null is found."""
    if isinstance(value, dict):
        pruned = {k: without_nulls(v) for k, v in value.items() if v is not None}
        if len(pruned) == len(value) and all(pruned[k] is value[k] for k in pruned):
            return value
        return pruned
    if isinstance(value, list):
        items = [without_nulls(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def validate(obj: SourceObject, *, extra_schemas: Schemas | None = None) -> list[Violation]:
    """Every violation of the schema for `obj`'s apiVersion and kind, sorted by position.

    `extra_schemas` (e.g. from `schemas_from_crd`) replace the bundled schema for their keys.
    Objects with no schema are not checked (empty list).
    """
    chosen = _schema_for((obj.api_version, obj.kind), extra_schemas)
    if chosen is None:
        return []
    schema, title, bundled = chosen
    # the common case, answered without importing jsonschema or copying the object
    if bundled and is_valid(obj.data, schema, nulls_absent=True) is True:
        return []
    data = without_nulls(obj.data)
    validator = _compiled(schema, title, trusted=bundled)

    def locate(path: Path, key: bool) -> Mark:
        return obj.mark(path, key=key)

    def collect() -> list[Violation]:
        return _collect(validator.iter_errors(data), locate, obj.file, title)

    if bundled:
        return collect()
    start = obj.mark((), key=False)
    return _checked(collect, title, (obj.file, start.line, start.column))


def validate_data(
    data: dict[str, Any],
    name: str,
    *,
    text: str | None = None,
    extra_schemas: Schemas | None = None,
) -> list[Violation]:
    """Violations of a plain object (rendered output) with no file behind it.

    Only when something is wrong is the object located: `text` (its rendered YAML document)
    is read back for positions; without it, positions refer to its indented JSON text.
    """
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    chosen = _schema_for((api_version, kind), extra_schemas)
    if chosen is None:
        return []
    schema, title, bundled = chosen
    if bundled and is_valid(data, schema, nulls_absent=True) is True:
        return []
    data = without_nulls(data)
    validator = _compiled(schema, title, trusted=bundled)
    if bundled:
        errors = list(validator.iter_errors(data))
    else:
        errors = _checked(lambda: list(validator.iter_errors(data)), title, (name,))
    if not errors:
        return []

    source = text if text is not None else json.dumps(data, indent=2, ensure_ascii=False)
    try:
        located = load_bytes(source.encode("utf-8"), name)[0]
    except InputError:
        located = SourceObject(data=data, file=name)

    def locate(path: Path, key: bool) -> Mark:
        return located.mark(path, key=key)

    return _collect(errors, locate, name, title)


def violations_error(violations: Sequence[Violation]) -> InputError:
    """One input error (exit 2) for the CLI: the first violation, and how many more there are."""
    first = violations[0]
    message = f"{first.json_path}: {first.message} (schema {first.schema}"
    more = len(violations) - 1
    if more:
        message += f"; and {more} more violation{'s' if more > 1 else ''}"
    return InputError(message + ")", first.file, first.line, first.column)


__all__ = ["Schemas", "validate", "validate_data", "violations_error"]
