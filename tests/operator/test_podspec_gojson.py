"""Go JSON marshalling and mergo merging of corev1 values: fixed points and refusals.

The whole-pod-spec behaviour of both modules is checked against the oracle in
test_podspec_oracle.py; this file pins what Go's encoding/json writes for zero values
(non-omitempty fields are written, struct fields never dropped) and that what the modules
do not reproduce is refused, naming the field.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.goruntime.encoding_json import encode, quantity_is_zero
from renderer.goruntime.mergo import MergeError, merge
from renderer.goruntime.typetable import core_type
from renderer.operator.config import OperatorConfig
from renderer.operator.errors import NotReproducedError
from renderer.operator.graph_podspec import PodSpecError, generate_base_pod_spec


def marshal(value: object, name: str) -> object:
    return encode(value, core_type(name), (name,))


def merge_override(dst: object, src: object, name: str) -> Any:
    return merge(dst, src, core_type(name), (name,))


def test_zero_container_writes_name_and_resources() -> None:
    # json.Marshal(corev1.Container{}): name has no omitempty, resources is a struct.
    assert marshal({}, "Container") == {"name": "", "resources": {}}


def test_zero_pod_spec_writes_null_containers() -> None:
    # PodSpec.Containers is tagged `json:"containers"` (no omitempty): a nil slice is null.
    assert marshal({}, "PodSpec") == {"containers": None}


def test_omitempty_drops_zero_scalars_keeps_non_nil_pointers() -> None:
    pod = marshal(
        {"containers": [], "hostNetwork": False, "activeDeadlineSeconds": 0, "nodeName": ""},
        "PodSpec",
    )
    assert pod == {"containers": [], "activeDeadlineSeconds": 0}


def test_quantities_are_canonical() -> None:
    volume = marshal({"name": "v", "emptyDir": {"sizeLimit": "1024Mi"}}, "Volume")
    assert volume == {"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}
    assert quantity_is_zero("0")
    assert quantity_is_zero("0Gi")
    assert not quantity_is_zero("1Mi")


def test_unknown_field_is_refused_with_its_path() -> None:
    with pytest.raises(NotReproducedError, match=r"PodSpec\.containers\[0\]\.imagePolicy"):
        marshal({"containers": [{"name": "main", "imagePolicy": "x"}]}, "PodSpec")


def test_wrong_json_type_is_refused() -> None:
    with pytest.raises(NotReproducedError, match="expected an integer"):
        marshal({"terminationGracePeriodSeconds": "60"}, "PodSpec")


def test_quantity_over_quantity_merge_is_refused() -> None:
    with pytest.raises(MergeError, match="sizeLimit"):
        merge_override({"sizeLimit": "1Gi"}, {"sizeLimit": "2Gi"}, "EmptyDirVolumeSource")


def test_merge_does_not_modify_its_inputs() -> None:
    dst = {"name": "main", "args": ["a"], "env": [{"name": "A", "value": "1"}]}
    src = {"args": ["b"], "resources": {"limits": {"cpu": "1"}}}
    merged = merge_override(dst, src, "Container")
    assert merged["args"] == ["b"]
    assert dst == {"name": "main", "args": ["a"], "env": [{"name": "A", "value": "1"}]}
    assert src == {"args": ["b"], "resources": {"limits": {"cpu": "1"}}}


def test_epp_component_is_refused_naming_the_type() -> None:
    with pytest.raises(PodSpecError, match="type: epp"):
        generate_base_pod_spec(
            {"type": "epp"}, "noop", None, "dgd", "ns", "main", 1, OperatorConfig(), "grove",
            "epp", None, None, None,
        )  # fmt: skip
