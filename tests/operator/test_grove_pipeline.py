"""The whole chain on the oracle corpus: hand-written DGD -> admit() -> render_operator().

The PodCliqueSet must equal the oracle's for every rendered case (input: the case's
``dgd.yaml`` and, in checkpoint mode, its DynamoCheckpoint file), so admission, the
worker hash, checkpoint resolution and the Grove rendering are checked together.
"""

from __future__ import annotations

import pytest
from oracle_corpus import OracleCase, diff_paths, load_yaml, rendered_cases

from renderer.operator.admission.pipeline import admit
from renderer.operator.render import render_operator


@pytest.mark.parametrize("case", rendered_cases(), ids=lambda c: c.name)
def test_pipeline_pcs_equals_oracle(case: OracleCase) -> None:
    dgd = load_yaml(case.path / "dgd.yaml")
    admitted = admit(dgd, namespace=case.namespace(), config=case.config())
    result = render_operator(admitted, case.config(), checkpoints=case.input_checkpoints())
    assert result.pcs is not None
    assert diff_paths(result.pcs, case.expected_pcs()) == []
