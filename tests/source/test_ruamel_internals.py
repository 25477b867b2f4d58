"""The ruamel.yaml internals the input layer relies on are still there and still behave.

renderer/source/reader.py subclasses ruamel's pure-Python Scanner (its simple-key queue and
double-quoted escape table) and drives libyaml's CParser event by event; renderer/source/build.py
reads the events' marks, tags, styles and anchors. None of that is public API, so pyproject.toml
bounds ruamel.yaml to the tested minor version and this file fails loudly, naming the
attribute, when an upgrade moves one of them.
"""

from __future__ import annotations

import inspect

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
