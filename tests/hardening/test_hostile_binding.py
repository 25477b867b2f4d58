"""Binding engine edge cases found by comparing against Go's rules, each expectation derived.

- metav1.Time: Go parses with time.Parse(time.RFC3339, s) and writes t.UTC() with
  AppendFormat(RFC3339). The proleptic Gregorian calendar Go uses is the one Python's
  datetime uses for years 1-9999, so datetime is an independent oracle there; year 0 is
  checked by the 400-year period of that calendar (146097 days, so a date in year 0 maps
  to the same month/day in year 400), and the years -1 and 10000 by Go's appendInt(year, 4)
  (a '-' then at least four digits).
- The rest of the DynamoCheckpoint (spec.identity, status) is decoded by Go too: a wrong
  type there fails the whole object, so no binding.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import VECTORS

from renderer.binding import bind
from renderer.errors import BindingError
from renderer.goruntime.gotime import marshal_time
from renderer.source import SourceObject, load_bytes

EXPECTED = {
    row["case"]: row
    for row in map(json.loads, (VECTORS / "expected.jsonl").read_text("ascii").splitlines())
}
MINIMAL_TEXT = (VECTORS / "01-minimal.input.yaml").read_text("utf-8")
MINIMAL = EXPECTED["01-minimal"]


def _obj(text: str) -> SourceObject:
    (obj,) = load_bytes(text.encode("utf-8"), "snap.yaml")
    return obj


# --- metav1.Time ---------------------------------------------------------------------------
def _offset_text(minutes: int) -> str:
    if minutes == 0:
        return "Z"
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}"


def _go_utc(utc: datetime, year: int) -> str:
    return f'"{year:04d}-{utc:%m-%dT%H:%M:%S}Z"'


_LOCAL = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31))
_OFFSET = st.integers(min_value=-(24 * 60 + 59), max_value=24 * 60 + 59)


@settings(max_examples=300, deadline=None)
@given(local=_LOCAL, offset=_OFFSET)
def test_times_match_the_gregorian_calendar(local: datetime, offset: int) -> None:
    text = f"{local.year:04d}-{local:%m-%dT%H:%M:%S}{_offset_text(offset)}"
    utc = local - timedelta(minutes=offset)
    assert marshal_time(text) == _go_utc(utc, utc.year)


@settings(max_examples=300, deadline=None)
@given(
    local=st.datetimes(min_value=datetime(400, 1, 1), max_value=datetime(400, 12, 31, 23, 59)),
    offset=st.integers(min_value=-(24 * 60), max_value=0),
)
def test_year_zero_repeats_year_400(local: datetime, offset: int) -> None:
    # Dates in year 0 are those of year 400 (same leap status, 146097-day period). A
    # negative offset moves the instant later, so the UTC year stays 0 or 1 (never -1).
    zero_text = f"0000-{local:%m-%dT%H:%M:%S}{_offset_text(offset)}"
    utc = local - timedelta(minutes=offset)
    assert marshal_time(zero_text) == _go_utc(utc, utc.year - 400)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # year 0 is a leap year (divisible by 400): January 30 stays January 30
        ("0000-01-30T03:40:17Z", '"0000-01-30T03:40:17Z"'),
        ("0000-02-29T12:00:00Z", '"0000-02-29T12:00:00Z"'),
        ("0000-03-01T00:30:00+01:00", '"0000-02-29T23:30:00Z"'),
        # one hour before 0000-01-01T00:00Z is in year -1: appendInt writes "-0001"
        ("0000-01-01T00:00:00+01:00", '"-0001-12-31T23:00:00Z"'),
        # 9999-12-31T23:59:59 at -01:00 is 10000-01-01T00:59:59Z: five digits
        ("9999-12-31T23:59:59-01:00", '"10000-01-01T00:59:59Z"'),
        # the zero instant, however spelled, is JSON null
        ("0001-01-01T01:00:00+01:00", "null"),
    ],
)
def test_time_edges(text: str, expected: str) -> None:
    assert marshal_time(text) == expected


def _with_template_timestamp(value: str) -> SourceObject:
    old = "      spec:\n"
    assert old in MINIMAL_TEXT
    return _obj(
        MINIMAL_TEXT.replace(old, f'      metadata: {{creationTimestamp: "{value}"}}\n{old}', 1)
    )


def test_a_year_boundary_timestamp_is_bound_not_refused() -> None:
    canonical = bind(_with_template_timestamp("9999-12-31T23:59:59-01:00")).canonical
    assert '"metadata":{"creationTimestamp":"10000-01-01T00:59:59Z"}' in canonical


# --- the rest of the object: decoded by Go, so type-checked --------------------------------
@pytest.mark.parametrize(
    ("tail", "path"),
    [
        ("spec:\n  identity: {model: 5}\n", "spec.identity.model"),
        ('spec:\n  identity: {tensorParallelSize: "2"}\n', "spec.identity.tensorParallelSize"),
        ("spec:\n  identity: {extraParameters: [a]}\n", "spec.identity.extraParameters"),
        ("spec:\n  identity: []\n", "spec.identity"),
        ("status:\n  createdAt: 5\n", "status.createdAt"),
        ('status:\n  createdAt: "yesterday"\n', "status.createdAt"),
        ("status:\n  conditions: [{observedGeneration: x}]\n", "status.conditions[0]"),
        ("status:\n  conditions: {}\n", "status.conditions"),
        ("status:\n  message: 1\n", "status.message"),
    ],
)
def test_wrong_types_outside_the_digest_still_fail_closed(tail: str, path: str) -> None:
    # the minimal snapshot's spec block is replaced or extended at the end of the file
    text = MINIMAL_TEXT.rstrip("\n") + "\n"
    if tail.startswith("spec:\n"):
        text = text.replace("spec:\n", tail, 1)
    else:
        text += tail
    with pytest.raises(BindingError) as info:
        bind(_obj(text))
    assert info.value.message.startswith(path), info.value.message


def test_well_typed_identity_and_status_leave_the_digest_alone() -> None:
    text = MINIMAL_TEXT.replace(
        "spec:\n",
        "spec:\n  identity:\n    model: m\n    backendFramework: vllm\n"
        "    tensorParallelSize: 2\n    extraParameters: {a: b}\n    newerField: 1\n",
        1,
    )
    text += (
        "status:\n  phase: Ready\n  createdAt: 2025-06-01T12:00:00Z\n"
        "  conditions:\n  - type: JobCompleted\n    status: 'True'\n"
        "    lastTransitionTime: 2025-06-01T12:00:00Z\n    observedGeneration: 1\n"
        "    reason: Done\n    message: ''\n"
    )
    bound = bind(_obj(text))
    assert bound.value == MINIMAL["binding"]
    assert bound.warnings == ()  # unknown identity/status fields are not hashed: quiet


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("spec:\n", "spec:\n  gpuMemoryServise: {enabled: true}\n", "spec.gpuMemoryServise"),
        ("spec:\n", "spec:\n  checkpointRef: other\n", "spec.checkpointRef"),
        ("kind:", "extra: 1\nkind:", "extra"),
    ],
)
def test_unknown_top_level_and_spec_keys_are_refused(old: str, new: str, field: str) -> None:
    # The DynamoCheckpoint schema has no such key (the API server prunes it), and a
    # misspelt one would silently change what is hashed: no binding, located at the key.
    text = MINIMAL_TEXT.replace(old, new, 1)
    with pytest.raises(BindingError) as info:
        bind(_obj(text))
    assert info.value.message.startswith(f"{field}: unknown field: ")
    key = field.rpartition(".")[2]
    key_line = next(i for i, line in enumerate(text.splitlines(), 1) if key in line)
    assert info.value.line == key_line


def test_a_misspelt_spec_is_refused_not_hashed_as_absent() -> None:
    with pytest.raises(BindingError) as info:
        bind(_obj(MINIMAL_TEXT.replace("spec:\n", "specs:\n", 1)))
    assert info.value.message.startswith("specs: unknown field: ")


def test_a_generation_of_thousands_of_digits_is_malformed_not_a_crash() -> None:
    # Python's int() refuses more than 4,300 digits with a ValueError; Go's ParseInt
    # returns a range error, which the webhook reports as an invalid generation.
    from renderer.binding import parse_binding
    from renderer.errors import BindingFormatError

    with pytest.raises(BindingFormatError, match="generation"):
        parse_binding("v1/uid/" + "1" * 5000 + "/" + "a" * 64)
