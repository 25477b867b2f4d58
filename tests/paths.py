"""Where the suite's shared data lives, so a test file can move between groups freely."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
VECTORS = TESTS / "vectors"  # copies of the reference vectors (checked against the originals)
FIXTURES = TESTS / "fixtures"
HOSTILE = TESTS / "hardening" / "inputs"  # one hostile input per file, README lists them
OPERATOR_GOLDENS = TESTS / "operator" / "goldens"
