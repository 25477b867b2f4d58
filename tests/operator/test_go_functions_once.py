"""Each operator function has one Python definition, and it answers as Go does.

Admission once carried its own copies of controller functions (PCSNameForDGD,
GetNumberOfNodes, IsElasticEPRayLaunch, ExtractGPUCountFromResourceRequirements, ...) and
the port used Python stand-ins for Go primitives; they disagreed with the operator on the
DGDs of goldens/goruntime (oracle outputs, see its README). Admission now imports the
controller's definition; these tests pin each divergence.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import NAMESPACE, OracleCase, diff_paths, load_yaml

from renderer.operator import v1beta1_helpers
from renderer.operator.admission.errors import AdmissionError
from renderer.operator.admission.pipeline import admit
from renderer.operator.config import OperatorConfig
from renderer.operator.render import render_operator

GOLDENS = Path(__file__).parent / "goldens" / "goruntime"
CASES = [OracleCase(p.name, p) for p in sorted(GOLDENS.iterdir()) if (p / "dgd.yaml").exists()]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_port_answers_as_the_oracle(case: OracleCase) -> None:
    dgd = load_yaml(case.path / "dgd.yaml")
    config = OperatorConfig.for_oracle(NAMESPACE, checkpoint_enabled=False)
    if case.refused and case.expected_error().startswith("admission webhook denied"):
        with pytest.raises(AdmissionError) as denied:
            admit(dgd, namespace=NAMESPACE, config=config)
        assert denied.value.message == case.expected_error()
        return
    admitted = admit(dgd, namespace=NAMESPACE, config=config)
    if case.refused:
        # The operator's words; the controller's stage prefixes are the render step's.
        with pytest.raises(ValueError) as refused:
            render_operator(admitted, config)
        text = getattr(refused.value, "message", str(refused.value))
        assert case.expected_error().endswith(text)
        assert len(text) > len("failed to generate podSpec for role worker: ")
        return
    assert diff_paths(admitted, case.admitted_dgd()) == []
    result = render_operator(admitted, config)
    assert result.worker_hash == case.worker_hash()
    assert diff_paths(result.pcs, case.expected_pcs()) == []
    assert diff_paths(result.dcds, case.expected_dcds()) == []


def test_the_non_ascii_case_is_the_one_that_truncates_by_bytes() -> None:
    # 45 - (13 + 17) = 15 characters would keep more of the DGD name; Go counts bytes.
    (case,) = (c for c in CASES if c.name == "go-strings-non-ascii")
    assert case.expected_pcs()["metadata"]["name"] == "go-strin-d8dd"
    cliques = [t["name"] for t in case.expected_pcs()["spec"]["template"]["cliques"]]
    assert "décodeiworker-ldr" in cliques


def test_a_padded_preserved_quantity_does_not_parse() -> None:
    # ParseQuantity(" 1") fails: the preserved resources convert to no cpu, differ from the
    # hub's, and are not restored into the DCD's v1alpha1 record.
    (case,) = (c for c in CASES if c.name == "preserved-resources-padded-quantity")
    (dcd,) = case.expected_dcds()
    record = dcd["metadata"]["annotations"]["nvidia.com/dcd-spec"]
    assert '"requests":{"cpu":"1"}' in record
    assert '" 1"' not in record


@pytest.mark.parametrize(
    ("multinode", "nodes"),
    [
        (None, 1),
        ({}, 0),
        # encoding/json leaves an int32 field at its zero value for a JSON null
        ({"nodeCount": None}, 0),
        ({"nodeCount": 3}, 3),
    ],
)
def test_get_number_of_nodes_reads_null_as_go_zero(multinode: Any, nodes: int) -> None:
    component: dict[str, Any] = {"name": "w"}
    if multinode is not None:
        component["multinode"] = multinode
    assert v1beta1_helpers.get_number_of_nodes(component) == nodes


def _names(admission: bool) -> set[str]:
    root = Path(__file__).parents[2] / "renderer" / "operator"
    names: set[str] = set()
    for path in root.rglob("*.py"):
        if ("admission" in path.parts) != admission:
            continue
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names.add(node.name.lstrip("_"))
    return names


def test_admission_defines_no_controller_function_again() -> None:
    # Go's encoding/json, mergo and equality are renderer/goruntime's, outside operator/.
    assert _names(admission=True) & _names(admission=False) == set()


@pytest.mark.parametrize(
    ("image", "version"),
    [
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", (1, 5, 0)),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:v1.6.2-rc1 ", (1, 6, 2)),
        # strings.TrimSpace keeps U+001F (str.strip removed it, and the hash once resolved it)
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0\x1f", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime@sha256:ab", None),
    ],
)
def test_the_worker_hash_resolves_the_runtime_version_as_runtimeversion_does(
    image: str, version: tuple[int, int, int] | None
) -> None:
    from renderer.operator.hash import resolve_runtime_version

    assert resolve_runtime_version(image, "") == version
