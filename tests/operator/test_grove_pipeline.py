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


@pytest.mark.parametrize("case", rendered_cases(), ids=lambda c: c.name)
def test_a_render_of_one_target_skips_only_what_the_operator_does_not_create(
    case: OracleCase,
) -> None:
    # `only` drops the set that is neither printed nor the provider's (whose refusal is
    # the operator's): what is rendered equals the render of both sets.
    dgd = load_yaml(case.path / "dgd.yaml")
    admitted = admit(dgd, namespace=case.namespace(), config=case.config())
    both = render_operator(admitted, case.config(), checkpoints=case.input_checkpoints())
    grove = both.provider == "grove"
    for only in ("grove", "dcd"):
        one = render_operator(
            admitted, case.config(), checkpoints=case.input_checkpoints(), only=only
        )
        assert one.worker_hash == both.worker_hash
        assert one.checkpoint_resolution == both.checkpoint_resolution
        if grove or only == "grove":
            assert one.pcs == both.pcs
        else:
            assert one.pcs is None
        if not grove or only == "dcd":
            assert one.dcds == both.dcds
        else:
            assert one.dcds == []
