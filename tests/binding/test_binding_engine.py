"""The binding engine beyond the vectors: parse/verify wording, Go decoding, failing closed.

Expected digests are taken from tests/vectors/expected.jsonl only: an edited snapshot that
Go reads to the same value must give the recorded digest of the unedited vector.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import VECTORS

from renderer.binding import (
    Binding,
    bind,
    parse_binding,
    verify_binding,
)
from renderer.errors import BindingError, BindingFormatError
from renderer.goruntime.quantity import QuantityError, marshal_quantity
from renderer.lint.checks import rule_of_reason
from renderer.source import SourceObject, load_bytes

EXPECTED = {
    row["case"]: row
    for row in map(json.loads, (VECTORS / "expected.jsonl").read_text("ascii").splitlines())
}
MINIMAL_TEXT = (VECTORS / "01-minimal.input.yaml").read_text("utf-8")
BASELINE_TEXT = (VECTORS / "02-worker-baseline.input.yaml").read_text("utf-8")
TIMESTAMP_TEXT = (VECTORS / "45-pod-template-metadata-timestamp.input.yaml").read_text("utf-8")
MINIMAL = EXPECTED["01-minimal"]
UID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
HEX = MINIMAL["sha256"]


def _obj(text: str, name: str = "snap.yaml") -> SourceObject:
    (obj,) = load_bytes(text.encode("utf-8"), name)
    return obj


def _minimal_with(old: str, new: str) -> SourceObject:
    assert old in MINIMAL_TEXT
    return _obj(MINIMAL_TEXT.replace(old, new, 1))


def _with_job_field(line: str) -> SourceObject:
    """The minimal snapshot with one more `spec.job` field (YAML text, 4-space indent)."""
    return _minimal_with("  job:\n", f"  job:\n    {line}\n")


# --- parse_binding: the operator's messages, in its order --------------------------------
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "automatic checkpoint binding is missing"),
        (
            "v1/a/1",
            'automatic checkpoint binding has invalid format "v1/a/1";'
            " expected v1/<uid>/<generation>/<sha256>",
        ),
        (
            f"v1/{UID}/1/{HEX}/",
            f'automatic checkpoint binding has invalid format "v1/{UID}/1/{HEX}/";'
            " expected v1/<uid>/<generation>/<sha256>",
        ),
        (f"v2/{UID}/1/{HEX}", 'automatic checkpoint binding version "v2" is unsupported'),
        (f"V1/{UID}/1/{HEX}", 'automatic checkpoint binding version "V1" is unsupported'),
        (f"v1//1/{HEX}", "automatic checkpoint binding UID is missing"),
        (f"v1/{UID}/0/{HEX}", 'automatic checkpoint binding generation "0" is invalid'),
        (f"v1/{UID}/-1/{HEX}", 'automatic checkpoint binding generation "-1" is invalid'),
        (f"v1/{UID}//{HEX}", 'automatic checkpoint binding generation "" is invalid'),
        (f"v1/{UID}/1_0/{HEX}", 'automatic checkpoint binding generation "1_0" is invalid'),
        (f"v1/{UID}/ 1/{HEX}", 'automatic checkpoint binding generation " 1" is invalid'),
        (f"v1/{UID}/0x1/{HEX}", 'automatic checkpoint binding generation "0x1" is invalid'),
        (
            f"v1/{UID}/9223372036854775808/{HEX}",
            'automatic checkpoint binding generation "9223372036854775808" is invalid',
        ),
        (
            f"v1/{UID}/1/{HEX[:-1]}",
            f'automatic checkpoint binding SHA-256 digest "{HEX[:-1]}" is invalid',
        ),
        (
            f"v1/{UID}/1/{HEX}00",
            f'automatic checkpoint binding SHA-256 digest "{HEX}00" is invalid',
        ),
        (
            f"v1/{UID}/1/{HEX[:-1]}g",
            f'automatic checkpoint binding SHA-256 digest "{HEX[:-1]}g" is invalid',
        ),
        ("v1/a/1/\n", 'automatic checkpoint binding SHA-256 digest "\\n" is invalid'),
    ],
)
def test_parse_binding_errors_use_the_operator_wording(value: str, message: str) -> None:
    with pytest.raises(BindingFormatError) as info:
        parse_binding(value)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("generation", "number"), [("1", 1), ("+1", 1), ("01", 1), ("9223372036854775807", 2**63 - 1)]
)
def test_parse_binding_accepts_what_strconv_parseint_accepts(generation: str, number: int) -> None:
    parsed = parse_binding(f"v1/{UID}/{generation}/{HEX.upper()}")
    assert parsed == Binding(uid=UID, generation=number, digest=HEX)
    assert str(parse_binding(f"v1/{UID}/1/{HEX}")) == f"v1/{UID}/1/{HEX}"


# --- verify_binding and the lint classification ------------------------------------------
def test_verify_binding_reports_each_mismatch_kind() -> None:
    bound = bind(_obj(MINIMAL_TEXT))
    good = MINIMAL["binding"]
    assert verify_binding(good, bound) is None
    other_hex = EXPECTED["02-worker-baseline"]["sha256"]
    cases = {
        f"v1/{UID[:-1]}8/1/{HEX}": ("automatic checkpoint UID differs", "binding-replaced"),
        f"v1/{UID}/2/{HEX}": ("automatic checkpoint generation differs", "binding-stale"),
        f"v1/{UID}/1/{other_hex}": (
            "automatic checkpoint provenance differs",
            "binding-provenance",
        ),
        "v1/x": (
            'automatic checkpoint binding has invalid format "v1/x";'
            " expected v1/<uid>/<generation>/<sha256>",
            "binding-malformed",
        ),
        "": ("automatic checkpoint binding is missing", "binding-malformed"),
    }
    for value, (reason, rule) in cases.items():
        assert verify_binding(value, bound) == reason, value
        assert rule_of_reason(reason) == rule, value


@pytest.mark.parametrize(
    "value", [f"v1/{UID}/+1/{HEX}", f"v1/{UID}/01/{HEX}", f"v1/{UID}/1/{HEX.upper()}"]
)
def test_verify_never_calls_a_non_canonical_spelling_a_match(value: str) -> None:
    bound = bind(_obj(MINIMAL_TEXT))
    reason = verify_binding(value, bound)
    assert reason is not None
    assert "not in canonical form" in reason
    assert MINIMAL["binding"] in reason
    assert rule_of_reason(reason) == "binding-malformed"


# --- Go decoding: equal values, equal digests ----------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        "activeDeadlineSeconds: 3600",
        "activeDeadlineSeconds: 3600.0",  # reaches Go as the JSON number 3600
        "activeDeadlineSeconds: 3.6e3",
        'targetContainerName: ""',
        "targetContainerName: null",
    ],
)
def test_spellings_go_reads_as_the_default_keep_the_digest(line: str) -> None:
    assert bind(_with_job_field(line)).value == MINIMAL["binding"]


def test_null_gpu_memory_service_is_absent() -> None:
    obj = _minimal_with("spec:\n", "spec:\n  gpuMemoryService: null\n")
    assert bind(obj).value == MINIMAL["binding"]


@pytest.mark.parametrize(
    "spelling",
    [
        "2024-01-02T03:04:05.678+02:00",
        "2024-01-02T01:04:05Z",
        "2024-01-02T01:04:05.999999999999Z",
        "2024-01-01T23:04:05-02:00",
        "2024-01-02T1:04:05Z",  # Go's hour field takes one digit
        "2024-01-02T01:04:05,5Z",
    ],
)
def test_timestamps_go_reads_as_the_same_instant_share_the_digest(spelling: str) -> None:
    case = EXPECTED["45-pod-template-metadata-timestamp"]
    text = TIMESTAMP_TEXT.replace("2024-01-02T03:04:05.678+02:00", spelling)
    assert bind(_obj(text)).value == case["binding"]


def test_a_zero_creation_timestamp_is_omitted() -> None:
    text = TIMESTAMP_TEXT.replace("2024-01-02T03:04:05.678+02:00", "0001-01-01T00:00:00Z")
    assert '"creationTimestamp"' not in bind(_obj(text)).canonical


# --- failing closed: no binding Go would not compute ---------------------------------------
@pytest.mark.parametrize(
    ("line", "path", "words"),
    [
        ("backoffLimit: 2147483648", "spec.job.backoffLimit", "int32"),
        ("backoffLimit: -2147483649", "spec.job.backoffLimit", "int32"),
        ("activeDeadlineSeconds: 9223372036854775808", "spec.job.activeDeadlineSeconds", "int64"),
        ("activeDeadlineSeconds: 1.5", "spec.job.activeDeadlineSeconds", "number 1.5"),
        ("activeDeadlineSeconds: 1e21", "spec.job.activeDeadlineSeconds", "int64"),
        ('activeDeadlineSeconds: "60"', "spec.job.activeDeadlineSeconds", "string '60'"),
        ("activeDeadlineSeconds: true", "spec.job.activeDeadlineSeconds", "boolean"),
        ("targetContainerName: 5", "spec.job.targetContainerName", "a string"),
        ("sharedMemory: {size: 1Gx}", "spec.job.sharedMemory.size", "invalid quantity"),
        ("sharedMemory: {size: true}", "spec.job.sharedMemory.size", "quantity"),
        ("sharedMemory: {disabled: yes please}", "spec.job.sharedMemory.disabled", "boolean"),
        ("sharedMemory: []", "spec.job.sharedMemory", "an object"),
    ],
)
def test_values_go_cannot_decode_fail_naming_the_path(line: str, path: str, words: str) -> None:
    obj = _with_job_field(line)
    with pytest.raises(BindingError) as info:
        bind(obj)
    assert info.value.message.startswith(path + ":"), info.value.message
    assert words in info.value.message
    assert info.value.file == "snap.yaml"
    # points at the offending value: the line after `job:`
    job_line = MINIMAL_TEXT.splitlines().index("  job:") + 1
    assert info.value.line == job_line + 1


@pytest.mark.parametrize(
    ("old", "new", "path", "words"),
    [
        (
            '            image: "busybox:1.36"',
            '            image: "busybox:1.36"\n            ports: [{containerPort: "80"}]',
            "spec.job.podTemplateSpec.spec.containers[0].ports[0].containerPort",
            "int32",
        ),
        (
            '            image: "busybox:1.36"',
            '            image: "busybox:1.36"\n'
            "            ports: [{containerPort: 80, hostPort: 2147483648}]",
            "spec.job.podTemplateSpec.spec.containers[0].ports[0].hostPort",
            "int32",
        ),
        (
            '            image: "busybox:1.36"',
            '            image: "busybox:1.36"\n            resources: {limits: {cpu: "1.5.5"}}',
            "spec.job.podTemplateSpec.spec.containers[0].resources.limits.cpu",
            "quantities must match",
        ),
        (
            "      spec:\n",
            '      metadata: {creationTimestamp: "2024-13-01T00:00:00Z"}\n      spec:\n',
            "spec.job.podTemplateSpec.metadata.creationTimestamp",
            "month out of range",
        ),
        (
            "      spec:\n",
            '      metadata: {creationTimestamp: "2024-01-02 03:04:05Z"}\n      spec:\n',
            "spec.job.podTemplateSpec.metadata.creationTimestamp",
            "not RFC 3339",
        ),
        (
            "      spec:\n",
            "      metadata: {creationTimestamp: 1700000000}\n      spec:\n",
            "spec.job.podTemplateSpec.metadata.creationTimestamp",
            "timestamp string",
        ),
        (
            "      spec:\n",
            "      metadata: {labels: {app: 1}}\n      spec:\n",
            "spec.job.podTemplateSpec.metadata.labels.app",
            "a string",
        ),
        (
            '            image: "busybox:1.36"',
            '            image: "busybox:1.36"\n            livenessProbe: {httpGet: {port: 1.5}}',
            "spec.job.podTemplateSpec.spec.containers[0].livenessProbe.httpGet.port",
            "int32 number or a string",
        ),
    ],
)
def test_pod_template_values_go_rejects_fail_closed(
    old: str, new: str, path: str, words: str
) -> None:
    obj = _minimal_with(old, new)
    with pytest.raises(BindingError) as info:
        bind(obj)
    assert info.value.message.startswith(path + ":"), info.value.message
    assert words in info.value.message
    assert info.value.line is not None and info.value.line > 1


def test_another_api_version_is_refused() -> None:
    obj = _minimal_with('apiVersion: "nvidia.com/v1alpha1"', 'apiVersion: "nvidia.com/v1beta9"')
    with pytest.raises(BindingError) as info:
        bind(obj)
    assert "not supported" in info.value.message
    assert (info.value.line, info.value.column) == (1, 13)


# --- unknown fields and readiness -------------------------------------------------------
def _refusal(obj: SourceObject) -> BindingError:
    with pytest.raises(BindingError) as info:
        bind(obj)
    return info.value


def test_an_unknown_field_is_refused_at_its_key_naming_it_and_the_version() -> None:
    obj = _minimal_with(
        '            image: "busybox:1.36"',
        '            image: "busybox:1.36"\n            imagePullPolicyy: Always',
    )
    error = _refusal(obj)
    line = MINIMAL_TEXT.splitlines().index('            image: "busybox:1.36"') + 2
    assert (error.file, error.line, error.column) == ("snap.yaml", line, 13)
    assert error.message.startswith(
        "spec.job.podTemplateSpec.spec.containers[0].imagePullPolicyy: unknown field: "
    )
    assert "k8s.io/api v0.36.2" in error.message
    assert "never hashes it" in error.message
    assert "dropped" not in error.message


def test_null_does_not_make_an_unknown_field_known() -> None:
    # Go's strict decoder reports the key whatever its value
    error = _refusal(_with_job_field("gpuMemoryService: null"))
    assert error.message.startswith("spec.job.gpuMemoryService: unknown field: ")


def test_field_names_match_case_sensitively() -> None:
    error = _refusal(_with_job_field("TargetContainerName: other"))
    assert error.message.startswith("spec.job.TargetContainerName: unknown field: ")


def test_unknown_fields_of_what_is_never_hashed_are_dropped_quietly() -> None:
    text = MINIMAL_TEXT.replace("  uid:", "  selfLinkk: x\n  uid:", 1)
    text += 'status:\n  phase: "Ready"\n  podSnapshotName: "s"\n  futureField: 1\n'
    bound = bind(_obj(text))
    assert bound.value == MINIMAL["binding"]
    assert bound.warnings == ()


def test_a_phase_other_than_ready_warns() -> None:
    obj = _obj(MINIMAL_TEXT + 'status:\n  phase: "Pending"\n')
    bound = bind(obj)
    assert bound.value == MINIMAL["binding"]  # status is not in the digest
    assert not bound.checkpoint.ready
    assert any("status.phase is Pending, not Ready" in w for w in bound.warnings)
    ready = bind(_obj(MINIMAL_TEXT + 'status:\n  phase: "Ready"\n'))
    assert ready.checkpoint.ready and ready.warnings == ()


# --- property: a changed bound string changes the binding -----------------------------------
def _string_paths(value: Any, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _string_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_paths(v, (*path, i))]
    return []


BASELINE_OBJ = _obj(BASELINE_TEXT, "baseline.yaml")
BOUND_PATHS = [
    *_string_paths(BASELINE_OBJ.data["spec"]["job"], ("spec", "job")),
    ("metadata", "name"),
    ("metadata", "namespace"),
    *[
        ("metadata", "labels", k)
        for k in BASELINE_OBJ.data["metadata"]["labels"]
        if k != "nvidia.com/dynamo-graph-deployment-name"
    ],
    ("metadata", "annotations", "nvidia.com/snapshot-artifact-version"),
]


def _set(data: Any, path: tuple[str | int, ...], value: str) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = data[path[-1]] + value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(BOUND_PATHS),
    suffix=st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=4),
)
def test_changing_any_bound_string_changes_the_binding(
    path: tuple[str | int, ...], suffix: str
) -> None:
    import copy

    data = copy.deepcopy(BASELINE_OBJ.data)
    _set(data, path, suffix)
    mutated = SourceObject(data, "baseline.yaml", key_marks=BASELINE_OBJ.key_marks)
    try:
        bound = bind(mutated)
    except BindingError:
        return  # e.g. a quantity made invalid: no binding at all, which is also safe
    if _same_quantity(path, suffix):
        # Go decodes a Quantity from its canonical value: `1 ` (TrimSpace), `1.0` or `1e0`
        # is the same `1` to the operator, so the binding must not change either.
        assert bound.binding.digest == EXPECTED["02-worker-baseline"]["sha256"], path
        return
    assert bound.binding.digest != EXPECTED["02-worker-baseline"]["sha256"], path


def _same_quantity(path: tuple[str | int, ...], suffix: str) -> bool:
    """Whether the suffix leaves a Quantity field's canonical value as it was."""
    if not ("resources" in path or path[-1] == "sizeLimit"):
        return False
    value: Any = BASELINE_OBJ.data
    for part in path:
        value = value[part]
    try:
        return bool(marshal_quantity(value + suffix) == marshal_quantity(value))
    except QuantityError:
        return False


def test_every_struct_of_the_shipped_type_table_can_be_encoded() -> None:
    # Structs are filled on first use; filling all of them here keeps a table entry the
    # encoder cannot serve (an unknown kind, a ,string tag) a test failure, not a refusal
    # that waits for the first checkpoint to reach that type.
    from renderer.binding.gotypes import StructCodec, TypeTable, type_table

    table = type_table()
    assert table.fill_all() > 100
    fresh = TypeTable(
        {
            "types": {"T": {"fields": [{"json": "n", "type": {"kind": "float64"}}]}},
            "roots": {"r": "T"},
        }
    )
    with pytest.raises(RuntimeError, match="float64"):
        fresh.fill_all()
    assert StructCodec("Unfilled").fields == ()
