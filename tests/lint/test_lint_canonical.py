"""Bindings the operator parses but never writes (`+1`, `01`, upper-case hex): binding-malformed.

One problem is one finding: rule `schema` (whose pattern also rejects them) leaves them to
binding-malformed, which says the value is not in canonical form and what the canonical
value is; `--fix` writes the computed binding. Bindings come from the reference vectors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lint_support import VECTOR_FIXTURES
from paths import FIXTURES, VECTORS

from renderer.cli import cli

FIXTURES = FIXTURES / "lint"
SNAPSHOT = str(VECTORS / "02-worker-baseline.input.yaml")
GOOD = next(
    json.loads(line)["binding"]
    for line in (VECTORS / "expected.jsonl").read_text().splitlines()
    if json.loads(line)["case"].startswith("02")
)
_VERSION, _UID, _GENERATION, _HEX = GOOD.split("/")
assert _GENERATION == "1"
SPELLINGS = {
    "upper-case-hex": f"v1/{_UID}/1/{_HEX.upper()}",
    "plus-generation": f"v1/{_UID}/+1/{_HEX}",
    "zero-padded-generation": f"v1/{_UID}/01/{_HEX}",
}
KINDS = ["dcd-v1alpha1", "dcd-v1beta1", "pcs"]


def run(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(
        cli, ["lint", *VECTOR_FIXTURES, "--format", "json", *args], catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


def malformed_places(kind: str) -> set[tuple[int, int]]:
    """Where the committed binding-malformed fixture (generation 0) is reported."""
    code, found = run(str(FIXTURES / kind / "binding-malformed.yaml"), "--checkpoint", SNAPSHOT)
    assert code == 1
    return {(int(str(f["line"])), int(str(f["column"]))) for f in found}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_noncanonical_is_malformed_once_and_fixed(kind: str, spelling: str, tmp_path: Path) -> None:
    clean = (FIXTURES / kind / "clean.yaml").read_text()
    value = SPELLINGS[spelling]
    target = tmp_path / "manifest.yaml"
    target.write_text(clean.replace(GOOD, value))
    code, found = run(str(target), "--checkpoint", SNAPSHOT)
    assert code == 1
    assert {f["rule"] for f in found} == {"binding-malformed"}  # and no `schema` finding
    assert {(f["line"], f["column"]) for f in found} == malformed_places(kind)
    for f in found:
        message = str(f["message"])
        assert "not in canonical form" in message, message
        assert f'"{value}"' in message and f'"{GOOD}"' in message, message
        assert f["fix"], f  # fixable
    result = CliRunner().invoke(
        cli, ["lint", *VECTOR_FIXTURES, str(target), "--checkpoint", SNAPSHOT, "--fix"]
    )
    assert result.exit_code == 1, result.output
    assert target.read_text() == clean  # the computed binding, in each line's own quoting
    assert run(str(target), "--checkpoint", SNAPSHOT) == (0, [])


@pytest.mark.parametrize("kind", KINDS)
def test_noncanonical_without_a_snapshot_is_still_malformed(kind: str, tmp_path: Path) -> None:
    clean = (FIXTURES / kind / "clean.yaml").read_text()
    value = SPELLINGS["upper-case-hex"]
    target = tmp_path / "manifest.yaml"
    target.write_text(clean.replace(GOOD, value))
    code, found = run(str(target))
    assert code == 1
    malformed = [f for f in found if f["rule"] == "binding-malformed"]
    assert {(f["line"], f["column"]) for f in malformed} == malformed_places(kind)
    # with nothing to compare against, the canonical spelling of the same value is named,
    # and --fix has no verified value to write
    assert all(f'its canonical form is "{GOOD}"' in str(f["message"]) for f in malformed)
    assert all(not f["fix"] for f in malformed)
    assert {f["rule"] for f in found} == {"binding-malformed", "checkpoint-pending"}
