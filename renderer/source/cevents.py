"""Parser events as recorded constructor calls: what `build` reads, made cheaply from libyaml.

ruamel.yaml.clib's `CParser` (the `_ruamel_yaml` module) turns each libyaml event into an
instance of a ruamel.yaml.events class: three Python `__init__` frames per event, which
was a fifth of reading a file. Every event reaches `build` instead as
`functools.partial(EventClass, *args)`: the constructor call, with `.func` the ruamel class
and `.args` its positional arguments in the order of `FIELDS` (calling it would make the
event). From ruamel's own events (its pure-Python parser, or a C parser this module has not
checked) the same records are made by `as_calls`, so `build` reads one shape.

For libyaml, the C parser makes the records itself: it looks the event classes up among
its module globals at each call, and while it fills a batch of events for us those globals
are `partial(partial, EventClass)`. That is invisible to any other code, in this thread or
another, because no Python code runs while they are swapped: partial objects, like the
parser, its marks and its strings, are made in C, and the cyclic collector is paused so no
finaliser runs; the globals are restored before the batch is handed on, error or not.
It is done only for the ruamel.yaml.clib versions whose calls were read (`CHECKED_VERSIONS`),
and only once a probe of every event kind reads the same both ways (`recording_works`);
otherwise events are converted. tests/source/test_ruamel_internals.py fails loudly when an
installed version calls the classes differently.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from functools import cache, partial
from itertools import chain, islice
from pathlib import Path
from typing import Any

from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

try:
    import _ruamel_yaml
except ImportError:  # no ruamel.yaml.clib: `recording_works` says no, events are converted
    _ruamel_yaml = None

__all__ = ["CHECKED_VERSIONS", "FIELDS", "as_calls", "c_events", "recording_works"]

# The positional arguments of each event class's constructor, in the order the C parser
# passes them (ruamel.yaml.clib's `CParser._event_to_object`), named by the event attribute
# holding each; `build` unpacks `.args` in this order.
FIELDS: dict[type, tuple[str, ...]] = {
    StreamStartEvent: ("start_mark", "end_mark", "encoding"),
    StreamEndEvent: ("start_mark", "end_mark"),
    DocumentStartEvent: ("start_mark", "end_mark", "explicit", "version", "tags"),
    DocumentEndEvent: ("start_mark", "end_mark", "explicit"),
    AliasEvent: ("anchor", "start_mark", "end_mark"),
    ScalarEvent: ("anchor", "tag", "implicit", "value", "start_mark", "end_mark", "style"),
    SequenceStartEvent: ("anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style"),
    MappingStartEvent: ("anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style"),
    SequenceEndEvent: ("start_mark", "end_mark"),
    MappingEndEvent: ("start_mark", "end_mark"),
}

CHECKED_VERSIONS = ("0.2.15",)  # ruamel.yaml.clib releases whose event calls were read

_BATCH = 512  # events parsed ahead of `build` (errors are raised in their place)

# every event kind, every scalar style, tags, anchors, directives, explicit ends
_PROBE = (
    "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n--- !!map\n"
    "a: &x [1, 'q', \"d\", !e!t t]\nb: *x\nc: |\n  lit\nd: >\n  fold\n"
    "? {k: v}\n: !!seq [ ]\ne: ! x\n...\n--- s\n"
)


def c_events(source: bytes | str) -> Callable[[], partial[Any]]:
    """libyaml's events of `source` as records, one per call (recorded when that was
    checked to work, else converted)."""
    if _ruamel_yaml is None:
        raise ImportError("ruamel.yaml.clib is not installed")  # the caller falls back
    get_event: Callable[[], Any] = _ruamel_yaml.CParser(source).get_event
    if recording_works():
        return chain.from_iterable(_recorded_batches(get_event)).__next__
    return as_calls(get_event)


def as_calls(next_event: Callable[[], Any]) -> Callable[[], partial[Any]]:
    """Records of the events `next_event` returns as ruamel.yaml.events objects."""

    def records() -> Iterator[partial[Any]]:
        while True:
            event = next_event()
            kind = event.__class__
            yield partial(kind, *[getattr(event, name) for name in FIELDS[kind]])

    return records().__next__


def _recorded_batches(get_event: Callable[[], Any]) -> Iterator[list[partial[Any]]]:
    module = vars(_ruamel_yaml)
    originals = {kind.__name__: kind for kind in FIELDS}
    recorders = {name: partial(partial, kind) for name, kind in originals.items()}
    events = iter(get_event, None)  # the C parser returns None after the stream's end
    while True:
        batch: list[partial[Any]] = []
        error: Exception | None = None
        collecting = gc.isenabled()
        gc.disable()
        module.update(recorders)
        try:
            # list.extend keeps the events read before a parse error (a test checks it),
            # so they are built (and their errors raised) before that error is
            batch.extend(islice(events, _BATCH))
        except Exception as exc:  # re-raised below, after the events before it
            error = exc
        finally:
            module.update(originals)
            if collecting:
                gc.enable()
        if batch:
            yield batch
        if error is not None:
            raise error
        if not batch:
            return


@cache
def recording_works() -> bool:
    """Whether the C parser may make records: a checked ruamel.yaml.clib, whose records
    of a probe of every event kind hold what its ruamel events hold."""
    if _ruamel_yaml is None:
        return False
    where = Path(_ruamel_yaml.__file__ or "").parent  # the version, at the cost of a stat
    if not any((where / f"ruamel_yaml_clib-{v}.dist-info").is_dir() for v in CHECKED_VERSIONS):
        return False
    module = vars(_ruamel_yaml)
    if any(module.get(kind.__name__) is not kind for kind in FIELDS):
        return False
    made = list(iter(_ruamel_yaml.CParser(_PROBE).get_event, None))
    try:
        recorded = list(
            chain.from_iterable(_recorded_batches(_ruamel_yaml.CParser(_PROBE).get_event))
        )
    except Exception:  # any surprise means: do not record
        return False
    return len(made) == len(recorded) and all(map(_same, made, recorded))


def _same(event: Any, record: Any) -> bool:
    kind: type = event.__class__
    if not isinstance(record, partial) or record.func is not kind or record.keywords:
        return False
    fields = FIELDS[kind]
    return len(record.args) == len(fields) and all(
        _plain(value) == _plain(getattr(event, name))
        for name, value in zip(fields, record.args, strict=True)
    )


def _plain(value: Any) -> Any:
    """Marks compared by position (the C parser's Mark has no equality)."""
    if hasattr(value, "line") and hasattr(value, "index"):
        return ("mark", value.index, value.line, value.column)
    return value
