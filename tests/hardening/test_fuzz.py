"""Mutation fuzzing of valid snapshots and manifests through the CLI (hypothesis, bounded).

Properties, for byte flips, line deletions and duplications, and bound-field replacements:
- every command exits 0, 1 or 2 and never lets an exception other than its own escape
  (in-process: `main()` returns an int; in a child: no `Traceback` on stderr);
- a snapshot whose bound field was changed is never accepted: `binding --verify` of the
  original binding and `snapshot verify` of the original signature both exit 1 or 2.

Runs in-process through `renderer.cli.main` for speed, plus a few child processes. The
example budget keeps the whole file well under a minute.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from example_budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import TESTS, VECTORS

from renderer.cli import main

EXAMPLES = TESTS.parent / "examples"
EXPECTED = {
    row["case"]: row
    for row in map(json.loads, (VECTORS / "expected.jsonl").read_text().splitlines())
}
# Valid snapshots only (the error cases 47-55 cannot be bound to begin with).
SNAPSHOTS = sorted(
    p
    for p in VECTORS.glob("*.input.yaml")
    if EXPECTED[p.name.removesuffix(".input.yaml")]["error"] is None
)


def _example_checkpoints() -> list[Path]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        p
        for p in EXAMPLES.rglob("*.yaml")
        if "kind: DynamoCheckpoint" in p.read_text(errors="replace")
    )


SOURCES = SNAPSHOTS + _example_checkpoints()
FUZZ = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # CI runs are reproducible; change the seed locally to explore
)

# Lines holding a bound field in the vectors, with the key as the vectors spell it:
# metadata fields at indent 2 (ownerReferences' name and uid are deeper, and not bound),
# any container image, and the projected labels and annotations.
_METADATA_KEYS = ["name", "namespace", "uid", "generation"]
BOUND_KEYS = [
    "image",
    '"nvidia.com/snapshot-checkpoint-id"',
    '"nvidia.com/dynamo-component"',
    '"nvidia.com/dynamo-worker-hash"',
    '"nvidia.com/snapshot-artifact-version"',
    '"nvidia.com/dynamo-auto-checkpoint"',
]
_BOUND_LINE = re.compile(
    r"(?m)^(?:  (?P<meta>"
    + "|".join(_METADATA_KEYS)
    + r")|(?P<indent> +)(?P<other>"
    + "|".join(map(re.escape, BOUND_KEYS))
    + r")): (?P<value>.+)$"
)


def _run(*args: str) -> tuple[int, str, str]:
    """`main(args)` in-process, capturing output; any escaping exception fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


# --- mutation strategies ------------------------------------------------------------------
@st.composite
def byte_mutations(draw: st.DrawFn, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["flip", "set", "delete", "insert"]))
        if op == "flip":
            out[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            out[i] = draw(st.integers(0, 255))
        elif op == "delete":
            del out[i]
        else:
            out.insert(i, draw(st.sampled_from(b"\x00\t\n \"'#&*!|>-:[]{}%@`\\\xff\xc3")))
    return bytes(out)


@st.composite
def line_mutations(draw: st.DrawFn, text: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        if draw(st.booleans()):
            del lines[i]
        else:
            lines.insert(i, lines[i])
        if not lines:
            break
    return "".join(lines)


_REPLACEMENTS = st.one_of(
    st.text(min_size=0, max_size=12),
    st.integers(-(2**65), 2**65).map(str),
    st.sampled_from(["true", "false", "null", "~", "0x1", "1e3", "01", "+1", "yes", "[]", "{}"]),
)


@st.composite
def bound_field_replacements(draw: st.DrawFn, text: str) -> tuple[str, str]:
    """Replace the value of one bound field with a different value; returns (text, key)."""
    matches = list(_BOUND_LINE.finditer(text))
    m = draw(st.sampled_from(matches))
    old = m.group("value")
    raw = draw(_REPLACEMENTS)
    # A JSON string is a valid YAML double-quoted scalar; a plain form is tried too.
    new = draw(st.sampled_from([json.dumps(raw), raw])) if raw.strip() else json.dumps(raw)
    if new.strip() in (old.strip(), json.dumps(old.strip('"'))) or _same_scalar(old, new):
        new = json.dumps(old.strip('"') + "x")
    key = m.group("meta") or m.group("other")
    return text[: m.start("value")] + new + text[m.end("value") :], key


def _same_scalar(old: str, new: str) -> bool:
    """Would YAML read both as the same value? (e.g. `1` and `01`; `"a"` and `a`)."""
    from renderer.errors import InputError
    from renderer.source.reader import iter_values

    try:
        a = next(iter_values(f"k: {old}\n".encode(), "x"))
        b = next(iter_values(f"k: {new}\n".encode(), "x"))
    except (InputError, StopIteration):
        return False
    return bool(a == b and type(a) is type(b))


# --- snapshot signatures --------------------------------------------------------------
def _signed_copy(source: Path, work: Path) -> tuple[Path, Path]:
    """`source` copied and signed in `work`; returns (snapshot path, public key path)."""
    snap = work / "snap.yaml"
    snap.write_bytes(source.read_bytes())
    assert _run("snapshot", "keygen", "--out", str(work / "k"))[0] == 0
    code, _, err = _run("snapshot", "sign", str(snap), "--key", str(work / "k.key"))
    assert code == 0, err
    return snap, work / "k.pub"


@FUZZ
@given(data=st.data())
def test_mutated_snapshot_bytes_never_crash_verify(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SOURCES))
    with _workdir() as work:
        snap, pub = _signed_copy(source, work)
        original = snap.read_bytes()
        mutated = data.draw(byte_mutations(original))
        snap.write_bytes(mutated)
        code, _, err = _run("snapshot", "verify", str(snap), "--key", str(pub))
        assert code in (0, 1, 2), (code, err)
        if code == 0:
            # Accepted only if what the bindings depend on is unchanged.
            from renderer.source import load_paths
            from renderer.trust import signed_message

            snap.write_bytes(original)
            before = signed_message(load_paths([str(snap)]))
            snap.write_bytes(mutated)
            assert signed_message(load_paths([str(snap)])) == before
        elif code == 2:
            assert err.startswith("dynamo-render: error: ") and err.count("\n") == 1, err


@FUZZ
@given(data=st.data())
def test_mutated_snapshot_lines_never_crash_verify(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SOURCES))
    with _workdir() as work:
        snap, pub = _signed_copy(source, work)
        snap.write_text(data.draw(line_mutations(snap.read_text())))
        code, _, err = _run("snapshot", "verify", str(snap), "--key", str(pub))
        assert code in (0, 1, 2), (code, err)
        assert "Traceback" not in err


