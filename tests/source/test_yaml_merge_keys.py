"""Which keys merge, and which keys are one Go map key, as go-yaml v2 (v2.4.x) decides.

The rules, from go-yaml v2's source:

- decode.go: `isMerge(n)` is `n.kind == scalarNode && n.value == "<<" && (n.implicit ||
  n.tag == yaml_MERGE_TAG)`. An alias node is never a merge, and the text must be `<<`
  whatever the tag.
- parserc.go: a scalar event is `implicit` (plain_implicit) when it is untagged and plain,
  or when its tag is exactly `!`, in any style. `! "<<"` is therefore a merge, `"<<"` is not.
- resolve.go: `!!merge` is not a resolvable tag, so `!!merge foo` decodes to the string
  "foo" (an ordinary key); `!!str`, quotes and custom tags make `<<` the string "<<".
- decode.go, `mapping()`: keys decode into map[interface{}]interface{}, so two keys are
  the same entry when they are equal Go values: same dynamic type and `==`. Ints are Go
  `int`, floats `float64` (where 0.0 == -0.0), strings `string`; `setMapIndex` rejects an
  equal key in strict mode and overwrites it (keeping the later key) otherwise.
- sigs.k8s.io/yaml, `convertToJSONableObject`: a float64 key becomes
  `strconv.FormatFloat(k, 'g', -1, 32)` ("0" and "-0"), an int `strconv.Itoa`; keys of
  different Go types that spell the same JSON key both reach one `strMap[keyString]`.

This project rejects a key written twice in one mapping (YAMLToJSONStrict does too) and
keeps the non-strict result for merges (a merged key may be overridden).
"""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.source import to_go_json
from renderer.source.build import BuildError, build
from renderer.source.reader import _event_source, iter_values


def read(yaml_text: str) -> str:
    """YAMLToJSON of the first document, as compact JSON with sorted keys."""
    return to_go_json(next(iter_values(yaml_text.encode("utf-8"), "case.yaml"), None))


