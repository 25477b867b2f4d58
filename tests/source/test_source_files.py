"""Files, directories (recursive, sorted) and stdin."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from renderer.errors import InputError
from renderer.source import SourceObject, iter_yaml_files, load_paths

OBJ = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "b.yaml", OBJ.format(name="b"))
    write(tmp_path / "a.yml", OBJ.format(name="a"))
    write(tmp_path / "z" / "deep" / "c.yaml", OBJ.format(name="c"))
    write(tmp_path / "m" / "d.yaml", OBJ.format(name="d") + "---\n" + OBJ.format(name="e"))
    write(tmp_path / "notes.txt", "not yaml: [")
    write(tmp_path / "m" / "empty.yaml", "# nothing here\n")
    return tmp_path


def test_directory_files_in_sorted_order(tree: Path) -> None:
    files = [Path(f).relative_to(tree).as_posix() for f in iter_yaml_files(str(tree))]
    assert files == ["a.yml", "b.yaml", "m/d.yaml", "m/empty.yaml", "z/deep/c.yaml"]


def test_load_directory_recursively(tree: Path) -> None:
    objects = load_paths([str(tree)])
    assert [o.name for o in objects] == ["a", "b", "d", "e", "c"]
    assert objects[3].file == str(tree / "m" / "d.yaml")
    assert objects[3].doc_index == 1


def test_files_then_stdin_in_given_order(tree: Path) -> None:
    stdin = io.BytesIO(OBJ.format(name="from-stdin").encode())
    objects = load_paths([str(tree / "b.yaml"), "-"], stdin=stdin)
    assert [(o.name, o.file) for o in objects] == [
        ("b", str(tree / "b.yaml")),
        ("from-stdin", "<stdin>"),
    ]


def test_kinds_filter_through_paths(tree: Path) -> None:
    write(tree / "k.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
    assert [o.name for o in load_paths([str(tree)], kinds={"Secret"})] == ["s"]


def test_explicit_empty_file_is_an_error(tree: Path) -> None:
    with pytest.raises(InputError, match="no Kubernetes objects") as caught:
        load_paths([str(tree / "m" / "empty.yaml")])
    assert caught.value.file == str(tree / "m" / "empty.yaml")


def test_bad_file_in_a_directory_names_it(tree: Path) -> None:
    bad = write(tree / "m" / "bad.yaml", "apiVersion: v1\nkind: A\nx: [\n")
    with pytest.raises(InputError) as caught:
        load_paths([str(tree)])
    assert caught.value.file == str(bad)
    assert caught.value.line == 4


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read file") as caught:
        load_paths([str(tmp_path / "absent.yaml")])
    assert caught.value.exit_code == 2


def test_size_cap_applies_to_files_and_stdin(tmp_path: Path) -> None:
    big = write(tmp_path / "big.yaml", OBJ.format(name="x" * 200))
    with pytest.raises(InputError, match="larger than the size limit of 100 bytes"):
        load_paths([str(big)], max_bytes=100)
    with pytest.raises(InputError, match="larger than the size limit") as caught:
        load_paths(["-"], max_bytes=100, stdin=io.BytesIO(big.read_bytes()))
    assert caught.value.file == "<stdin>"


def test_a_file_named_twice_is_read_once_under_its_first_name(tree: Path) -> None:
    # a file and its directory, a second spelling of the path, and a link to the file:
    # one file, so its objects come once (else render sees two matching snapshots and lint
    # reports and fixes everything twice)
    (tree / "link.yaml").symlink_to(tree / "b.yaml")
    objects = load_paths(
        [
            str(tree / "b.yaml"),
            str(tree),
            str(tree / "m" / ".." / "b.yaml"),
            str(tree / "link.yaml"),
        ]
    )
    names = [(Path(o.file).relative_to(tree).as_posix(), o.name) for o in objects]
    assert names == [
        ("b.yaml", "b"),
        ("a.yml", "a"),
        ("m/d.yaml", "d"),
        ("m/d.yaml", "e"),
        ("z/deep/c.yaml", "c"),
    ]


def _reference_files(paths: list[str]) -> list[tuple[str, bool]]:
    """What `iter_files` must give: every path spelled as pathlib joins it, each real
    path (os.path.realpath of the file itself) once."""
    seen: set[str] = set()
    out: list[tuple[str, bool]] = []
    for path in paths:
        explicit = not Path(path).is_dir()
        for file in [path] if explicit else iter_yaml_files(path):
            real = os.path.realpath(file)
            if real not in seen:
                seen.add(real)
                out.append((file, explicit))
    return out


def test_walk_real_paths_match_realpath_of_each_file(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk knows each entry's real path from its directory's (no realpath per file);
    it must find exactly the duplicates realpath finds: links to files, a linked
    directory named directly, the same directory spelled several ways."""
    from renderer.source.files import iter_files

    (tree / "link.yaml").symlink_to(tree / "m" / "d.yaml")
    (tree / "m" / "up.yaml").symlink_to(Path("..") / "b.yaml")
    (tree / "dirlink").symlink_to(tree / "z")
    (tree / "dangling.yaml").symlink_to(tree / "nowhere.yaml")
    monkeypatch.chdir(tree)
    spellings = [
        ["."],
        ["./m", "m/", "m//", str(tree / "z" / ".." / "m")],
        ["dirlink", "z"],
        ["link.yaml", "."],
        [str(tree), "m/d.yaml", "dirlink/deep"],
    ]
    for paths in spellings:
        assert list(iter_files(paths)) == _reference_files(paths), paths
    (tree / "dangling.yaml").unlink()  # (a read error, named by the read)
    assert [o.name for o in load_paths(["link.yaml", "."])] == ["d", "e", "a", "b", "c"]


def test_a_memo_gives_the_objects_a_parse_gives_and_parses_a_changed_file_anew(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from renderer.source.files import ReadMemo
    from renderer.source.reader import load_bytes

    memo = ReadMemo()
    with_spans = load_paths([str(tree)], spans=True, allow_empty=True, memo=memo)
    assert any(o.value_spans for o in with_spans)
    write(tree / "b.yaml", OBJ.format(name="b2"))  # changed between the two reads
    parsed: list[str] = []

    def counting(data: bytes, name: str, **options: Any) -> list[SourceObject]:
        parsed.append(Path(name).name)
        return load_bytes(data, name, **options)

    monkeypatch.setattr("renderer.source.files.load_bytes", counting)
    again = load_paths([str(tree)], allow_empty=True, memo=memo)
    assert parsed == ["b.yaml"]  # the others' bytes are what the memo holds
    monkeypatch.undo()
    # what a read without a memo (and without spans) gives: data, marks, no spans
    assert again == load_paths([str(tree)], allow_empty=True)
    assert [o.name for o in again] == ["a", "b2", "d", "e", "c"]
    # a read asking for spans is not served by objects read without them
    assert load_paths([str(tree)], spans=True, allow_empty=True, memo=memo) == load_paths(
        [str(tree)], spans=True, allow_empty=True
    )


def test_a_memo_keeps_the_options_apart(tree: Path) -> None:
    from renderer.source.files import ReadMemo

    memo = ReadMemo()
    assert load_paths([str(tree)], kinds={"Secret"}, memo=memo) == []
    assert [o.name for o in load_paths([str(tree)], memo=memo)] == ["a", "b", "d", "e", "c"]