@FUZZ
@given(data=st.data())
def test_changed_bound_field_breaks_the_signature(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SOURCES))
    with _workdir() as work:
        snap, pub = _signed_copy(source, work)
        mutated, key = data.draw(bound_field_replacements(snap.read_text()))
        snap.write_text(mutated)
        code, _, err = _run("snapshot", "verify", str(snap), "--key", str(pub))
        assert code in (1, 2), (key, code, err)


# --- bindings ------------------------------------------------------------------------------
@FUZZ
@given(data=st.data())
def test_mutated_bytes_never_crash_binding(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SOURCES))
    with _workdir() as work:
        snap = work / "snap.yaml"
        snap.write_bytes(data.draw(byte_mutations(source.read_bytes())))
        code, _, err = _run("binding", str(snap))
        assert code in (0, 1, 2), (code, err)
        if code == 2:
            assert err.startswith("dynamo-render: error: "), err


@FUZZ
@given(data=st.data())
def test_changed_bound_field_is_never_a_valid_binding(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SNAPSHOTS))
    binding = EXPECTED[source.name.removesuffix(".input.yaml")]["binding"]
    with _workdir() as work:
        snap = work / "snap.yaml"
        mutated, key = data.draw(bound_field_replacements(source.read_text()))
        snap.write_text(mutated)
        code, out, err = _run("binding", str(snap), "--verify", binding)
        assert code in (1, 2), (key, code, out, err)


def test_unchanged_snapshot_verifies_with_its_reference_binding(tmp_path: Path) -> None:
    """The control for the property above: without a mutation, --verify passes."""
    for source in SNAPSHOTS[:5]:
        binding = EXPECTED[source.name.removesuffix(".input.yaml")]["binding"]
        code, _, err = _run("binding", str(source), "--verify", binding)
        assert code == 0, (source.name, err)


# --- a few real processes ---------------------------------------------------------------------
def test_mutations_in_child_processes(tmp_path: Path) -> None:
    """Seeded byte mutations through `python -m renderer`: no traceback reaches stderr."""
    rng = random.Random(6)
    commands = [["snapshot", "verify", "--key", "PUB"], ["binding"]]
    snap, pub = _signed_copy(VECTORS / "02-worker-baseline.input.yaml", tmp_path)
    original = snap.read_bytes()
    for _ in range(6):
        data = bytearray(original)
        for _ in range(3):
            data[rng.randrange(len(data))] = rng.randrange(256)
        snap.write_bytes(bytes(data))
        for command in commands:
            args = [str(pub) if a == "PUB" else a for a in command]
            proc = subprocess.run(
                [sys.executable, "-m", "renderer", *args[:2], str(snap), *args[2:]],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=60,
                check=False,
            )
            assert proc.returncode in (0, 1, 2), proc.stderr
            assert "Traceback" not in proc.stderr, proc.stderr
