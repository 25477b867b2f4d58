"""The origin-version gate behind vLLM's multiprocessing default, against its references.

- internal/features/compatibility/operator_origin_test.go (pinned operator): TestGateEnabled
  and TestGateDifferentThresholds, row for row.
- The semver library the operator links (Masterminds/semver v3.4.0, version_test.go): the
  loose ``NewVersion`` accept/reject table and the ``Compare`` table, which the gate's
  parse and ``>=`` follow.
"""

from __future__ import annotations

import pytest

from renderer.operator.compatibility import Gate, SemVer, compare_versions, parse_version

ORIGIN = "nvidia.com/dynamo-operator-origin-version"

GATE_ENABLED = [
    ("nil annotations = disabled (backward compat)", None, False),
    ("empty annotations = disabled (backward compat)", {}, False),
    ("origin version below threshold = disabled", {ORIGIN: "0.9.0"}, False),
    ("origin version at threshold = enabled", {ORIGIN: "1.0.0"}, True),
    ("origin version above threshold (release > pre-release) = enabled", {ORIGIN: "1.0.0"}, True),
    ("origin version well above threshold = enabled", {ORIGIN: "2.0.0"}, True),
    ("pre-release below threshold = disabled", {ORIGIN: "0.9.0-dev"}, False),
    ("invalid origin version = disabled (graceful fallback)", {ORIGIN: "not-a-version"}, False),
    ("fallback version 0.0.0-unknown = disabled", {ORIGIN: "0.0.0-unknown"}, False),
    (
        "unrelated annotations without origin version = disabled",
        {"some.other/annotation": "value"},
        False,
    ),
]


@pytest.mark.parametrize(
    ("annotations", "want"), [r[1:] for r in GATE_ENABLED], ids=[r[0] for r in GATE_ENABLED]
)
def test_gate_enabled(annotations: dict[str, str] | None, want: bool) -> None:
    assert Gate("TestFeature", SemVer(1, 0, 0)).enabled(annotations) is want


@pytest.mark.parametrize(
    ("threshold", "want"),
    [(SemVer(0, 8, 0), True), (SemVer(0, 9, 0), True), (SemVer(1, 0, 0), False)],
    ids=[
        "threshold below origin = enabled",
        "threshold equal to origin = enabled",
        "threshold above origin = disabled",
    ],
)
def test_gate_different_thresholds(threshold: SemVer, want: bool) -> None:
    assert Gate("TestFeature", threshold).enabled({ORIGIN: "0.9.0"}) is want


NEW_VERSION = [
    ("1.2.3", False),
    ("1.2.3-alpha.01", True),
    ("1.2.3+test.01", False),
    ("1.2.3-alpha.-1", False),
    ("v1.2.3", False),
    ("1.0", False),
    ("v1.0", False),
    ("1", False),
    ("v1", False),
    ("1.2.beta", True),
    ("v1.2.beta", True),
    ("foo", True),
    ("1.2-5", False),
    ("v1.2-5", False),
    ("1.2-beta.5", False),
    ("v1.2-beta.5", False),
    ("\n1.2", True),
    ("\nv1.2", True),
    ("1.2.0-x.Y.0+metadata", False),
    ("v1.2.0-x.Y.0+metadata", False),
    ("1.2.0-x.Y.0+metadata-width-hypen", False),
    ("v1.2.0-x.Y.0+metadata-width-hypen", False),
    ("1.2.3-rc1-with-hypen", False),
    ("v1.2.3-rc1-with-hypen", False),
    ("1.2.3.4", True),
    ("v1.2.3.4", True),
    ("1.2.2147483648", False),
    ("1.2147483648.3", False),
    ("2147483648.3.0", False),
    ("12.3.4.1234", True),
    ("12.23.4.1234", True),
    ("12.3.34.1234", True),
    ("20221209-update-renovatejson-v4", False),
    ("1.1.2+.123", True),
    ("1.0.0-alpha_beta", True),
    ("1.0.0-alpha..", True),
    ("1.0.0-alpha..1", True),
    ("9.8.7+meta+meta", True),
    ("1.2.31----RC-SNAPSHOT.12.09.1--.12+788", True),
    ("01.1.1", False),
    ("1.01.1", False),
    ("1.1.01", False),
]

COMPARE = [
    ("1.2.3", "1.5.1", -1),
    ("2.2.3", "1.5.1", 1),
    ("2.2.3", "2.2.2", 1),
    ("3.2-beta", "3.2-beta", 0),
    ("1.3", "1.1.4", 1),
    ("4.2", "4.2-beta", 1),
    ("4.2-beta", "4.2", -1),
    ("4.2-alpha", "4.2-beta", -1),
    ("4.2-alpha", "4.2-alpha", 0),
    ("4.2-beta.2", "4.2-beta.1", 1),
    ("4.2-beta2", "4.2-beta1", 1),
    ("4.2-beta", "4.2-beta.2", -1),
    ("4.2-beta", "4.2-beta.foo", -1),
    ("4.2-beta.2", "4.2-beta", 1),
    ("4.2-beta.foo", "4.2-beta", 1),
    ("1.2+bar", "1.2+baz", 0),
    ("1.0.0-beta.4", "1.0.0-beta.-2", -1),
    ("1.0.0-beta.-2", "1.0.0-beta.-3", -1),
    ("1.0.0-beta.-3", "1.0.0-beta.5", 1),
]


@pytest.mark.parametrize(("version", "err"), NEW_VERSION, ids=[repr(v) for v, _ in NEW_VERSION])
def test_new_version_loose(version: str, err: bool) -> None:
    assert (parse_version(version) is None) is err


@pytest.mark.parametrize(
    ("v1", "v2", "expected"), COMPARE, ids=[f"{a} vs {b}" for a, b, _ in COMPARE]
)
def test_compare(v1: str, v2: str, expected: int) -> None:
    a, b = parse_version(v1), parse_version(v2)
    assert a is not None and b is not None
    assert compare_versions(a, b) == expected
