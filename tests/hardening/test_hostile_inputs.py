"""Regressions from fuzzing the commands: positions, one-line messages, odd files and stdin.

Each test pins one defect the fuzz campaign found (see tests/hardening/inputs/README.md for the
corpus): positions that disagreed with the parser's own line count when a file uses CR,
NEL or U+2028 line breaks; messages that quoted a newline or an escape sequence from the
input and so spanned several lines (or drove the terminal); a FIFO among a directory's
`*.yaml` files that hung every command; over-long path names and a second `-` that ended
in a traceback or a misleading message.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import FIXTURES, TESTS, VECTORS

from renderer.cli import main
from renderer.errors import InputError, one_line
from renderer.source import load_bytes, load_paths

MINIMAL = (VECTORS / "01-minimal.input.yaml").read_text()
DCD_KINDS = {"DynamoComponentDeployment"}


def _fails(data: bytes, **options: object) -> InputError:
    with pytest.raises(InputError) as caught:
        load_bytes(data, "f.yaml", **options)  # type: ignore[arg-type]
    return caught.value


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- positions count line breaks as the parser does ------------------------------------
# libyaml and go-yaml (YAML 1.1) break lines at CR LF, CR, LF, NEL, U+2028 and U+2029.
BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"]


def _lines(sep: str, *lines: str) -> str:
    return "".join(line + sep for line in lines)


@pytest.mark.parametrize("sep", BREAKS, ids=repr)
def test_control_character_position_counts_every_line_break(sep: str) -> None:
    text = _lines(sep, "apiVersion: v1", "kind: A", "metadata:", "  name: \x07x")
    for codec, bom in (("utf-8", b""), ("utf-16-le", b"\xff\xfe")):
        error = _fails(bom + text.encode(codec))
        assert (error.line, error.column) == (4, 9), (codec, str(error))


@pytest.mark.parametrize("sep", BREAKS, ids=repr)
def test_invalid_utf8_is_read_as_kubectl_reads_it(sep: str) -> None:
    """kubectl decodes a file through golang.org/x/text's UTF-8 decoder: an invalid byte
    is U+FFFD, whatever the line breaks (the kubectl oracle applies such a file)."""
    data = _lines(sep, "apiVersion: v1", "kind: A", "metadata:").encode() + b"  name: \xff\n"
    (obj,) = load_bytes(data, "f.yaml")
    assert obj.name == "\ufffd"
    assert obj.mark(("metadata", "name"), key=False) == (4, 9)


@pytest.mark.parametrize("sep", BREAKS, ids=repr)
def test_escaped_slash_position_counts_every_line_break(sep: str) -> None:
    text = _lines(sep, "apiVersion: v1", "kind: A", "data:", '  v: "a', '    b\\/"')
    error = _fails(text.encode())
    assert "unknown escape character '\\/'" in error.message
    assert (error.line, error.column) == (5, 6), str(error)


@pytest.mark.parametrize("sep", ["\r", "\x85", "\u2028"], ids=repr)
def test_skipped_documents_keep_later_lines_right(sep: str) -> None:
    """A document lint skips unparsed still counts its lines as the parser would."""
    other = f"apiVersion: v1\nkind: ConfigMap\n# one{sep}two\ndata: {{}}\n"
    bad = "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata: [\n"
    data = (other + "---\n" + bad).encode()
    whole = _fails(data + b"x: y\n")  # parsed in one go: the parser's own count
    assert "line 4, column 1" in whole.message  # `two` is a line of its own, and not a key
    # So the pre-scan, which reads lines as the parser does, parses that document (and
    # reports it); with `two` a comment as well, the document is skipped unparsed:
    error = _fails(data, kinds=DCD_KINDS)
    assert "while scanning a simple key at line 4, column 1" in error.message, str(error)
    skipped = (other.replace(f"{sep}two", f"{sep}# two") + "---\n" + bad).encode()
    error = _fails(skipped, kinds=DCD_KINDS)
    assert (error.line, error.column) == (10, 1), str(error)


# --- messages are one line, whatever the input quotes ----------------------------------
def test_one_line_escapes_breaks_controls_and_bidi() -> None:
    assert one_line("a\nb\r\x1b[31mc\x85d\u2028e\u202ef\tg") == (
        "a\\nb\\r\\x1b[31mc\\x85d\\u2028e\\u202ef\tg"
    )
    assert one_line("plain: text, é, 日本") == "plain: text, é, 日本"


def test_error_quoting_a_newline_and_an_escape_stays_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text('apiVersion: "dynamo-render/v1\\n\\e]0;owned\\a"\nkind: Config\n')
    code, out, err = _cli(capsys, "--config", str(config), "lint", str(tmp_path))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err, err
    assert err.startswith(f"dynamo-render: error: {config}:1:13: "), err
    assert "dynamo-render/v1\\n\\x1b]0;owned\\x07" in err


def test_usage_error_quoting_an_escape_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "binding", "--\x1b[2J")
    assert (code, out) == (2, "")
    assert "\x1b" not in err and "--\\x1b[2J" in err


# --- odd files and paths -----------------------------------------------------------------
def _run_child(
    *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("command", ["binding", "lint"])
def test_fifo_in_a_directory_is_refused_not_read(command: str, tmp_path: Path) -> None:
    """Reading a FIFO nobody writes to blocks forever: inside a directory walk, refuse it."""
    (tmp_path / "snap.yaml").write_text(MINIMAL)
    os.mkfifo(tmp_path / "z-pipe.yaml")
    proc = _run_child(command, str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == (
        f"dynamo-render: error: {tmp_path / 'z-pipe.yaml'}: not a regular file"
        " (a FIFO, socket or device): only regular files are read; pipe a stream to -"
        " (standard input) instead\n"
    )


def test_symlink_to_a_directory_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "snap.yaml").write_text(MINIMAL)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.yaml").write_text(MINIMAL.replace("checkpoint-a1b2c3d4", "other"))
    (tmp_path / "link.yaml").symlink_to("sub")  # named like a file
    (tmp_path / "loop").symlink_to(".")
    objects = load_paths([str(tmp_path)])
    assert [o.file for o in objects] == [str(tmp_path / "snap.yaml"), str(tmp_path / "sub/x.yaml")]


LONG = "x" * 300  # longer than any file name a file system allows


@pytest.fixture
def in_key_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A working directory holding a key pair `k` (private) and `k.pub`."""
    from renderer.trust import generate_key_pair

    private, public, _ = generate_key_pair()
    (tmp_path / "k").write_bytes(private)
    (tmp_path / "k.pub").write_bytes(public)
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("in_key_dir")
@pytest.mark.parametrize(
    "args",
    [
        ("binding", LONG),
        ("lint", LONG),
        ("render", LONG),
        ("snapshot", "sign", LONG, "--key", "k"),
        ("snapshot", "verify", LONG, "--key", "k.pub"),
        ("binding", f"{LONG}/x.yaml"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_over_long_path_is_one_clean_error(
    args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(capsys, *args)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("dynamo-render: error: "), err
    assert "name too long" in err.lower(), err


@pytest.mark.usefixtures("in_key_dir")
def test_snapshot_sign_of_a_missing_file_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "snapshot", "sign", "absent.yaml", "--key", "k")
    assert code == 2 and err == "dynamo-render: error: absent.yaml: No such file or directory\n"


# --- stdin is read once ----------------------------------------------------------------
STDIN_TWICE = "dynamo-render: error: <stdin>: standard input was already read: give - only once\n"


@pytest.mark.parametrize(
    "args",
    [
        ("binding", "-", "-"),
        ("lint", "-", "-"),
        ("render", "-", "--checkpoint", "-"),
        ("lint", "-", "--checkpoint", "-"),
    ],
    ids=" ".join,
)
def test_stdin_named_twice_is_refused(args: tuple[str, ...]) -> None:
    dgd = TESTS.parent / "examples" / "llama-disagg-v1beta1" / "dgd.yaml"
    proc = _run_child(*args, stdin=(dgd.read_text() if args[0] == "render" else MINIMAL).encode())
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", STDIN_TWICE)


def test_stdin_once_still_works() -> None:
    proc = _run_child("binding", "-", stdin=MINIMAL.encode())
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(r"dynamo-prod/checkpoint-a1b2c3d4 v1/\S+\n", proc.stdout)


# --- linear time and bounded output for escapes and aliases -----------------------------
HEAD = b"apiVersion: v1\nkind: A\n"


@pytest.mark.parametrize("count", [1, 8, 9, 3000])
def test_many_apostrophe_escapes_read_as_go_yaml_does(count: int) -> None:
    """go-yaml reads `\\'`; libyaml does not. Past a few, one pure-parser pass reads them
    all (each used to cost a parse from the start: 20,000 of them never finished)."""
    items = b", ".join([b'"it\\\'s"'] * count)
    (obj,) = load_bytes(HEAD + b"v: [" + items + b"]\nw: '\\'\n", "f.yaml")
    assert obj.data["v"] == ["it's"] * count
    assert obj.data["w"] == "\\"


def test_apostrophe_and_esc_escapes_in_one_string() -> None:
    (obj,) = load_bytes(HEAD + b'v: "a\\e\\\'b"\n', "f.yaml")
    assert obj.data["v"] == "a\x1b'b"


def test_escaped_slash_is_still_refused_after_many_apostrophes() -> None:
    items = b", ".join([b'"x\\\'"'] * 12)
    error = _fails(HEAD + b"v: [" + items + b']\nw: "\\/"\n')
    assert "unknown escape character '\\/'" in error.message
    assert (error.line, error.column) == (4, 5)


def _aliased_string(length: int, aliases: int) -> bytes:
    text = b'"' + b"x" * length + b'"'
    return HEAD + b"a: &s " + text + b"\nb: [" + b", ".join([b"*s"] * aliases) + b"]\n"


def test_one_long_string_aliased_many_times_is_a_bomb() -> None:
    """500 aliases of a 10,000-character string: few nodes, but 5 MB for every consumer."""
    error = _fails(_aliased_string(10_000, 500))
    assert error.message == "aliases expand to more than 4194304 characters of text (alias bomb?)"
    assert error.line == 4
    (obj,) = load_bytes(_aliased_string(10_000, 400), "f.yaml")  # 4 MB: within the cap
    assert len(obj.data["b"]) == 400


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("3.4028234663852886e38", "3.4028235e+38"),  # float32's largest
        ("3.4028235677973366e38", ".inf"),  # rounds to infinity in float32 (no overflow)
        ("3.5e38", ".inf"),
        ("-3.5e38", "-.inf"),
        ("1e300", ".inf"),
        ("1e-50", "0"),
    ],
)
def test_float_keys_beyond_float32(key: str, expected: str) -> None:
    """sigs.k8s.io/yaml writes a float key with FormatFloat(f, 'g', -1, 32): float32(f)
    overflows to ±Inf, written .inf/-.inf (a crash here before)."""
    (obj,) = load_bytes(HEAD + f"data: {{{key}: a}}\n".encode(), "f.yaml")
    assert obj.data["data"] == {expected: "a"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_planted_as_the_signature_file_does_not_hang(tmp_path: Path) -> None:
    """Nobody names `<snapshot>.sig`: whatever sits there is opened without blocking."""
    from renderer.trust import generate_key_pair

    (tmp_path / "k.pub").write_bytes(generate_key_pair()[1])
    (tmp_path / "snap.yaml").write_text(MINIMAL)
    os.mkfifo(tmp_path / "snap.yaml.sig")
    proc = _run_child("snapshot", "verify", "snap.yaml", "--key", "k.pub", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (
        "dynamo-render: snap.yaml.sig: cannot read signature file: not a regular file\n"
    )
    (tmp_path / "snap.yaml.sig").unlink()
    (tmp_path / "snap.yaml.sig").symlink_to("/dev/zero")
    proc = _run_child("snapshot", "verify", "snap.yaml", "--key", "k.pub", cwd=tmp_path)
    assert proc.returncode == 1 and "not a regular file" in proc.stderr, proc.stderr


@pytest.mark.parametrize("cap", ["9223372036854775807", "99999999999999999999999"])
def test_huge_size_cap_reads_what_the_file_holds(
    cap: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """read(cap + 1) with a cap beyond the index range raised OverflowError."""
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL)
    code, out, err = _cli(capsys, "binding", str(snap), "--max-bytes", cap)
    assert (code, err) == (0, ""), err
    assert out.startswith("dynamo-prod/checkpoint-a1b2c3d4 v1/")


def test_size_cap_over_chunks_of_stdin() -> None:
    proc = _run_child("binding", "-", "--max-bytes", "2000000", stdin=b"#" * 3_000_000)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        "dynamo-render: error: <stdin>:1:2000001: file is larger than the size limit of"
        " 2000000 bytes (raise it with --max-bytes)\n"
    )


def test_removed_working_directory(tmp_path: Path) -> None:
    """Config discovery starts at the working directory; a removed one holds no config."""
    snap = tmp_path / "snap.yaml"
    snap.write_text(MINIMAL)
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]);"
        " from renderer.cli import main; sys.exit(main(sys.argv[2:]))"
    )
    run = [sys.executable, "-c", script, str(gone)]
    proc = subprocess.run([*run, "binding", str(snap)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    gone.mkdir()
    config = tmp_path / "c.yaml"
    config.write_text("apiVersion: dynamo-render/v1\nkind: Config\n")
    proc = subprocess.run(
        [*run, "--config", str(config), "binding", str(snap)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr.startswith(f"dynamo-render: error: {config}: cannot resolve the config's")


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\U0000d800", "\\U00110000"])
@pytest.mark.parametrize(
    "forces_pure_parser",
    ["t: [2025-06-01T00:00:00Z]\n", "t: [" + ", ".join(['"\\\'"'] * 9) + "]\n"],
    ids=["colon-in-flow", "apostrophe-escapes"],
)
def test_surrogate_and_out_of_range_escapes_are_refused_by_both_parsers(
    escape: str, forces_pure_parser: str
) -> None:
    """libyaml and go-yaml refuse them; the pure-Python parser (used for files libyaml
    reads differently from go-yaml) made a lone surrogate, or crashed in chr()."""
    line = f'v: "a{escape}"\n'
    for text in (line, forces_pure_parser + line):
        error = _fails(HEAD + text.encode())
        assert "found invalid Unicode character escape code" in error.message
        assert error.line == 3 + text.count("\n") - 1


@pytest.mark.skipif(sys.platform == "darwin", reason="file names must be UTF-8 there")
@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii:strict"])
def test_non_utf8_file_name_in_a_report_under_any_locale(encoding: str, tmp_path: Path) -> None:
    """A file name that is not UTF-8 comes out as its own bytes; with a strict or ASCII
    stdout, printing it (or any non-ASCII name) failed with UnicodeEncodeError."""
    fixture = FIXTURES / "lint" / "dcd-v1beta1" / "binding-malformed.yaml"
    name = os.fsencode(tmp_path) + b"/bad\xff\xc3\xa9.yaml"
    Path(os.fsdecode(name)).write_bytes(fixture.read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "lint", name, "--format", "text"],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1"},
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert proc.stdout.startswith(name + b":"), proc.stdout[:200]


# --- the pure-Python parser stays linear -------------------------------------------------
def _nested_flow_groups(groups: int) -> str:
    """A checkpoint whose status (not bound) holds a timestamp in a flow sequence, which
    sends the file to the pure-Python parser, and `groups` runs of 250 nested `[`."""
    nested = ("[" * 250 + "]" * 250 + ", ") * groups
    return MINIMAL + f"status:\n  t: [2025-06-01T00:00:00Z]\n  x: [{nested}]\n"


def test_pure_parser_on_nested_flow_is_linear() -> None:
    """ruamel's scanner examined every pending simple key (one per open `[` on the line)
    for each token: 400 runs of 250 nested `[` took 13 s to bind, now 3 s. Counted, not
    timed: reads of the scanner's input position per character of input (stock: ~510)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.scanner import Scanner

    from renderer.source.reader import _go_scanner

    text = "x: [" + ("[" * 250 + "]" * 250 + ", ") * 40 + "]\n"
    reads = 0

    class Counting(_go_scanner()):  # type: ignore[misc]
        @property
        def reader(self) -> object:
            nonlocal reads
            reads += 1
            return Scanner.reader.fget(self)  # type: ignore[attr-defined]

    yaml = YAML(typ="safe", pure=True)
    yaml.Scanner = Counting
    assert sum(1 for _ in yaml.parse(text)) == 20_009
    assert reads < 60 * len(text), reads / len(text)
    (obj,) = load_bytes(_nested_flow_groups(2).encode(), "snap.yaml")
    assert obj.data["status"]["t"] == ["2025-06-01T00:00:00Z"]


@pytest.mark.parametrize(
    "text",
    [
        _nested_flow_groups(3),
        "a: [[b, c]: d, {e: [f]}: g, [h]]\n",
        "? [a]\n: b\n",
        "{a: b, c: [d, e: f]}\n",
        "[a: b, c]\n",
        "k: [t: 2025-06-01T00:00:00Z, " + "x" * 1100 + ": y]\n",
        "- a\n  b: c\n",
        "a:\n  b\nc: d\n",
    ],
)
def test_pure_scanner_events_are_ruamels(text: str) -> None:
    """The faster simple-key bookkeeping gives exactly the stock scanner's events."""
    from ruamel.yaml import YAML

    from renderer.source.reader import _go_scanner

    def events(scanner: type | None) -> list[object]:
        yaml = YAML(typ="safe", pure=True)
        if scanner is not None:
            yaml.Scanner = scanner
        out: list[object] = []
        try:
            for event in yaml.parse(text):
                value = getattr(event, "value", None)
                out.append((type(event).__name__, value, event.start_mark.index))
        except Exception as exc:
            out.append((type(exc).__name__, str(exc)))
        return out

    assert events(_go_scanner()) == events(None)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"ls\xe2\x80\xa8x.yaml", b"ls\\u2028x.yaml"),  # U+2028 line separator
        (b"nel\xc2\x85x.yaml", b"nel\\x85x.yaml"),  # NEL
        (b"csi\xc2\x9b31m.yaml", b"csi\\x9b31m.yaml"),  # C1 control sequence introducer
        (b"rlo\xe2\x80\xaex.yaml", b"rlo\\u202ex.yaml"),  # right-to-left override
        (b"e\xc3\xa9.yaml", b"e\xc3\xa9.yaml"),  # plain text: its own bytes
        (b"bad\xff.yaml", b"bad\xff.yaml"),  # not UTF-8: its own bytes
    ],
)
def test_a_file_name_held_as_surrogate_escapes_is_printed_safely(raw: bytes, shown: bytes) -> None:
    # Under an ASCII file-system encoding (LC_ALL=C with PYTHONUTF8=0) every non-ASCII name
    # arrives as surrogate escapes and is written back as its bytes: those bytes must not
    # spell a line break, a control or a bidi override.
    assert (
        one_line(raw.decode("ascii", "surrogateescape")).encode("ascii", "surrogateescape") == shown
    )
