"""The `kinds` pre-scan is sound: it never skips a document the parser reads as a kept kind.

Documents are generated from fragments in every spelling that can set a top-level `kind`
(`kind : X`, `!!str kind:`, quoted and explicit keys, aliases `*k :`, merge keys, flow
mappings, values spread over lines) and decoy `kind: ConfigMap` lines at column 0 hidden
inside multi-line quoted scalars, flow collections and block scalars, with comments,
directives, document end markers, byte order marks, tabs, anchors and aliases, and CR LF,
CR, NEL and U+2028/9 line breaks. For each
stream, every document the pre-scan drops is parsed on its own by the real reader: it must
fail or be something other than a kept kind. When the whole stream reads, reading it with
the pre-scan must give exactly the kept objects of a full read.
"""

from __future__ import annotations

from example_budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from renderer.errors import InputError
from renderer.source import load_bytes
from renderer.source.prescan import segments

KEPT = frozenset({"DynamoComponentDeployment", "PodCliqueSet", "DynamoCheckpoint"})
KINDS = [*sorted(KEPT), "ConfigMap", "List"]

# How the real `kind` key can be written ({k} is the kind); each is one or more lines.
KIND_SPELLINGS = [
    "kind: {k}",
    "kind : {k}",
    "kind:\t{k}",
    "kind:  {k}  # a comment",
    "!!str kind: {k}",
    "kind: !!str {k}",
    '"kind": {k}',
    "'kind': {k}",
    '"\\x6bind": {k}',
    "? kind\n: {k}",
    "kind:\n  {k}",
    "kind: &a {k}",
    'kind: "{k}"',
    "kind: '{k}'",
    "x: &k kind\n*k : {k}",
    "<<: {{kind: {k}}}",
    "base: &b {{kind: {k}}}\n<<: *b",
    "\ufeffkind: {k}",
    "\tkind: {k}",
    "kind: {k}\n  continued",
    "kind: >\n  {k}",
    "kind: [{k}]",
]

# Decoys and hiding places: a column-0 `kind: ConfigMap` inside other constructs.
DECOYS = [
    'note: "a\nkind: ConfigMap\nb"',
    "note: 'a\nkind: ConfigMap\nb'",
    'note: "a\\\nkind: ConfigMap\nb"',
    "note: [a,\nkind: ConfigMap\n]",
    "note: {a: b,\nkind: ConfigMap\n}",
    "note: [\n'x',\nkind: ConfigMap\n]",
    "note: |\n  text\nkind: ConfigMap",
    'note: |\n  "open\nkind: ConfigMap',
    '  - "a\nkind: ConfigMap\n  "',
    "# kind: ConfigMap",
    "kind: ConfigMap",
    "note: it's\nkind: ConfigMap",
    'note: [it\'s, "x\nkind: ConfigMap\n"]',
    'note: {"a":"b\nkind: ConfigMap\n"}',
    "note: x # [\nkind: ConfigMap",
    # line breaks other than LF: the parser breaks lines at CR, NEL, U+2028 and U+2029
    'note: "a\x85kind: ConfigMap\nb"',
    "# c\u2028kind: ConfigMap",
    "# c\x85kind: ConfigMap",
    "note: x\rkind: ConfigMap",
    "note: [a,\u2029kind: ConfigMap\n]",
    'note: &n ["a",\nkind: ConfigMap\n]',
    'note: !t "a\nkind: ConfigMap\nb"',
]

FILLER = [
    "apiVersion: v1",
    "metadata:\n  name: x",
    "metadata: {name: x}",
    "spec:\n  replicas: 1",
    "data:\n  k: \"v\"\n  j: 'w'",
    "items:\n- {apiVersion: v1, kind: DynamoCheckpoint, metadata: {name: i}}",
    "labels: {a: b}",
    "list:\n- a\n- [b, c]",
    "# a comment",
    "",
    "%YAML 1.1",
    "...",
    "text: >-\n  folded\n  lines",
    'anchored: &a [1, "x", *b]',
    "aliased: *a",
    "tagged: !!str 'x'",
]

