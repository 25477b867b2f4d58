"""The bundled schemas: well formed, in step with each other, accepting every example and
rendered output, and rejecting the broken objects in tests/schema-broken/ at the right place.

Each broken file's first line states what must be reported:
`# expect: <JSON path> @ <line>:<column>`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from paths import REPO, TESTS, VECTORS

from renderer.errors import InputError
from renderer.schema import (
    BUNDLED,
    bundled_schema,
    json_path,
    validate,
    validate_data,
    violations_error,
)
from renderer.source import load_bytes, load_paths

SCHEMAS = REPO / "schemas"
BROKEN = sorted((TESTS / "schema-broken").glob("*.yaml"))
GOOD = sorted((TESTS / "schema-good").glob("*.yaml"))
VECTOR_INPUTS = sorted(VECTORS.glob("*.input.yaml"))
EXAMPLES = REPO / "examples"
# The tool's own config (examples/dynamo-render.yaml) is not a Kubernetes object; the
# config tests load it through the config reader instead.
EXAMPLE_CONFIG = EXAMPLES / "dynamo-render.yaml"
EXAMPLE_FILES = (
    sorted(p for p in EXAMPLES.rglob("*.yaml") if p != EXAMPLE_CONFIG) if EXAMPLES.is_dir() else []
)
EXAMPLE_DGDS = sorted(EXAMPLES.glob("*/dgd.yaml")) if EXAMPLES.is_dir() else []
SNAPSHOTS = EXAMPLES / "snapshots"
EXPECT = re.compile(r"# expect: (\S+) @ (\d+):(\d+)$")
DIGEST = "0123456789abcdef" * 4


def _names(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


# --- the schema files themselves ------------------------------------------------------------


def test_every_schema_file_is_bundled_and_every_bundled_name_exists() -> None:
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(BUNDLED.values())


@pytest.mark.parametrize("name", sorted(BUNDLED.values()))
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = json.loads((SCHEMAS / name).read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(("key", "name"), sorted(BUNDLED.items()))
def test_package_data_is_the_repository_copy(key: tuple[str, str], name: str) -> None:
    # renderer/schemas is what an installed wheel reads; it must be the same bytes.
    assert bundled_schema(*key) == json.loads((SCHEMAS / name).read_text())
    schema = bundled_schema(*key)
    assert schema is not None
    assert schema["properties"]["apiVersion"] == {"const": key[0]}
    assert schema["properties"]["kind"] == {"const": key[1]}


# Definitions every schema file carries (each file stands alone, for use by other tools too).
SHARED_DEFS = {
    "annotations", "bindingValue", "container", "int32", "int64", "objectMeta", "podSpec",
    "podTemplateMeta", "podTemplateSpec", "quantity", "replicas", "stringMap",
}  # fmt: skip


def test_shared_definitions_do_not_drift_between_files() -> None:
    defs: dict[str, tuple[str, object]] = {}
    for path in SCHEMAS.glob("*.json"):
        file_defs = json.loads(path.read_text())["$defs"]
        assert set(file_defs) >= SHARED_DEFS, path.name
        for name, body in file_defs.items():
            if name not in SHARED_DEFS:
                continue
            if name in defs:
                first, seen = defs[name]
                assert body == seen, f"$defs.{name} differs between {first} and {path.name}"
            else:
                defs[name] = (path.name, body)
    assert defs["bindingValue"][1] == {
        "description": "v1/<uid>/<generation>/<sha256 hex>",
        "type": "string",
        "pattern": "^v1/[^/]+/[1-9][0-9]*/[0-9a-f]{64}$",
        "not": {
            "description": "no whitespace (a trailing newline would pass the pattern alone)",
            "pattern": "\\s",
        },
    }


def test_importing_the_package_does_not_import_jsonschema() -> None:
    code = (
        "import sys, renderer.schema, renderer.config, renderer.lint.rules.schema; "
        "print('jsonschema' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "False"


# --- accepted -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", GOOD, ids=_names(GOOD))
def test_good_objects_validate(path: Path) -> None:
    objects = load_paths([str(path)])
    assert objects
    for obj in objects:
        assert (obj.api_version, obj.kind) in BUNDLED
        assert validate(obj) == []


@pytest.mark.parametrize("path", VECTOR_INPUTS, ids=_names(VECTOR_INPUTS))
def test_every_reference_vector_snapshot_validates(path: Path) -> None:
    # Including the error vectors: a missing uid or marker is the binding's error to
    # report (with the operator's wording), not a schema violation.
    for obj in load_paths([str(path)]):
        assert obj.kind == "DynamoCheckpoint"
        assert validate(obj) == [], path.name


@pytest.mark.skipif(not EXAMPLE_FILES, reason="no examples/ yet")
@pytest.mark.parametrize(
    "path", EXAMPLE_FILES, ids=[str(p.relative_to(EXAMPLES)) for p in EXAMPLE_FILES]
)
def test_every_example_validates(path: Path) -> None:
    objects = load_paths([str(path)])
    checked = [o for o in objects if (o.api_version, o.kind) in BUNDLED]
    assert checked, f"{path} holds no object with a bundled schema"
    for obj in checked:
        assert [str(v) for v in validate(obj)] == []


@pytest.mark.skipif(not EXAMPLE_DGDS, reason="no examples/ yet")
@pytest.mark.parametrize("target", ["dcd", "grove"])
@pytest.mark.parametrize("dgd_path", EXAMPLE_DGDS, ids=[p.parent.name for p in EXAMPLE_DGDS])
def test_every_rendered_output_validates(dgd_path: Path, target: str) -> None:
    from renderer.render import render
    from renderer.yamlout import dump_object

    dgd = load_paths([str(dgd_path)])[0]
    checkpoints = load_paths([str(SNAPSHOTS)])
    result = render(dgd, checkpoints, target=target)
    assert result.objects
    kinds = {obj["kind"] for obj in result.objects}
    assert kinds == ({"DynamoComponentDeployment"} if target == "dcd" else {"PodCliqueSet"})
    for obj in result.objects:
        text = dump_object(obj)
        assert validate_data(obj, "rendered.yaml", text=text) == []


# --- rejected -------------------------------------------------------------------------------


def test_there_is_a_broken_object_for_every_schema() -> None:
    kinds = set()
    for path in BROKEN:
        for obj in load_paths([str(path)]):
            kinds.add((obj.api_version, obj.kind))
    assert kinds == set(BUNDLED)


@pytest.mark.parametrize("path", BROKEN, ids=_names(BROKEN))
def test_broken_object_is_rejected_at_the_stated_path_and_line(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    match = EXPECT.match(first)
    assert match, f"{path.name}: first line must be `# expect: <path> @ <line>:<column>`"
    want = (match.group(1), int(match.group(2)), int(match.group(3)))
    violations = [v for obj in load_paths([str(path)]) for v in validate(obj)]
    assert violations, f"{path.name} was accepted"
    got = [(v.json_path, v.line, v.column) for v in violations]
    assert want in got
    for v in violations:
        assert v.file == str(path)
        assert v.message and "\n" not in v.message and len(v.message) < 300
        assert v.schema in BUNDLED.values()


def test_messages_name_the_rule_and_show_the_value() -> None:
    obj = load_paths([str(TESTS / "schema-broken" / "dcd-checkpoint-mode-lowercase.yaml")])[0]
    [violation] = validate(obj)
    assert (
        violation.message
        == 'must be one of "Auto", "Manual"; got "auto" (the API server refuses others)'
    )
    assert str(violation).endswith(
        "dcd-checkpoint-mode-lowercase.yaml:10:13: $.spec.experimental.checkpoint.mode:"
        ' must be one of "Auto", "Manual"; got "auto" (the API server refuses others)'
    )


def test_several_violations_come_sorted_by_position() -> None:
    text = b"""apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: x
