"""Bad input: one InputError (exit code 2) naming file:line:column, never a traceback."""

from __future__ import annotations

import time

import pytest

from renderer.errors import InputError
from renderer.source import DEFAULT_MAX_BYTES, load_bytes, to_go_json

HEAD = b"apiVersion: v1\nkind: ConfigMap\n"


def fails(data: bytes, **options: object) -> InputError:
    with pytest.raises(InputError) as caught:
        load_bytes(data, "bad.yaml", **options)  # type: ignore[arg-type]
    error = caught.value
    assert error.exit_code == 2
    assert error.file == "bad.yaml"
    assert str(error).startswith(f"bad.yaml:{error.line}:{error.column}: ")
    return error


def at(error: InputError) -> tuple[int | None, int | None]:
    return error.line, error.column


def test_malformed_yaml() -> None:
    error = fails(HEAD + b"data: [a, b\n")
    assert "invalid YAML" in error.message and "expected ',' or ']'" in error.message
    assert "line 3, column 7" in error.message  # where the flow sequence started
    assert at(error) == (4, 1)


def test_duplicate_keys_name_both_lines() -> None:
    error = fails(HEAD + b"metadata:\n  name: a\n  labels: {}\n  name: b\n")
    assert 'duplicate key "name"' in error.message
    assert "first set on line 4" in error.message
    assert at(error) == (6, 3)


def test_yes_and_true_are_the_same_key() -> None:
    error = fails(HEAD + b"data:\n  true: a\n  yes: b\n")
    assert "duplicate key true (first set on line 4)" in error.message
    assert at(error) == (5, 3)


def test_merge_overrides_are_not_duplicates() -> None:
    (obj,) = load_bytes(HEAD + b"base: &b {x: 1, z: 2}\ndata:\n  <<: *b\n  z: 3\n", "ok.yaml")
    assert obj.data["data"] == {"x": 1, "z": 3}


def test_tab_indentation() -> None:
    error = fails(HEAD + b"metadata:\n\tname: a\n")
    assert "cannot start any token" in error.message
    assert at(error) == (4, 1)


def test_nul_byte() -> None:
    error = fails(HEAD + b"data:\n  k: a\x00b\n")
    assert "NUL byte" in error.message
    assert at(error) == (4, 7)


def test_other_control_character() -> None:
    error = fails(HEAD + b"data:\n  k: a\x07b\n")
    assert "U+0007" in error.message
    assert at(error) == (4, 7)


def test_invalid_utf8_is_u_fffd_as_kubectl_decodes_it() -> None:
    """kubectl's decoder makes each maximal invalid UTF-8 sequence one U+FFFD (the kubectl
    oracle sends "\ufffd\ufffda\ufffd\ufffd\ufffd" for these bytes)."""
    data = HEAD + b'data:\n  k: "\xff\xe2\x82a\xed\xa0\x80"\n'
    (obj,) = load_bytes(data, "f.yaml")
    assert obj.data["data"]["k"] == "\ufffd\ufffda\ufffd\ufffd\ufffd"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_read_like_go_yaml(codec: str) -> None:
    text = "\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: café\n"
    (obj,) = load_bytes(text.encode(codec), "utf16.yaml")
    assert obj.name == "café"
    assert obj.mark(("metadata", "name"), key=False) == (4, 9)


def test_utf8_bom_is_dropped_and_columns_ignore_it() -> None:
    (obj,) = load_bytes(b"\xef\xbb\xbf" + HEAD, "bom.yaml")
    assert obj.kind == "ConfigMap"
    assert obj.mark(("apiVersion",)) == (1, 1)


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be"])
def test_utf32_is_rejected_clearly(codec: str) -> None:
    error = fails(("\ufeff" + HEAD.decode()).encode(codec))
    assert "UTF-32 is not supported" in error.message
    assert at(error) == (1, 1)


def test_utf16_without_bom_gets_a_hint() -> None:
    error = fails(HEAD.decode().encode("utf-16-le"))
    assert "NUL byte" in error.message and "UTF-16" in error.message


