"""`render --crd` with a DGD CRD newer than the emulated operator: a field that CRD
declares and the emulation does not know is exit 2, naming the field and the emulated
version, never a render that silently drops it.

The newer CRD is the pinned operator's own DGD CRD (tests/crds, the file the bundled field
tree is generated from) with upstream's `device` field added to every v1beta1 component,
shaped as upstream documents it for HAMi GPU sharing (`resources`, `schedulerName`,
`nodeSelector`, `tolerations`; docs/kubernetes/non-nvidia-gpus at upstream bdeb46ca).
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import REPO, TESTS

from renderer.cli import main

PINNED_CRD = TESTS / "crds" / "nvidia.com_dynamographdeployments.yaml.gz"
DEVICE = {
    "type": "object",
    "properties": {
        "resources": {
            "type": "object",
            "additionalProperties": {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            },
        },
        "schedulerName": {"type": "string"},
        "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
        "tolerations": {
            "type": "array",
            "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    },
}
AGG = (REPO / "examples" / "upstream" / "vllm-agg.yaml").read_text().replace(":my-tag", ":1.3.0")
HAMI = AGG.replace(
    "  - name: VllmDecodeWorker\n",
    "  - name: VllmDecodeWorker\n"
    "    device:\n"
    "      resources:\n"
    '        nvidia.com/gpu: "1"\n'
    '        nvidia.com/gpumem: "3000"\n'
    "      schedulerName: hami-scheduler\n",
)


@functools.cache
def _pinned() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(gzip.decompress(PINNED_CRD.read_bytes()), yaml.CSafeLoader)
    return loaded


def _newer_crd() -> dict[str, Any]:
    newer = copy.deepcopy(_pinned())
    for version in newer["spec"]["versions"]:
        if version["name"] == "v1beta1":
            spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
            spec["properties"]["components"]["items"]["properties"]["device"] = DEVICE
    return newer


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("crd.yaml").write_text(json.dumps(_newer_crd()))  # JSON is YAML, and quick to write
    Path("pinned.yaml").write_text(json.dumps(_pinned()))
    Path("hami.yaml").write_text(HAMI)
    Path("agg.yaml").write_text(AGG)
    return tmp_path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--no-config", "render", *argv, "-n", "dynamo-prod"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_hami_example_shape_is_found_in_the_file() -> None:
    assert "    device:\n" in HAMI


def test_a_field_only_the_given_crd_declares_is_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["hami.yaml", "--crd", "crd.yaml"], capsys)
    assert (code, out) == (2, "")
    line = HAMI.splitlines().index("    device:") + 1
    assert err.startswith(
        f"dynamo-render: error: hami.yaml:{line}:5: field 'spec.components[1].device'"
    )
    assert "declared by the CRD given with --crd" in err
    assert "Dynamo operator 1.5.0 (main 2a6da14c) does not know it" in err
    assert "silently drop it" in err
    assert len(err.splitlines()) == 1


def test_without_crd_the_field_is_unknown_as_before(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["hami.yaml"], capsys)
    assert (code, out) == (2, "")
    assert "unknown field 'spec.components[1].device'" in err
    assert "its CRD does not declare it" in err


def test_with_the_pinned_crd_the_field_is_refused_by_that_crd(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["hami.yaml", "--crd", "pinned.yaml"], capsys)
    assert code == 2
    assert "device" in err
    assert "declared by the CRD given with --crd" not in err


def test_a_dgd_without_the_field_renders_with_the_newer_crd(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["agg.yaml", "--crd", "crd.yaml"], capsys)
    assert code == 0, err
    assert _run(["agg.yaml"], capsys)[1] == out  # the same render as with the bundled CRD


def test_lint_dgd_refuses_it_too(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("empty.yaml").write_text("")
    capsys.readouterr()
    args = ["lint", "empty.yaml", "--dgd", "hami.yaml", "-n", "dynamo-prod", "--crd", "crd.yaml"]
    code = main(["--no-config", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert "field 'spec.components[1].device' is declared by the CRD given with --crd" in err
