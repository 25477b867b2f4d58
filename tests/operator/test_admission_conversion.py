"""admit() against the oracle: CRD defaults, v1alpha1 -> v1beta1 conversion, webhooks.

Expected values are the oracle's (the pinned operator compiled unchanged): the admitted
DGD it printed with ``--emit-rendered-dgd`` for the admission corpus
(tests/operator/goldens/admission/, see its README) and for the shared oracle corpus
(tests/operator/goldens/oracle/). Equality is on the parsed objects, both ways.
"""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import diff_paths, load_yaml, load_yaml_documents, oracle_cases

from renderer.goruntime.encoding_json import DecodeError, decode, dumps, encode
from renderer.goruntime.typetable import ALPHA, dgd_roots, struct_fields, struct_type
from renderer.operator.admission.conversion import ANN_DGD_SPEC, convert_to
from renderer.operator.admission.crd_defaults import apply_crd_defaults
from renderer.operator.admission.errors import AdmissionError, NotReproducedError
from renderer.operator.admission.pipeline import admit, admit_with_warnings
from renderer.operator.config import OperatorConfig

HERE = Path(__file__).parent
ADMISSION = HERE / "goldens" / "admission"
ADMISSION_NAMESPACE = "team-a"  # what scripts/regen-admission-goldens passes
WARNING_PREFIX = "admission warning: "
#: The oracle's refusal prefixes of the stages admit() runs.
ADMISSION_STAGES = (
    "admission webhook denied the request: ",
    "controller rejected the DGD: ",
    "decode DGD: ",
)


def _admission_cases() -> list[Path]:
    return sorted(p for p in ADMISSION.iterdir() if (p / "dgd.yaml").exists())


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _warnings(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[len(WARNING_PREFIX) :] for line in lines if line.startswith(WARNING_PREFIX)]


def test_admission_corpus_is_large_enough() -> None:
    cases = _admission_cases()
    assert len(cases) >= 15
    versions = {load_yaml(c / "dgd.yaml")["apiVersion"] for c in cases}
    assert versions == {"nvidia.com/v1alpha1", "nvidia.com/v1beta1"}


@pytest.mark.parametrize("case", _admission_cases(), ids=lambda p: p.name)
def test_admission_golden(case: Path) -> None:
    doc = load_yaml(case / "dgd.yaml")
    expected = load_yaml(case / "admitted-dgd.yaml")
    admitted, warnings = admit_with_warnings(
        doc,
        namespace=ADMISSION_NAMESPACE,
        config=OperatorConfig.for_oracle(ADMISSION_NAMESPACE),
        allow_checkpoint_with_interpod_gms=False,
    )
    assert diff_paths(_plain(admitted), expected) == []
    assert warnings == _warnings(case / "oracle-warnings.txt")


def _corpus_config(args: list[str], namespace: str) -> tuple[OperatorConfig, str]:
    if "--namespace" in args:
        namespace = args[args.index("--namespace") + 1]
    extra: dict[str, Any] = {}
    if "--operator-version" in args:
        extra["operator_version"] = args[args.index("--operator-version") + 1]
    checkpoint = any(a in ("--checkpoint", "--checkpoint-enabled") for a in args)
    return OperatorConfig.for_oracle(namespace, checkpoint_enabled=checkpoint, **extra), namespace


@pytest.mark.parametrize("case", oracle_cases(), ids=lambda c: c.name)
def test_oracle_corpus_admitted_dgd(case: Any) -> None:
    doc = load_yaml(case.path / "dgd.yaml")
    args = (
        shlex.split((case.path / "oracle-args").read_text("utf-8"))
        if (case.path / "oracle-args").exists()
        else []
    )
    config, namespace = _corpus_config(args, "dynamo")
    expected_error = ""
    if case.refused:
        expected_error = (case.path / "expected-error.txt").read_text("utf-8").strip()
    if expected_error.startswith(ADMISSION_STAGES):
        with pytest.raises(AdmissionError) as info:
            admit(doc, namespace=namespace, config=config, allow_checkpoint_with_interpod_gms=False)
        assert info.value.message == expected_error
        return
    # Admitted (a refusal by the render stage comes after admission).
    admitted = admit(
        doc, namespace=namespace, config=config, allow_checkpoint_with_interpod_gms=False
    )
    if (case.path / "admitted-dgd.yaml").exists():
        assert diff_paths(_plain(admitted), case.admitted_dgd()) == []


# --- CRD defaults (expected values: the pinned CRD's default: fields) ----------------------


