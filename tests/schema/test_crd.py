"""`--crd FILE`: CustomResourceDefinition openAPIV3Schema converted to draft 2020-12.

tests/crds/widgets.example.com.yaml is a small hand-written CRD that uses every conversion
rule; the real Grove PodCliqueSet CRD is read from ../shared/crds/ (skipped when absent) and
every rendered PodCliqueSet must validate against it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from paths import REPO, TESTS

from renderer.errors import InputError
from renderer.schema import load_crd_schemas, schemas_from_crd, validate, validate_data
from renderer.source import load_bytes, load_paths

WIDGETS = TESTS / "crds" / "widgets.example.com.yaml"
GROVE_CRD = REPO.parent / "shared" / "crds" / "grove.io_podcliquesets.yaml"
EXAMPLES = REPO / "examples"
PCS_KEY = ("grove.io/v1alpha1", "PodCliqueSet")
needs_grove = pytest.mark.skipif(not GROVE_CRD.is_file(), reason="../shared/crds is absent")

GOOD_WIDGET: dict[str, Any] = {
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "w", "labels": {"a": "b"}, "anything": {"goes": 1}},
    "spec": {
        "size": 3,
        "port": "http",
        "memory": "512Mi",
        "note": None,
        "mode": None,
        "ratio": 0.5,
        "tags": ["a", "b"],
        "extra": {"known": True, "unknown": [1, 2]},
        "labels": {"x": "y"},
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}},
    },
}


@pytest.fixture(scope="module")
def widget_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    return load_crd_schemas([str(WIDGETS)])


def _violations(schemas: dict[tuple[str, str], dict[str, Any]], **spec: Any) -> list[str]:
    data = copy.deepcopy(GOOD_WIDGET)
    data["spec"].update(spec)
    return [f"{v.json_path}: {v.message}" for v in validate_data(data, "w", extra_schemas=schemas)]


def test_every_served_version_is_converted(widget_schemas: dict[Any, Any]) -> None:
    assert sorted(widget_schemas) == [
        ("example.com/v1", "Widget"),
        ("example.com/v1beta1", "Widget"),
    ]
    for schema in widget_schemas.values():
        Draft202012Validator.check_schema(schema)
    assert widget_schemas[("example.com/v1", "Widget")]["title"] == "CRD widgets.example.com v1"


def test_a_good_object_validates(widget_schemas: dict[Any, Any]) -> None:
    assert _violations(widget_schemas) == []


def test_cel_rules_and_other_extensions_are_dropped(widget_schemas: dict[Any, Any]) -> None:
    text = json.dumps(widget_schemas[("example.com/v1", "Widget")])
    assert "x-kubernetes" not in text
    assert "nullable" not in text


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"size": "3"}, "$.spec.size: must be an integer, not a string"),
        ({"size": 2**31}, "$.spec.size: must be at most 2147483647; got 2147483648"),
        ({"port": 1.5}, "$.spec.port: must be an integer or a string, not a number"),
        ({"memory": "12Xi"}, '$.spec.memory: "12Xi" does not match ^[0-9]+(Mi|Gi)?$'),
        ({"note": 3}, "$.spec.note: must be a string or null, not an integer"),
        (
            {"mode": "Medium"},
            '$.spec.mode: must be one of "Fast", "Slow", null; got "Medium"'
            " (the API server refuses others)",
        ),
        ({"ratio": 0}, "$.spec.ratio: must be greater than 0; got 0"),
        ({"tags": ["a", "a"]}, "$.spec.tags: items must be unique"),
        ({"labels": {"x": 1}}, "$.spec.labels.x: must be a string, not an integer"),
        (
            {"bogus": 1},
            "$.spec.bogus: unknown field: not in the schema (the API server would drop it)",
        ),
        (
            {"template": {"apiVersion": "v1", "kind": "Pod", "status": {}}},
            "$.spec.template.status: unknown field: not in the schema"
            " (the API server would drop it)",
        ),
    ],
)
def test_conversion_rules(
    widget_schemas: dict[Any, Any], spec: dict[str, Any], expected: str
) -> None:
    assert _violations(widget_schemas, **spec) == [expected]


def test_required_fields_and_preserved_versions(widget_schemas: dict[Any, Any]) -> None:
    data = copy.deepcopy(GOOD_WIDGET)
    del data["spec"]["size"]
    [violation] = validate_data(data, "w", extra_schemas=widget_schemas)
    assert (violation.json_path, violation.message) == ("$.spec.size", "required field is missing")
    loose = {"apiVersion": "example.com/v1beta1", "kind": "Widget", "spec": {"size": "any"}}
    assert validate_data(loose, "w", extra_schemas=widget_schemas) == []


def test_a_crd_replaces_the_bundled_schema_for_its_kind() -> None:
    text = b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: dynamocomponentdeployments.nvidia.com}
spec:
  group: nvidia.com
  names: {kind: DynamoComponentDeployment}
  versions:
    - name: v1beta1
      served: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""
    schemas = schemas_from_crd(load_bytes(text, "crd.yaml"))
    dcd = load_bytes(
        b"apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\n"
        b"metadata: {name: x}\nspec: {replicas: two}\n",
        "dcd.yaml",
    )[0]
    assert [v.json_path for v in validate(dcd)] == ["$.spec.replicas"]  # bundled
    assert validate(dcd, extra_schemas=schemas) == []  # the CRD's (open) schema instead


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "2:7", "expected a Custom"),
        (
            b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            b"metadata: {name: x}\nspec: {group: g, names: {kind: K}}\n",
            "4:1",
            "CRD spec.versions is missing",
        ),
        (
            b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            b"metadata: {name: x}\nspec:\n  group: g\n  names: {kind: K}\n"
            b"  versions:\n    - {name: v1, served: true}\n",
            "8:7",
            "CRD x version v1 has no openAPIV3Schema",
        ),
        (
            b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            b"metadata: {name: x}\nspec:\n  group: g\n  names: {kind: K}\n"
            b"  versions:\n    - {name: v1, served: false}\n",
            "4:1",
            "CRD x serves no version",
        ),
    ],
)
def test_unusable_crds_are_input_errors(text: bytes, where: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        schemas_from_crd(load_bytes(text, "crd.yaml"))
    assert f"{info.value.line}:{info.value.column}" == where, str(info.value)
    assert message in info.value.message


def test_an_invalid_converted_schema_is_an_input_error() -> None:
    text = b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bad.example.com}
spec:
  group: example.com
  names: {kind: Bad}
  versions:
    - name: v1
      served: true
      schema:
        openAPIV3Schema: {type: object, properties: {spec: {type: 7}}}
"""
    schemas = schemas_from_crd(load_bytes(text, "crd.yaml"))
    obj = {"apiVersion": "example.com/v1", "kind": "Bad", "spec": {}}
    with pytest.raises(InputError, match=r"CRD bad\.example\.com v1 is not a valid JSON Schema"):
        validate_data(obj, "x", extra_schemas=schemas)