spec:
  replicas: -1
  experimental:
    checkpoint: {mode: auto, startupPolicy: Later}
"""
    violations = validate(load_bytes(text, "x.yaml")[0])
    assert [(v.line, v.column, v.json_path) for v in violations] == [
        (6, 13, "$.spec.replicas"),
        (8, 24, "$.spec.experimental.checkpoint.mode"),
        (8, 45, "$.spec.experimental.checkpoint.startupPolicy"),
    ]
    error = violations_error(violations)
    assert isinstance(error, InputError)
    assert str(error) == (
        "x.yaml:6:13: $.spec.replicas: must be at least 0; got -1"
        " (schema dcd-v1beta1.json; and 2 more violations)"
    )


def test_objects_without_a_schema_are_not_checked() -> None:
    obj = load_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: 3\n", "c")[0]
    assert validate(obj) == []
    assert validate_data({"apiVersion": "v1", "kind": "ConfigMap", "data": 3}, "c") == []


def test_validate_data_locates_in_the_rendered_text() -> None:
    data = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "x"},
        "spec": {"replicas": "two"},
    }
    text = "# Source: dgd.yaml\n" + json.dumps(data, indent=2)
    [violation] = validate_data(data, "out.yaml", text=text)
    assert (violation.file, violation.line, violation.json_path) == (
        "out.yaml",
        9,
        "$.spec.replicas",
    )
    # without text: positions in the object's indented JSON
    [again] = validate_data(data, "out.yaml")
    assert again.line == 8


def test_json_path_quotes_keys_that_are_not_identifiers() -> None:
    assert json_path(()) == "$"
    assert json_path(("spec", "cliques", 0, "annotations", "nvidia.com/x")) == (
        "$.spec.cliques[0].annotations['nvidia.com/x']"
    )
    assert json_path(("a'b",)) == "$['a\\'b']"


# --- the binding value pattern --------------------------------------------------------------

# Kubernetes UIDs are UUIDs; the schema allows any non-empty text without "/" or whitespace.
_UID = st.text(
    alphabet=st.characters(blacklist_characters="/", blacklist_categories=("Cs", "Zs", "Cc")),
    min_size=1,
).filter(lambda s: not any(c.isspace() for c in s))


def _dcd_with(binding: str) -> dict[str, object]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "x", "annotations": {"nvidia.com/dynamo-checkpoint-binding": binding}},
        "spec": {},
    }


@given(uid=_UID, generation=st.integers(min_value=1, max_value=2**63 - 1))
def test_well_formed_bindings_are_accepted(uid: str, generation: int) -> None:
    assert validate_data(_dcd_with(f"v1/{uid}/{generation}/{DIGEST}"), "b") == []


@pytest.mark.parametrize(
    "value",
    [
        f"v2/uid/1/{DIGEST}",
        f"v1//1/{DIGEST}",
        f"v1/uid/0/{DIGEST}",
        f"v1/uid/01/{DIGEST}",
        f"v1/uid/+1/{DIGEST}",
        f"v1/uid/-1/{DIGEST}",
        f"v1/u/i/d/1/{DIGEST}",
        f"v1/uid/1/{DIGEST.upper()}",
        f"v1/uid/1/{DIGEST[:-1]}",
        f"v1/uid/1/{DIGEST}0",
        f"v1/uid/1/{DIGEST}\n",
        "",
    ],
)
def test_malformed_bindings_are_rejected(value: str) -> None:
    [violation] = validate_data(_dcd_with(value), "b")
    assert violation.path == ("metadata", "annotations", "nvidia.com/dynamo-checkpoint-binding")


# --- wired into lint (rule `schema`) and render ---------------------------------------------


def test_lint_rule_schema_reports_dcd_and_pcs_violations(tmp_path: Path) -> None:
    from renderer.lint.engine import lint_objects

    objects = load_paths(
        [
            str(TESTS / "schema-broken" / "dcd-replicas-string.yaml"),
            str(TESTS / "schema-broken" / "pcs-clique-without-podspec.yaml"),
            # snapshots are checked too (a manual one as much as an automatic one)
            str(TESTS / "schema-broken" / "checkpoint-phase.yaml"),
        ]
    )
    found = [f for f in lint_objects(objects).findings if f.rule == "schema"]
    assert sorted((Path(f.file).name, f.line, f.column) for f in found) == [
        ("checkpoint-phase.yaml", 8, 10),
        ("dcd-replicas-string.yaml", 7, 13),
        ("pcs-clique-without-podspec.yaml", 10, 9),
    ]
    [dcd] = [f for f in found if f.file.endswith("dcd-replicas-string.yaml")]
    assert dcd.message == (
        "DynamoComponentDeployment llama-decode: $.spec.replicas: must be an integer, not a"
        " string (schema dcd-v1beta1.json)"
    )
    assert all(f.severity == "error" for f in found)


def test_lint_leaves_unparsable_bindings_to_the_binding_rules() -> None:
    from renderer.lint.engine import lint_objects

    path = TESTS / "schema-broken" / "dcd-v1alpha1-extrapodmetadata-binding-extra-slash.yaml"
    rules = {f.rule for f in lint_objects(load_paths([str(path)])).findings}
    # the DCD restores from nothing (no checkpoint in its spec, no candidate metadata): the
    # webhook admits it, so its stray binding is binding-misplaced (a warning), not schema
    assert rules == {"binding-misplaced"}


def test_lint_reports_a_parsable_but_non_canonical_binding() -> None:
    from renderer.lint.engine import lint_objects

    path = TESTS / "schema-broken" / "dcd-binding-upper-hex.yaml"
    findings = lint_objects(load_paths([str(path)])).findings
    # one problem, one finding, from a binding rule, not also schema: the DCD restores from
    # nothing, so its binding is misplaced (a warning: the webhook admits the pod)
    assert [(f.rule, f.line, f.column) for f in findings] == [("binding-misplaced", 7, 43)]


@pytest.mark.skipif(not EXAMPLE_DGDS, reason="no examples/ yet")
def test_render_refuses_an_input_that_breaks_its_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from renderer.cli import main

    source = (EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml").read_text()
    assert source.count("backendFramework: vllm") == 1
    broken = tmp_path / "dgd.yaml"
    # a value outside the API's enum that rendering copies through: the schema catches it
    broken.write_text(source.replace("backendFramework: vllm", "backendFramework: pytorch"))
    out = tmp_path / "out"
    code = main(
        ["--no-config", "render", str(broken), "--checkpoint", str(SNAPSHOTS), "-o", str(out)]
    )
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.out == ""
    assert not out.exists()
    assert re.fullmatch(
        rf"dynamo-render: error: {re.escape(str(broken))}:\d+:\d+: \$\.spec\.backendFramework:"
        r' must be one of "sglang", "vllm", "trtllm"; got "pytorch"'
        r" \(the API server refuses others\) \(schema dgd-v1beta1\.json\)\n",
        captured.err,
    ), captured.err


NULL_CONTAINERS = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: nulls, namespace: team-a}
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        containers: %s
        mainContainer: {image: "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"}
"""


def test_a_null_field_is_absent_as_the_api_server_prunes_it() -> None:
    """Upstream's deepseek-v32 trtllm recipes write `containers: null`; the API server drops a
    null non-nullable field before validating, so the cluster accepts them. A wrong value
    of another type is still a violation, at its place."""
    from renderer.schema.check import validate

    (ok,) = load_bytes((NULL_CONTAINERS % "null").encode(), "dgd.yaml")
    assert validate(ok) == []
    (bad,) = load_bytes((NULL_CONTAINERS % '"main"').encode(), "dgd.yaml")
    violations = validate(bad)
    assert [(v.line, v.column) for v in violations] == [(9, 21)], violations