def test_crd_defaults_absent_null_and_nested() -> None:
    obj: dict[str, Any] = {
        "spec": {
            "services": {
                "W": {
                    "multinode": {},
                    "checkpoint": {"identity": {"model": "m"}},
                    "extraPodSpec": {"mainContainer": {"ports": [{"containerPort": 1}]}},
                    "failover": {"numShadows": None},
                }
            },
            "restart": {"strategy": {"type": None}},
        }
    }
    out: dict[str, Any] = apply_crd_defaults(obj, "v1alpha1")
    w = out["spec"]["services"]["W"]
    assert w["multinode"] == {"nodeCount": 2}
    assert w["checkpoint"] == {
        "identity": {"model": "m", "pipelineParallelSize": 1, "tensorParallelSize": 1},
        "deletionPolicy": "Delete",
        "enabled": False,
        "startupPolicy": "Immediate",
        "targetContainerName": "main",
    }
    assert w["extraPodSpec"]["mainContainer"]["ports"] == [{"containerPort": 1, "protocol": "TCP"}]
    assert w["failover"] == {"numShadows": 1, "mode": "intraPod"}
    assert out["spec"]["restart"]["strategy"] == {"type": "Sequential"}
    assert obj["spec"]["restart"]["strategy"] == {"type": None}  # the input is not mutated


def test_crd_defaults_v1beta1_components() -> None:
    obj: dict[str, Any] = {"spec": {"components": [{"experimental": {"gpuMemoryService": {}}}]}}
    out = apply_crd_defaults(obj, "v1beta1")
    assert out["spec"]["components"][0]["experimental"]["gpuMemoryService"] == {
        "deviceClassName": "gpu.nvidia.com",
        "mode": "IntraPod",
    }
    assert "status" not in out  # status.state's default needs a status object


# --- conversion pieces --------------------------------------------------------------------

_ALPHA_ROOT = struct_type(dgd_roots()["v1alpha1"])


def _alpha(spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    doc = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "x", **meta},
        "spec": spec,
    }
    decoded: dict[str, Any] = decode(doc, _ALPHA_ROOT)
    return decoded


def test_preserved_raw_json_records_are_refused() -> None:
    envelope = '{"version":1,"spec":{},"rawJSON":[{"path":"components/0/eppConfig","nil":true}]}'
    doc = _alpha({"services": {}}, annotations={ANN_DGD_SPEC: envelope})
    with pytest.raises(NotReproducedError) as info:
        convert_to(doc)
    assert info.value.path == ("metadata", "annotations", ANN_DGD_SPEC)


def test_case_folded_key_is_refused() -> None:
    doc = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "x"},
        "spec": {"components": [{"name": "a", "Replicas": 2}]},
    }
    with pytest.raises(NotReproducedError) as info:
        admit(doc, namespace="n")
    assert info.value.path == ("spec", "components", 0, "Replicas")


def test_unsupported_api_version_is_refused() -> None:
    with pytest.raises(AdmissionError):
        admit({"apiVersion": "nvidia.com/v2", "kind": "DynamoGraphDeployment"}, namespace="n")


def test_annotation_bytes_follow_go_field_order() -> None:
    # The bytes of the alpha-probe-merge golden, as the operator wrote them.
    case = ADMISSION / "alpha-probe-merge"
    expected = load_yaml(case / "admitted-dgd.yaml")["metadata"]["annotations"][ANN_DGD_SPEC]
    doc = decode(apply_crd_defaults(load_yaml(case / "dgd.yaml"), "v1alpha1"), _ALPHA_ROOT)
    hub = convert_to(copy.deepcopy(doc))
    assert hub["metadata"]["annotations"][ANN_DGD_SPEC] == expected
    spec = json.loads(expected)["spec"]
    alpha_spec = struct_type(ALPHA + "DynamoGraphDeploymentSpec")
    assert dumps(encode(decode(spec, alpha_spec), alpha_spec)) == json.dumps(
        spec, separators=(",", ":")
    )


# --- field coverage: every v1alpha1 field reaches the hub or the preservation record ------


def _sample(t: dict[str, Any], depth: int = 0) -> Any:
    """A non-zero value of type ``t`` (structs: every field, two levels deep)."""
    kind = t["kind"]
    if kind == "ptr":
        return _sample(t["elem"], depth)
    if kind == "slice":
        return [_sample(t["elem"], depth)]
    if kind == "map":
        return {"k": _sample(t["elem"], depth)}
    if kind == "struct":
        if depth > 2:
            return {}
        fields = struct_fields(t["name"])
        return {f["json"]: _sample(f["type"], depth + 1) for f in fields[:3]}
    if kind == "special":
        return {"quantity": "1", "intorstring": 1, "time": "2026-01-01T00:00:00Z"}.get(
            t["marshaler"], {"a": 1}
        )
    return {"string": "x", "bool": True}.get(kind, 1)


_SHARED_FIELDS = struct_fields(ALPHA + "DynamoComponentDeploymentSharedSpec")
_SPEC_FIELDS = struct_fields(ALPHA + "DynamoGraphDeploymentSpec")


def _converted(spec: dict[str, Any]) -> Any:
    return _plain(convert_to(_alpha(spec)))


@pytest.mark.parametrize("field", _SHARED_FIELDS, ids=lambda f: f["json"])
def test_every_service_field_is_carried(field: dict[str, Any]) -> None:
    base = {"componentType": "worker", "extraPodSpec": {"mainContainer": {"image": "i:1"}}}
    changed = dict(base)
    changed[field["json"]] = _sample(field["type"])
    if field["json"] == "componentType":
        changed["componentType"] = "frontend"
    if field["json"] == "extraPodSpec":
        changed["extraPodSpec"] = {"mainContainer": {"image": "i:2"}}
    assert _converted({"services": {"W": changed}}) != _converted({"services": {"W": base}})


