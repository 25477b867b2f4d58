"""Import hygiene that start-up time depends on (never wall time itself: see bench/).

- Every module under renderer/ imports on its own in a fresh interpreter, whatever the
  order (an import cycle shows up as an ImportError only for one starting module).
- `import renderer.cli` stays light: no jsonschema, cryptography, ruamel round-trip or
  binding engine.
- A lint of a valid DCD does not import jsonschema or cryptography either (the schema rule
  answers valid objects without it), nor `dataclasses`: the records on the hook's path are
  `renderer.record` classes, which compile no code at import.
- The forbidden-character class of the reader is exactly YAML's non-printable set.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

import renderer
from renderer.source.text import _ALLOWED_ASCII, _FORBIDDEN_ASCII, forbidden

EXAMPLE_DCD = REPO / "examples" / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml"
HEAVY = ("jsonschema", "cryptography", "ruamel.yaml.main", "renderer.binding")


def _all_modules() -> list[str]:
    """Every module under renderer/, namespace sub-packages (no __init__.py) included,
    which `pkgutil.walk_packages` alone does not enter."""
    root = Path(renderer.__file__).parent
    found = {"renderer"}
    for directory in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        if directory.name == "__pycache__" or not any(directory.glob("*.py")):
            continue
        prefix = ".".join(("renderer", *directory.relative_to(root).parts)) + "."
        found.add(prefix[:-1])
        found.update(m.name for m in pkgutil.iter_modules([str(directory)], prefix))
    # `renderer.__main__` is left out: importing it runs the program (CLI tests cover it)
    found.discard("renderer.__main__")
    return sorted(found)


MODULES = _all_modules()


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def test_every_module_is_found() -> None:
    assert "renderer.binding.checkpoint" in MODULES
    assert "renderer.binding" in MODULES
    assert "renderer.lint.rules.schema" in MODULES
    assert "renderer.lint.engine" in MODULES
    assert len(MODULES) > 40


@pytest.mark.parametrize(
    "module",
    # A child interpreter per module: the inner loop (-m "not slow") imports the package and
    # its direct modules and subpackages alone; the full suite every module.
    [pytest.param(m, marks=() if m.count(".") <= 1 else pytest.mark.slow) for m in MODULES],
)
def test_module_imports_alone_in_a_fresh_interpreter(module: str) -> None:
    proc = _python(f"import {module}")
    assert proc.returncode == 0, proc.stderr


def test_checkpoint_then_binding_imports() -> None:
    # the order that used to fail with a circular ImportError
    proc = _python(
        "import renderer.binding.checkpoint, renderer.binding\n"
        "from renderer.binding import bind\n"
        "from renderer.binding.checkpoint import checkpoint_from_object\n"
    )
    assert proc.returncode == 0, proc.stderr


def _loaded_after(code: str) -> list[str]:
    proc = _python(f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))")
    assert proc.returncode == 0, proc.stderr
    loaded: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return loaded


def _heavy(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if any(m == n or m.startswith(n + ".") for n in names)]


def test_importing_the_cli_stays_light() -> None:
    loaded = _loaded_after("import renderer.cli")
    assert "renderer.cli" in loaded
    assert _heavy(loaded, HEAVY) == []


@pytest.mark.skipif(not EXAMPLE_DCD.is_file(), reason="examples/ not present")
def test_linting_a_valid_dcd_needs_no_jsonschema_or_cryptography() -> None:
    code = (
        "import contextlib, io\n"
        "from renderer.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        f"    code = main(['lint', {str(EXAMPLE_DCD)!r}])\n"
        "assert code == 0, code\n"
    )
    loaded = _loaded_after(code)
    assert "renderer.lint.rules.schema" in loaded  # the schema rule did run
    assert _heavy(loaded, ("jsonschema", "cryptography")) == []


@pytest.mark.skipif(not EXAMPLE_DCD.is_file(), reason="examples/ not present")
def test_a_lint_with_checkpoints_creates_no_dataclass() -> None:
    snapshots = REPO / "examples" / "snapshots"
    code = (
        "import contextlib, io\n"
        "from renderer.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        f"    code = main(['lint', {str(EXAMPLE_DCD)!r}, '--checkpoint', {str(snapshots)!r}])\n"
        "assert code == 0, code\n"
    )
    loaded = _loaded_after(code)
    assert "renderer.lint.rules.checkpoint_outdated" in loaded  # the checkpoint rules ran
    assert "dataclasses" not in loaded


def test_forbidden_characters_are_exactly_the_non_printable_set() -> None:
    # YAML 1.1 printable: tab, LF, CR, 0x20-0x7E, NEL, 0xA0-0xD7FF, 0xE000-0xFFFD,
    # 0x10000-0x10FFFF (go-yaml's reader)
    def printable(code: int) -> bool:
        return (
            code in (0x09, 0x0A, 0x0D, 0x85)
            or 0x20 <= code <= 0x7E
            or 0xA0 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF
        )

    everything = "".join(map(chr, range(0x110000)))
    found = [m.start() for m in forbidden().finditer(everything)]
    assert found == [code for code in range(0x110000) if not printable(code)]
    # the ASCII fast path: the same set, restricted to ASCII
    ascii_text = "".join(map(chr, range(0x80)))
    fast = [m.start() for m in _FORBIDDEN_ASCII.finditer(ascii_text)]
    assert fast == [code for code in range(0x80) if not printable(code)]
    # and the table that lets a clean ASCII file skip the search: it keeps exactly those
    left = ascii_text.encode("ascii").translate(None, _ALLOWED_ASCII)
    assert list(left) == [code for code in range(0x80) if not printable(code)]
