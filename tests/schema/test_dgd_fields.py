"""Unknown DGD fields: the field tree is the pinned CRD's, and render / lint --dgd refuse
a field the CRD does not declare (exit 2, at its key), as kubectl's strict validation does."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paths import FIXTURES, REPO, TESTS

from renderer.cli import main
from renderer.schema.fields import tree_from_crd, unknown_fields
from renderer.source import load_bytes

CRD = TESTS / "crds" / "nvidia.com_dynamographdeployments.yaml.gz"
TREE = REPO / "renderer" / "data" / "dgd-fields.json"
UPSTREAM = FIXTURES / "upstream"


def _crd() -> dict[str, Any]:
    [crd] = load_bytes(gzip.decompress(CRD.read_bytes()), CRD.name, max_bytes=1 << 26)
    return crd.data


def test_committed_tree_is_the_pinned_crds() -> None:
    import hashlib

    raw = gzip.decompress(CRD.read_bytes())
    # the CRD file at the pinned commit (recorded in renderer/data/dgd-fields.README.md)
    assert hashlib.sha256(raw).hexdigest() == (
        "055d7331cfbf1cca6864ee9005239de7e869dd79d69418126a52634d009c55d8"
    )
    assert json.loads(TREE.read_text()) == tree_from_crd(_crd())


def _declared(
    schema: dict[str, Any], defs: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every property path the bundled (subset) schema names."""
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    for key, child in schema.get("properties", {}).items():
        yield (*path, key)
        yield from _declared(child, defs, (*path, key))
    for key in ("items", "additionalProperties"):
        child = schema.get(key)
        if isinstance(child, dict):
            yield from _declared(child, defs, (*path, "*"))


@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_bundled_subset_schema_names_only_fields_the_crd_declares(version: str) -> None:
    """schemas/dgd-*.json cover what the renderer relies on; every field they name must be a
    field of the pinned CRD (else the bundled schema drifted from it)."""
    schema = json.loads((REPO / "schemas" / f"dgd-{version}.json").read_text())
    tree = json.loads(TREE.read_text())
    root = tree["versions"][version]
    missing = []
    for path in _declared(schema, schema.get("$defs", {})):
        node = root
        for part in path:
            while "r" in node:
                node = tree["defs"][node["r"]]
            if part == "*":
                node = node.get("i") or node.get("a") or {}
            elif part in node.get("p", {}):
                node = node["p"][part]
            elif "a" in node or node.get("x"):
                node = node.get("a", {})
            else:
                missing.append(".".join(path))
                break
    assert missing == []


BETA_TOP_LEVEL_CHECKPOINT = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: llama
spec:
  components:
    - name: Frontend
      type: frontend
    - name: VllmDecodeWorker
      type: decode
      checkpoint:
        enabled: true
"""


# A DGD the operator admits (the oracle renders it in namespace dynamo-prod): each component
# has its main container with a semantic-version image tag, which the validating webhook
# requires; the last key is the decode worker's, so a line appended at that indentation
# is a field of spec.components[1].
BETA_ADMITTED = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: llama
spec:
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
    - name: VllmDecodeWorker
      type: decode
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
"""


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_render_refuses_checkpoint_on_a_v1beta1_component(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (cwd / "dgd.yaml").write_text(BETA_TOP_LEVEL_CHECKPOINT)
    code = main(["--no-config", "render", "dgd.yaml", "-n", "dynamo-prod"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err.startswith(
        "dynamo-render: error: dgd.yaml:11:7: unknown field 'spec.components[1].checkpoint'"
    )
    assert "did you mean spec.components[1].experimental.checkpoint?" in captured.err
    assert len(captured.err.splitlines()) == 1


def test_lint_dgd_refuses_an_unknown_field(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (cwd / "dgd.yaml").write_text(BETA_TOP_LEVEL_CHECKPOINT)
    (cwd / "empty.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    code = main(["--no-config", "lint", "empty.yaml", "--dgd", "dgd.yaml", "-n", "dynamo-prod"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err.startswith("dynamo-render: error: dgd.yaml:11:7: unknown field")


@pytest.mark.parametrize(
    ("snippet", "path"),
    [
        # a typo in a container field (PodSpec, deep in the shared subtree)
        (
            "    podTemplate:\n      spec:\n        containers:\n          - name: main\n"
            "            image: x\n            imagePullPolicee: Always\n",
            ("spec", "components", 0, "podTemplate", "spec", "containers", 0, "imagePullPolicee"),
        ),
        # ObjectMeta of the pod template
        (
            "    podTemplate:\n      metadata:\n        labelz: {a: b}\n",
            ("spec", "components", 0, "podTemplate", "metadata", "labelz"),
        ),
    ],
)
def test_unknown_fields_are_found_deep(snippet: str, path: tuple[str | int, ...]) -> None:
    text = (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: a\n  namespace: b\n  colour: red\nspec:\n  components:\n"
        "  - name: W\n    type: worker\n" + snippet
    )
    [obj] = load_bytes(text.encode(), "dgd.yaml")
    assert unknown_fields(obj.data, "v1beta1") == [("metadata", "colour"), path]


def test_maps_and_preserved_fields_are_not_unknown() -> None:
    text = (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: a\n  labels: {anything: goes}\n  annotations: {x/y: z}\n"
        "spec:\n  labels: {free: form}\n  components:\n  - name: W\n    type: worker\n"
        "    podTemplate:\n      spec:\n        nodeSelector: {k: v}\n"
        "        containers:\n          - name: main\n            resources:\n"
        "              limits: {nvidia.com/gpu: 1}\n"
    )
    [obj] = load_bytes(text.encode(), "dgd.yaml")
    assert unknown_fields(obj.data, "v1beta1") == []


def test_v1alpha1_unknown_field(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (cwd / "dgd.yaml").write_text(
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: llama\n  namespace: dynamo-prod\nspec:\n  services:\n    Frontend:\n"
        "      componentType: frontend\n      replicaz: 2\n"
    )
    code = main(["--no-config", "render", "dgd.yaml"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err.startswith(
        "dynamo-render: error: dgd.yaml:10:7: unknown field 'spec.services.Frontend.replicaz'"
    )


def test_with_the_dgd_crd_given_its_schema_decides(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--crd with the installed operator's DGD CRD: a field it declares (newer than the
    pinned one) passes its schema but the emulation would drop it, so it is refused naming
    the emulated version (not rendered without it); one it does not declare is still
    refused as unknown, at its key."""
    crd = _crd()
    component = crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    component = component["properties"]["components"]["items"]
    assert crd["spec"]["versions"][1]["name"] == "v1beta1"
    component["properties"]["nextRelease"] = {"type": "string"}
    (cwd / "crd.json").write_text(json.dumps(crd))
    (cwd / "dgd.yaml").write_text(BETA_ADMITTED + "      nextRelease: soon\n")
    args = ["--no-config", "render", "dgd.yaml", "-n", "dynamo-prod"]
    assert main(args) == 2
    assert "unknown field 'spec.components[1].nextRelease'" in capsys.readouterr().err
    assert main([*args, "--crd", "crd.json"]) == 2
    err = capsys.readouterr().err
    assert "field 'spec.components[1].nextRelease' is declared by the CRD given with --crd" in err
    assert "Dynamo operator 1.5.0 (main 2a6da14c) does not know it" in err
    (cwd / "dgd.yaml").write_text(BETA_TOP_LEVEL_CHECKPOINT)
    assert main([*args, "--crd", "crd.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dynamo-render: error: dgd.yaml:11:7: ")