@pytest.mark.parametrize("field", _SPEC_FIELDS, ids=lambda f: f["json"])
def test_every_spec_field_is_carried(field: dict[str, Any]) -> None:
    value = _sample(field["type"])
    if field["json"] == "services":
        value = {"W": {"componentType": "worker"}}
    assert _converted({field["json"]: value}) != _converted({})


@pytest.mark.parametrize("value", ["", "not json", "[1]", '"x"', "5"])
def test_unrestorable_dgd_spec_annotation_is_scrubbed(value: str) -> None:
    hub = convert_to(_alpha({"services": {}}, annotations={ANN_DGD_SPEC: value, "a": "b"}))
    assert hub["metadata"]["annotations"] == {"a": "b"}


def test_float32_is_written_with_float32_digits() -> None:
    # Go stores kvTransferPolicy.preferredWeight as float32 and writes float32's shortest
    # digits (strconv.FormatFloat(f, 'f', -1, 32)): float32(0.1) is "0.1", float32(33.3) "33.3".
    t = {"kind": "float32"}
    assert decode(0.1, t) == 0.1
    assert decode(33.3, t) == 33.3
    assert decode(16777217.0, t) == 16777216.0  # 2^24 + 1 rounds to even in float32


# --- the upstream project's DGDs (tests/operator/goldens/upstream-dgds, the oracle's output) --

UPSTREAM_DGDS = HERE / "goldens" / "upstream-dgds"


def _upstream_cases() -> list[Path]:
    if not UPSTREAM_DGDS.exists():
        return []
    return sorted(p for p in UPSTREAM_DGDS.iterdir() if (p / "dgd.yaml").exists())


@pytest.mark.parametrize("case", _upstream_cases(), ids=lambda p: p.name)
def test_upstream_dgd_admission(case: Path) -> None:
    doc = load_yaml_documents(case / "dgd.yaml")[0]
    args_file = case / "oracle-args"
    args = shlex.split(args_file.read_text("utf-8")) if args_file.exists() else []
    namespace = str((doc.get("metadata") or {}).get("namespace") or "dynamo")
    config = OperatorConfig.for_oracle(namespace, checkpoint_enabled="--checkpoint-enabled" in args)
    error_file = case / "expected-error.txt"
    expected_error = error_file.read_text("utf-8").strip() if error_file.exists() else ""
    if expected_error.startswith(ADMISSION_STAGES):
        with pytest.raises(AdmissionError) as info:
            admit(doc, namespace="dynamo", config=config, allow_checkpoint_with_interpod_gms=False)
        assert info.value.message == expected_error
        return
    admitted = admit(
        doc, namespace="dynamo", config=config, allow_checkpoint_with_interpod_gms=False
    )
    if (case / "admitted-dgd.yaml").exists():
        assert diff_paths(_plain(admitted), load_yaml(case / "admitted-dgd.yaml")) == []


def test_times_are_written_as_metav1_time() -> None:
    # metav1.Time: RFC 3339 in, UTC to the second out; the zero time is nil (null).
    t = {"kind": "special", "name": "k8s.io/apimachinery/pkg/apis/meta/v1.Time"}
    t["marshaler"] = "time"
    assert decode("2026-01-02T03:04:05.123+02:00", t) == "2026-01-02T01:04:05Z"
    assert decode("0001-01-01T00:00:00Z", t) is None
    with pytest.raises(DecodeError):
        decode("2026-02-30T00:00:00Z", t)


@pytest.mark.parametrize(
    ("spec", "labels", "message"),
    [
        # The oracle's refusals for these documents (refused: <message>).
        (
            {"components": [{"name": "a", "replicas": 1.5}]},
            None,
            "decode DGD: json: cannot unmarshal number 1.5 into Go struct field"
            " DynamoGraphDeployment.spec.components.0.replicas of type int32",
        ),
        (
            {"components": []},
            {"k1": 1},
            "decode DGD: json: cannot unmarshal number into Go struct field"
            " DynamoGraphDeployment.metadata.labels.k1 of type string",
        ),
        (
            {
                "components": [
                    {"name": "a"},
                    {
                        "name": "b",
                        "podTemplate": {
                            "spec": {
                                "containers": [
                                    {"name": "x", "ports": [{"containerPort": 99999999999}]}
                                ]
                            }
                        },
                    },
                ]
            },
            None,
            "decode DGD: json: cannot unmarshal number 99999999999 into Go struct field"
            " DynamoGraphDeployment.spec.components.1.podTemplate.spec.containers.0.ports.0"
            ".containerPort of type int32",
        ),
    ],
)
def test_decode_errors_carry_go_text(
    spec: dict[str, Any], labels: dict[str, Any] | None, message: str
) -> None:
    meta: dict[str, Any] = {"name": "e9"}
    if labels is not None:
        meta["labels"] = labels
    doc = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": meta}
    doc["spec"] = spec
    with pytest.raises(AdmissionError) as info:
        admit(doc, namespace="n")
    assert info.value.message == message