SEPARATORS = ["---\n", "--- # c\n", "---\t\n", "--- \n"]

line_parts = st.one_of(
    st.sampled_from(FILLER),
    st.sampled_from(DECOYS),
    st.builds(lambda s, k: s.format(k=k), st.sampled_from(KIND_SPELLINGS), st.sampled_from(KINDS)),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    # Mostly the shape the scan may skip (a column-0 mapping with one decoy `kind:` line)
    # plus one real spelling of the key, so the skip path is exercised often.
    head = draw(st.sampled_from(["apiVersion: v1", "metadata: {name: x}", "# c\napiVersion: v1"]))
    parts = draw(st.lists(line_parts, min_size=0, max_size=4))
    parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(DECOYS)))
    if draw(st.booleans()):
        spelling = draw(st.sampled_from(KIND_SPELLINGS)).format(k=draw(st.sampled_from(KINDS)))
        parts.insert(draw(st.integers(0, len(parts))), spelling)
    return "\n".join([head, *parts]) + "\n"


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    docs = draw(st.lists(documents(), min_size=1, max_size=4))
    text = docs[0]
    for doc in docs[1:]:
        text += draw(st.sampled_from(SEPARATORS)) + doc
    if draw(st.booleans()):
        text = draw(st.sampled_from(SEPARATORS)) + text
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8")


def _skipped_pieces(text: str) -> list[str]:
    """The parts of the text the pre-scan leaves out."""
    parts = segments(text, KEPT)
    if parts is None:
        return []
    pieces, at = [], 0
    for part in parts:
        pieces.append(text[at : part.char_offset])
        at = part.char_offset + len(part.text)
    pieces.append(text[at:])
    return [p for p in pieces if p]


def _kept_kinds(data: bytes) -> list[str] | None:
    """Kinds the full reader finds among the kept ones, or None when it refuses the text."""
    try:
        objects = load_bytes(data, "p.yaml", allow_empty=True)
    except InputError:
        return None
    return [o.kind for o in objects if o.kind in KEPT]


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_prescan_never_skips_a_kept_kind(data: bytes) -> None:
    text = data.decode("utf-8").removeprefix("\ufeff")
    for piece in _skipped_pieces(text):
        found = _kept_kinds(piece.encode("utf-8"))
        assert not found, f"skipped a {found} document: {piece!r}"
    full = _kept_kinds(data)
    if full is not None:
        scanned = load_bytes(data, "p.yaml", kinds=KEPT, allow_empty=True)
        assert [o.kind for o in scanned] == full


# The spellings the issue names, one by one (each was skipped before the scan was sound).
def _stale(kind_line: str, decoy: str) -> bytes:
    return (
        f"apiVersion: nvidia.com/v1alpha1\n{kind_line}\nmetadata:\n  name: d\n"
        f"  annotations:\n    {decoy}\nspec: {{}}\n"
    ).encode()


def test_named_spellings_are_read() -> None:
    for kind_line, decoy in [
        ("kind : DynamoComponentDeployment", 'note: "a\nkind: ConfigMap\nb"'),
        ("!!str kind: DynamoComponentDeployment", "note: 'a\nkind: ConfigMap\nb'"),
        ("x: &k kind\n*k : DynamoComponentDeployment", "note: [a,\nkind: ConfigMap\n]"),
        ("kind : PodCliqueSet", "note: {a: b,\nkind: ConfigMap\n}"),
    ]:
        data = b"apiVersion: v1\nkind: ConfigMap\n---\n" + _stale(kind_line, decoy)
        kinds = [o.kind for o in load_bytes(data, "p.yaml", kinds=KEPT)]
        assert kinds == [kind_line.rsplit(" ", 1)[1]], kind_line
