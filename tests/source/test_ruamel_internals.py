"""The ruamel.yaml internals the input layer relies on are still there and still behave.

renderer/source/reader.py subclasses ruamel's pure-Python Scanner (its simple-key queue and
double-quoted escape table) and drives libyaml's CParser event by event; renderer/source/build.py
reads the events' marks, tags, styles and anchors, which renderer/source/cevents.py has the C
parser record as calls of the event classes. None of that is public API, so pyproject.toml
bounds ruamel.yaml to the tested minor version and this file fails loudly, naming the
attribute, when an upgrade moves one of them.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

SCANNER_METHODS = {
    # method -> the parameters (after self) our override calls or replaces
    "save_possible_simple_key": [],
    "stale_possible_simple_keys": [],
    "next_possible_simple_key": [],
    "scan_flow_scalar_non_spaces": ["double", "start_mark"],
}


@pytest.mark.parametrize("name", sorted(SCANNER_METHODS))
def test_scanner_methods_we_override_keep_their_signature(name: str) -> None:
    from ruamel.yaml.scanner import Scanner

    method = getattr(Scanner, name, None)
    assert method is not None, f"ruamel.yaml.scanner.Scanner.{name} is gone"
    params = list(inspect.signature(method).parameters)[1:]
    assert params == SCANNER_METHODS[name], f"Scanner.{name}{params}: the override needs updating"


def test_scanner_state_our_override_reads() -> None:
    from ruamel.yaml import YAML
    from ruamel.yaml.scanner import Scanner

    assert isinstance(Scanner.ESCAPE_REPLACEMENTS, dict)
    assert Scanner.ESCAPE_REPLACEMENTS.get("n") == "\n"
    seen: list[object] = []

    class Probe(Scanner):
        def save_possible_simple_key(self) -> None:
            super().save_possible_simple_key()
            key = self.possible_simple_keys.get(self.flow_level)
            if key is not None:
                seen.append(key)
            assert isinstance(self.reader.line, int)
            assert isinstance(self.reader.index, int)

    yaml = YAML(typ="safe", pure=True)
    yaml.Scanner = Probe
    list(yaml.parse("a: {b: [c]}\n"))
    assert seen, "possible_simple_keys / flow_level no longer reached from save_possible_simple_key"
    for attribute in ("line", "index", "required", "mark", "token_number"):
        assert hasattr(seen[0], attribute), f"ruamel SimpleKey has no {attribute!r}"


def test_the_go_scanner_still_reads_go_escapes() -> None:
    from renderer.source.reader import iter_values

    # `\'` in double quotes is go-yaml's and not libyaml's: the pure scanner path reads it.
    values = list(iter_values(b'k: "it\\\'s"\n', "t.yaml"))
    assert values == [{"k": "it's"}]


def test_c_parser_events_carry_what_the_builder_reads() -> None:
    pytest.importorskip("_ruamel_yaml")
    from _ruamel_yaml import CParser

    parser = CParser("&a k: !!str v\n")
    events = []
    while True:
        event = parser.get_event()
        events.append(event)
        if type(event).__name__ == "StreamEndEvent":
            break
    scalar = next(e for e in events if type(e).__name__ == "ScalarEvent" and e.value == "v")
    assert scalar.tag == "tag:yaml.org,2002:str"
    assert scalar.style in (None, "")
    assert scalar.start_mark.line == 0 and scalar.start_mark.column == 6  # the tag starts the node
    assert isinstance(scalar.start_mark.index, int) and isinstance(scalar.end_mark.index, int)
    key = next(e for e in events if type(e).__name__ == "ScalarEvent" and e.value == "k")
    assert key.anchor == "a"


def test_the_c_parser_still_calls_the_event_classes_as_cevents_records_them() -> None:
    # renderer/source/cevents.py swaps the event classes the C parser looks up among its
    # module globals, and reads the recorded calls by position (FIELDS). For the installed
    # ruamel.yaml.clib this must hold; a new release that calls them differently fails here
    # (cevents then falls back to converting ruamel's events, slower but the same).
    pytest.importorskip("_ruamel_yaml")
    import _ruamel_yaml

    from renderer.source import cevents

    installed = [
        version
        for version in cevents.CHECKED_VERSIONS
        if (Path(_ruamel_yaml.__file__).parent / f"ruamel_yaml_clib-{version}.dist-info").is_dir()
    ]
    assert installed, f"ruamel.yaml.clib is not one of {cevents.CHECKED_VERSIONS}: read its calls"
    assert cevents.recording_works(), "the C parser's event calls no longer match cevents.FIELDS"
    for kind in cevents.FIELDS:
        assert vars(_ruamel_yaml)[kind.__name__] is kind, f"{kind.__name__} was left swapped"


def test_recorded_events_are_the_events_ruamel_makes() -> None:
    pytest.importorskip("_ruamel_yaml")
    from _ruamel_yaml import CParser

    from renderer.source import cevents

    text = "a: &x [1, 'q']\nb: *x\n--- !!str s\n"
    made = []
    parser = CParser(text)
    while (event := parser.get_event()) is not None:
        made.append(event)
    next_event = cevents.c_events(text)
    for event in made:
        record = next_event()
        assert record.func is type(event)
        remade = record()  # the call the C parser did not make
        for name in cevents.FIELDS[type(event)]:
            got, want = getattr(remade, name), getattr(event, name)
            if hasattr(want, "line"):
                got, want = (got.index, got.line, got.column), (want.index, want.line, want.column)
            assert got == want, f"{type(event).__name__}.{name}"


def test_a_parse_error_comes_after_the_events_read_before_it() -> None:
    # A batch is filled with list.extend, which keeps what it read before the parser
    # raised: the events before the error reach build first, so an error build finds in
    # an earlier document is still the one reported.
    pytest.importorskip("_ruamel_yaml")
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import ScalarEvent, StreamEndEvent

    from renderer.source import cevents

    next_event = cevents.c_events("a: b\n---\n[\n")
    kinds = []
    with pytest.raises(YAMLError):
        while True:
            kinds.append(next_event().func)
    assert ScalarEvent in kinds and StreamEndEvent not in kinds
    assert kinds.count(ScalarEvent) == 2


def test_an_earlier_documents_error_wins_over_a_later_syntax_error() -> None:
    from renderer.errors import InputError
    from renderer.source import load_bytes

    with pytest.raises(InputError) as caught:
        load_bytes(b"apiVersion: v1\nkind: A\nk: 1\nk: 2\n---\n[\n", "t.yaml")
    assert "duplicate key" in caught.value.message
