"""The Go JSON runtime (typetable, encoding_json, mergo, equality) on both value models.

Admission holds sparse values (what json.Unmarshal leaves: zero fields absent) and the
controller plain ones (JSON as written); each function answers alike for both. The
whole-document behaviour is checked against the operator oracle by the tests under
tests/operator; these pin the rules, taken from the pinned Go sources (vendored mergo
v0.3.16, k8s.io/apimachinery v0.36.2, api/v1alpha1/common.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.goruntime import typetable
from renderer.goruntime.encoding_json import decode, encode, marshal
from renderer.goruntime.equality import is_semantic_zero, reflect_equal, semantic_equal
from renderer.goruntime.mergo import MergeError, merge
from renderer.goruntime.typetable import ALPHA, BETA, core_type, struct_type
from renderer.operator.errors import NotReproducedError

CONTAINER = core_type("Container")
EXTRA_POD_SPEC = struct_type(ALPHA + "ExtraPodSpec")


def test_one_table_serves_admission_and_the_controller_types() -> None:
    # dgd-types.json first; the DCD types come from operator-types.json, normalised.
    assert typetable.has_struct(BETA + "DynamoGraphDeployment")
    fields = typetable.field_index(BETA + "DynamoComponentDeployment")
    assert fields["kind"]["type"] == {"kind": "string"}  # embedded TypeMeta, flattened
    quantity = typetable.field_type(CONTAINER["name"], "resources")
    assert quantity == core_type("ResourceRequirements")
    assert not typetable.has_struct("example.com/none.Missing")


@pytest.mark.parametrize(
    ("value", "t", "empty"),
    [
        (None, {"kind": "string"}, True),
        ("", {"kind": "string"}, True),
        (0, {"kind": "int32"}, True),
        ([], {"kind": "slice", "elem": {"kind": "string"}}, True),
        ({}, {"kind": "ptr", "elem": CONTAINER}, False),  # a non-nil pointer
        (None, CONTAINER, False),  # a struct is never empty
        (None, {"kind": "special", "name": typetable.QUANTITY, "marshaler": "quantity"}, False),
        (None, {"kind": "special", "name": typetable.RAW_MESSAGE, "marshaler": "raw"}, True),
    ],
)
def test_omitempty(value: Any, t: dict[str, Any], empty: bool) -> None:
    assert typetable.is_empty(value, t) is empty


def test_sparse_and_plain_values_marshal_to_the_same_bytes() -> None:
    plain = {"name": "main", "image": "", "resources": {"limits": {"cpu": "1000m"}}, "args": []}
    sparse = decode(plain, CONTAINER)
    assert sparse == {"name": "main", "resources": {"limits": {"cpu": "1"}}, "args": []}
    assert marshal(plain, CONTAINER) == marshal(sparse, CONTAINER)
    assert marshal(plain, CONTAINER) == '{"name":"main","resources":{"limits":{"cpu":"1"}}}'


def test_extra_pod_spec_marshals_containers_last_and_omitempty() -> None:
    # ExtraPodSpec.MarshalJSON shadows PodSpec.containers with an omitempty field declared
    # after the embedded pointer: it follows every pod field and is never null.
    assert encode({"mainContainer": {"name": "m"}}, EXTRA_POD_SPEC) == {
        "mainContainer": {"name": "m", "resources": {}}
    }
    assert encode({"nodeSelector": {}}, EXTRA_POD_SPEC) == {}
    wire = encode({"containers": [{"name": "a"}], "hostname": "h"}, EXTRA_POD_SPEC)
    assert list(wire) == ["hostname", "containers"]


def test_an_unknown_key_is_refused_naming_its_path() -> None:
    with pytest.raises(NotReproducedError, match=r"c\.imagePolicy"):
        encode({"imagePolicy": "x"}, CONTAINER, ("c",))


def test_semantic_and_reflect_equality_differ_on_nil_and_empty() -> None:
    args = {"kind": "slice", "elem": {"kind": "string"}}
    assert semantic_equal(None, [], args)
    assert not reflect_equal(None, [], args)
    # quantities compare by value, in either model
    limits = core_type("ResourceRequirements")
    assert semantic_equal({"limits": {"cpu": "1000m"}}, {"limits": {"cpu": "1"}}, limits)
    # a pointer to an empty struct is set: the container is not zero
    assert not is_semantic_zero({"securityContext": {}}, CONTAINER)
    assert is_semantic_zero({"image": "", "args": []}, CONTAINER)


def test_mergo_override_rules() -> None:
    dst = {"name": "main", "args": ["a"], "terminationMessagePath": "/p"}
    src = {"args": ["b"], "terminationMessagePath": "", "workingDir": "/w"}
    assert merge(dst, src, CONTAINER) == {
        "name": "main",
        "args": ["b"],
        "terminationMessagePath": "/p",  # an empty source scalar changes nothing
        "workingDir": "/w",
    }
    assert dst == {"name": "main", "args": ["a"], "terminationMessagePath": "/p"}
    pod = core_type("PodSpec")
    grace = merge({"terminationGracePeriodSeconds": 60}, {"terminationGracePeriodSeconds": 0}, pod)
    assert grace == {"terminationGracePeriodSeconds": 60}  # pointers merge their targets


def test_mergo_assigns_a_time_and_merges_int_or_string_by_field() -> None:
    meta = core_type("k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta")
    # metav1.Time has no exported field: mergo assigns the source, a zero one too.
    assert merge({"creationTimestamp": "2026-01-01T00:00:00Z"}, {}, meta) == {}
    action = core_type("HTTPGetAction")
    assert merge({"port": 8000}, {"port": "http"}, action) == {"port": "http"}
    assert merge({"port": "http"}, {"port": 9000}, action) == {"port": "http"}


def test_merging_a_quantity_over_another_is_refused() -> None:
    empty_dir = core_type("EmptyDirVolumeSource")
    with pytest.raises(MergeError, match="sizeLimit"):
        merge({"sizeLimit": "1Gi"}, {"sizeLimit": "2Gi"}, empty_dir, ("emptyDir",))