def read_error(yaml_text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        read(yaml_text)
    return caught.value


MERGED = '{"a":1}'
NOT_MERGED = '{"\\u003c\\u003c":{"a":1}}'

MERGE_SPELLINGS = [
    # plain and untagged: implicit, value `<<`
    ("<<: {a: 1}\n", MERGED),
    # tagged !!merge: the tag test of isMerge, in any style
    ("!!merge <<: {a: 1}\n", MERGED),
    ('!!merge "<<": {a: 1}\n', MERGED),
    ("!!merge '<<': {a: 1}\n", MERGED),
    ("!<tag:yaml.org,2002:merge> <<: {a: 1}\n", MERGED),
    ("%TAG !y! tag:yaml.org,2002:\n---\n!y!merge <<: {a: 1}\n", MERGED),
    # the non-specific tag `!`: the parser sets plain_implicit for it, quoted or not
    ("! <<: {a: 1}\n", MERGED),
    ('! "<<": {a: 1}\n', MERGED),
    ("! '<<': {a: 1}\n", MERGED),
    ("!<!> <<: {a: 1}\n", MERGED),  # the verbatim `!` is the same tag
    # quoted and untagged: quoted_implicit, not implicit; the key is the string "<<"
    ('"<<": {a: 1}\n', NOT_MERGED),
    ("'<<': {a: 1}\n", NOT_MERGED),
    # an explicit tag other than `!` and !!merge: not implicit, not the merge tag
    ("!!str <<: {a: 1}\n", NOT_MERGED),
    ("!custom <<: {a: 1}\n", NOT_MERGED),
    # !!merge on other text: isMerge needs the value `<<`; resolve() leaves an unknown
    # tag's text as a string, so these are ordinary keys
    ("!!merge foo: {a: 1}\n", '{"foo":{"a":1}}'),
    ("!!merge 12: {a: 1}\n", '{"12":{"a":1}}'),
    ("!!merge <<x: {a: 1}\n", '{"\\u003c\\u003cx":{"a":1}}'),
    # an alias node is never a merge, even to a `<<` scalar
    ("k: &m <<\n*m : {a: 1}\n", '{"\\u003c\\u003c":{"a":1},"k":"\\u003c\\u003c"}'),
    # in a flow mapping the same rules hold
    ("{! <<: {a: 1}, b: 2}\n", '{"a":1,"b":2}'),
    ('{"<<": {a: 1}, b: 2}\n', '{"\\u003c\\u003c":{"a":1},"b":2}'),
    # as a value, `<<` is only text (resolve table: "<<" -> !!merge, the string "<<")
    ("v: ! <<\n", '{"v":"\\u003c\\u003c"}'),
    ("v: !!merge <<\n", '{"v":"\\u003c\\u003c"}'),
]


@pytest.mark.parametrize(("text", "expected"), MERGE_SPELLINGS)
def test_merge_spellings(text: str, expected: str) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(("text", "expected"), MERGE_SPELLINGS)
def test_merge_spellings_with_the_pure_parser(text: str, expected: str) -> None:
    # the pure-Python parser (used where libyaml reads differently from go-yaml) reports
    # the same tags and styles
    (document,) = build(_event_source(text, pure=True), text)
    assert to_go_json(document.value) == expected


def test_a_merge_spelled_with_a_tag_merges_like_the_plain_one() -> None:
    # `! <<` is a real merge: sources, overrides and the error for a non-map value
    text = "base: &b {p: 1, q: 2}\nd:\n  ! <<: *b\n  q: 3\n"
    assert read(text) == '{"base":{"p":1,"q":2},"d":{"p":1,"q":3}}'
    assert "map merge requires map" in read_error("d:\n  ! <<: 1\n").message
    assert "map merge requires map" in read_error("d:\n  !!merge '<<': [1]\n").message
    # `!!merge foo` is not a merge, so its value may be anything
    assert read("!!merge foo: 1\n") == '{"foo":1}'


def test_a_key_named_like_a_merge_is_a_duplicate_of_itself() -> None:
    # `"<<"` and `!!str <<` are both the string "<<": one Go key written twice
    error = read_error('"<<": 1\n!!str <<: 2\n')
    assert "duplicate key" in error.message
    assert "first set on line 1" in error.message
    assert (error.line, error.column) == (2, 1)
    # a real merge next to the string key "<<" is no duplicate
    assert read('"<<": 1\n! <<: {a: 2}\n') == '{"\\u003c\\u003c":1,"a":2}'


# Keys equal as Go values: one map entry, so written twice they are a duplicate (strict
# go-yaml: "key ... already set in map"), whatever their JSON keys.
SAME_GO_KEY = [
    ("0.0: a\n-0.0: b\n", "-0"),  # float64: 0.0 == -0.0, though FormatFloat gives "0"/"-0"
    ("-0.0: a\n0.0: b\n", "0"),
    ("-0.0: a\n.0: b\n", "0"),  # `.0` is ParseFloat's 0
    ("0.0: a\n-0e5: b\n", "-0"),
    ("!!float 0: a\n-0.0: b\n", "-0"),  # !!float of the int 0 is float64(0)
    ("{0.0: a, -0.0: b}\n", "-0"),
    ("&z -0.0 : a\n0.0: b\n", "0"),  # an alias or anchor changes nothing
    ("1.0: a\n1.00: b\n", "1"),  # the same float64
    ("1.0: a\n1e0: b\n", "1"),
    ("0x10: a\n16: b\n", "16"),  # the same int: ParseInt base 0
    ("1: a\n01: b\n", "1"),  # octal 01
    ("1: a\n0x1: b\n", "1"),
    ("1: a\n0o1: b\n", "1"),
    ("1: a\n0b1: b\n", "1"),
    ("1: a\n+1: b\n", "1"),
    ("1: a\n!!int 1: b\n", "1"),
    ("0: a\n-0: b\n", "0"),  # ParseInt("-0") is the int 0
    ("true: a\nyes: b\n", "true"),  # the same bool
]


@pytest.mark.parametrize(("text", "key"), SAME_GO_KEY)
def test_keys_equal_as_go_values_are_duplicates(text: str, key: str) -> None:
    error = read_error(text)
    assert error.message.startswith(f"duplicate key {key} ")
    assert "first set on line 1" in error.message
    assert error.line == (1 if text.startswith("{") else 2)


# Keys of different Go types (int 1, float64 1, string "1") are different map entries;
# sigs.k8s.io/yaml then writes both under one JSON key in map order. Not a duplicate here
# (no key is written twice); the later one is kept, as for `1` and `"1"`.
DIFFERENT_GO_KEYS = [
    ("1: a\n1.0: b\n", '{"1":"b"}'),  # int 1, float64 1
    ("1: a\n!!float 1: b\n", '{"1":"b"}'),
    ("1: a\n'1': b\n", '{"1":"b"}'),  # int 1, string "1"
    ("0: a\n0.0: b\n", '{"0":"b"}'),  # int 0, float64 0
    ("0.0: a\n-0: b\n", '{"0":"b"}'),  # float64 0, int 0 (`-0` is an int)
    ("-0.0: a\n'-0': b\n", '{"-0":"b"}'),  # float64 -0, string "-0"
    ("1.00000001: a\n1.0: b\n", '{"1":"b"}'),  # two float64s, one float32 spelling
    ("true: a\n'true': b\n", '{"true":"b"}'),  # bool, string
]


@pytest.mark.parametrize(("text", "expected"), DIFFERENT_GO_KEYS)
def test_keys_of_different_go_values_are_not_duplicates(text: str, expected: str) -> None:
    assert read(text) == expected


def test_the_float_zero_is_one_key_through_other_keys() -> None:
    # 0.0, then the int 0 (another Go key with the JSON key "0"), then 0.0 again: the
    # float key is still written twice
    error = read_error("0.0: a\n0: b\n0.0: c\n")
    assert "duplicate key 0" in error.message
    assert "first set on line 1" in error.message
    assert error.line == 3
    error = read_error("-0.0: a\n'-0': b\n0.0: c\n")
    assert "duplicate key 0" in error.message
    assert "first set on line 1" in error.message


# Merges write into the same Go map (decode.go `merge` decodes the source into `out`), so a
# merged float zero and a literal one are one entry: the later write wins and, as a Go map
# keeps the key of the last assignment, so does its spelling.
MERGED_ZEROS = [
    ("<<: {0.0: a}\n-0.0: b\n", '{"-0":"b"}'),  # a literal override of a merged key
    ("<<: {-0.0: a}\n0.0: b\n", '{"0":"b"}'),
    ("-0.0: a\n<<: {0.0: b}\n", '{"0":"b"}'),  # a merge after the key overwrites it
    ("z: &z {0.0: a}\nm:\n  <<: *z\n  -0.0: b\n", '{"m":{"-0":"b"},"z":{"0":"a"}}'),
    # a list merges its last map first, so the first map's spelling and value win
    ("m:\n  <<: [{0.0: a}, {-0.0: b}]\n", '{"m":{"0":"a"}}'),
    ("z: &z {0.0: a}\nm:\n  <<: [{-0.0: b}, *z]\n", '{"m":{"-0":"b"},"z":{"0":"a"}}'),
    # through a map that got its zero by a merge itself
    (
        "a: &a {0.0: 1}\nb: &b {<<: *a, x: 2}\nc: {-0.0: 3, <<: *b}\n",
        '{"a":{"0":1},"b":{"0":1,"x":2},"c":{"0":1,"x":2}}',
    ),
    # a merged string "-0" is another Go key than the float 0
    ("<<: {'-0': a}\n0.0: b\n", '{"-0":"a","0":"b"}'),
]


@pytest.mark.parametrize(("text", "expected"), MERGED_ZEROS)
def test_merged_float_zeros(text: str, expected: str) -> None:
    assert read(text) == expected


def test_merged_float_zero_still_counts_literal_writes() -> None:
    # written literally on lines 1 and 3 (the merge on line 2 moved it to "0")
    error = read_error("-0.0: a\n<<: {0.0: b}\n-0.0: c\n")
    assert "duplicate key -0" in error.message
    assert error.line == 3
    # overriding the merged key once is allowed, twice is a duplicate
    error = read_error("<<: {0.0: a}\n-0.0: b\n0.0: c\n")
    assert "duplicate key 0" in error.message
    assert "first set on line 2" in error.message
    assert error.line == 3


def test_a_merged_float_zero_sharing_its_json_key_is_refused() -> None:
    # the string "-0" and the merged float -0 share the JSON key "-0"; 0.0 then renames the
    # float entry in Go, leaving the string's value, which one dict entry cannot tell
    error = read_error("'-0': x\n<<: {-0.0: y}\n0.0: z\n")
    assert "cannot read key 0" in error.message
    assert (error.line, error.column) == (3, 1)


@pytest.mark.parametrize(
    "text", [text for text, _ in SAME_GO_KEY] + [text for text, _ in MERGED_ZEROS]
)
def test_both_parsers_agree_on_keys(text: str) -> None:
    results = []
    for pure in (False, True):
        try:
            results.append(to_go_json(next(build(_event_source(text, pure=pure), text)).value))
        except BuildError as exc:
            results.append(f"{exc.line}:{exc.column}: {exc.message}")
    assert results[0] == results[1]