def billion_laughs() -> bytes:
    lines = [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [{','.join([f'*{previous}'] * 9)}]".encode())
        previous = name
    return HEAD + b"\n".join(lines) + b"\n"


def test_alias_bomb_fails_fast() -> None:
    bomb = billion_laughs()
    assert len(bomb) < 1100
    start = time.perf_counter()
    error = fails(bomb)
    elapsed = time.perf_counter() - start
    assert "alias" in error.message and "100000 nodes" in error.message
    assert error.line == 8  # the first alias that crosses the cap
    # Not a timing assertion on the tool's speed: a guard that expansion never happens.
    assert elapsed < 5


def test_alias_cap_is_configurable() -> None:
    data = HEAD + b"a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"
    assert load_bytes(data, "ok.yaml")[0].data["b"] == [[1, 2, 3]] * 3
    error = fails(data, max_alias_nodes=8)
    assert at(error) == (4, 13)


def test_aliases_are_independent_copies() -> None:
    (obj,) = load_bytes(HEAD + b"a: &a {x: [1]}\nb: *a\n", "ok.yaml")
    obj.data["b"]["x"].append(2)
    assert obj.data["a"] == {"x": [1]}


@pytest.mark.parametrize(
    "body",
    [
        b"d: " + b"[" * 300 + b"]" * 300 + b"\n",
        b"".join(b"  " * i + b"k:\n" for i in range(300)),
    ],
    ids=["flow", "block"],
)
def test_deep_nesting_is_capped(body: bytes) -> None:
    error = fails(HEAD + body)
    assert "nesting deeper than 256 levels" in error.message
    assert error.line is not None and error.line >= 3


def test_nesting_below_the_cap_is_fine() -> None:
    (obj,) = load_bytes(HEAD + b"d: " + b"[" * 254 + b"]" * 254 + b"\n", "ok.yaml")
    depth, value = 0, obj.data["d"]
    while value:
        value, depth = value[0], depth + 1
    assert depth == 253
    assert to_go_json(obj.data).count("[") == 254  # consumers can recurse this deep


def test_file_over_the_size_cap() -> None:
    assert DEFAULT_MAX_BYTES == 16 * 1024 * 1024
    data = HEAD + b"# " + b"x" * 100 + b"\n"
    error = fails(data, max_bytes=40)
    assert "larger than the size limit of 40 bytes" in error.message
    assert at(error) == (3, 10)  # where byte 40 is
    assert load_bytes(data, "ok.yaml", max_bytes=len(data))[0].kind == "ConfigMap"


@pytest.mark.parametrize("data", [b"", b"# only a comment\n", b"---\n", b"---\n# c\n---\n", b"~\n"])
def test_stream_without_objects(data: bytes) -> None:
    error = fails(data)
    assert "no Kubernetes objects" in error.message
    assert at(error) == (1, 1)
    assert load_bytes(data, "empty.yaml", allow_empty=True) == []


def test_empty_documents_between_objects_are_skipped_like_kubectl() -> None:
    objects = load_bytes(HEAD + b"---\n---\n# nothing\n---\nnull\n---\n" + HEAD, "s.yaml")
    assert [o.doc_index for o in objects] == [0, 4]


def test_document_that_is_a_scalar() -> None:
    error = fails(HEAD + b"---\njust text\n")
    assert "document 2 is a string, not a Kubernetes object" in error.message
    assert at(error) == (4, 1)


def test_document_that_is_a_list() -> None:
    error = fails(b"- a\n- b\n")
    assert "document 1 is a list" in error.message
    assert at(error) == (1, 1)


def test_object_without_api_version() -> None:
    error = fails(b"kind: ConfigMap\nmetadata: {name: a}\n")
    assert "object has no apiVersion" in error.message
    assert at(error) == (1, 1)


def test_object_without_kind() -> None:
    error = fails(b"---\napiVersion: v1\nmetadata: {name: a}\n")
    assert "object has no kind" in error.message
    assert at(error) == (2, 1)


def test_kind_that_is_not_a_string() -> None:
    error = fails(b"apiVersion: v1\nkind: 3\n")
    assert "kind must be a non-empty string, not a number" in error.message
    assert at(error) == (2, 7)


def test_list_whose_items_is_not_a_list() -> None:
    error = fails(b"apiVersion: v1\nkind: List\nitems: {a: 1}\n")
    assert "items that are a mapping, not a list" in error.message
    assert at(error) == (3, 8)


def test_list_item_that_is_not_an_object() -> None:
    error = fails(b"apiVersion: v1\nkind: List\nitems:\n- 3\n")
    assert "item 0 of kind: List is a number" in error.message
    assert at(error) == (4, 3)


def test_list_item_without_kind() -> None:
    error = fails(b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata: {}\n")
    assert "object has no kind" in error.message
    assert at(error) == (4, 3)


def test_special_floats_are_errors() -> None:
    error = fails(HEAD + b"data:\n  k: .inf\n")
    assert "+Inf" in error.message
    assert at(error) == (4, 6)


def test_null_key() -> None:
    error = fails(HEAD + b"data:\n  ~: a\n")
    assert "unsupported map key" in error.message
    assert at(error) == (4, 3)


def test_escape_go_rejects() -> None:
    error = fails(HEAD + b'data:\n  k: "a\\/b"\n')
    assert "unknown escape character" in error.message
    assert at(error) == (4, 8)  # the backslash


def test_libyaml_strictness_go_does_not_share() -> None:
    # `:` inside flow plain scalars and the `\'` escape: go-yaml reads both.
    (obj,) = load_bytes(HEAD + b'a: [2025-06-01T00:00:00Z]\nb: "it\\\'s"\n', "ok.yaml")
    assert obj.data["a"] == ["2025-06-01T00:00:00Z"]
    assert obj.data["b"] == "it's"
    assert obj.mark(("b",), key=False) == (4, 4)


def test_invalid_utf16_is_u_fffd_as_kubectl_decodes_it() -> None:
    text = "\ufeffapiVersion: v1\nkind: ConfigMap\ndata: x"
    data = text.encode("utf-16-le") + b"\x00\xd8" + "y\n".encode("utf-16-le")  # lone surrogate
    (obj,) = load_bytes(data, "f.yaml")
    assert obj.data["data"] == "x\ufffdy"