# --- the real Grove CRD ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def grove() -> dict[tuple[str, str], dict[str, Any]]:
    return load_crd_schemas([str(GROVE_CRD)])


@needs_grove
def test_grove_crd_converts(grove: dict[Any, Any]) -> None:
    assert list(grove) == [PCS_KEY]
    Draft202012Validator.check_schema(grove[PCS_KEY])


@needs_grove
@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no examples/")
@pytest.mark.parametrize("example", ["llama-disagg-v1alpha1", "llama-disagg-v1beta1"])
def test_rendered_podcliquesets_validate_against_the_grove_crd(
    grove: dict[Any, Any], example: str
) -> None:
    from renderer.render import render
    from renderer.yamlout import dump_object

    dgd = load_paths([str(EXAMPLES / example / "dgd.yaml")])[0]
    result = render(dgd, load_paths([str(EXAMPLES / "snapshots")]), target="grove")
    [pcs] = result.objects
    assert pcs["kind"] == "PodCliqueSet"
    assert validate_data(pcs, "pcs.yaml", text=dump_object(pcs), extra_schemas=grove) == []
    committed = load_paths([str(EXAMPLES / "rendered" / example / "grove.yaml")])
    for obj in committed:
        assert validate(obj, extra_schemas=grove) == []


@needs_grove
def test_grove_crd_rejects_what_grove_would_drop_or_refuse(grove: dict[Any, Any]) -> None:
    text = b"""apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {name: llama}
spec:
  replicas: 1
  template:
    cliqueStartupType: CliqueStartupTypeAnyOrder
    cliques:
      - name: worker
        spec:
          roleName: worker
          replicas: "1"
          podSpec:
            containers: [{name: main, image: x}]
          gangPriority: high
"""
    violations = validate(load_bytes(text, "pcs.yaml")[0], extra_schemas=grove)
    assert [(v.line, v.json_path, v.message) for v in violations] == [
        (12, "$.spec.template.cliques[0].spec.replicas", "must be an integer, not a string"),
        (
            15,
            "$.spec.template.cliques[0].spec.gangPriority",
            "unknown field: not in the schema (the API server would drop it)",
        ),
    ]
    assert {v.schema for v in violations} == {"CRD podcliquesets.grove.io v1alpha1"}
