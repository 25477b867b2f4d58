"""Differential test of the admission webhooks against the operator oracle.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). Hypothesis (derandomized) drives the generator
in tests/operator/webhook_dgds.py; for every DGD the oracle's admission outcome is the
expected value: its ``admission warning:`` lines and, when the validating webhook or the
controller preflight refuses, its ``refused:`` line, byte for byte. A refusal from a later
stage (rendering) counts as admitted. About half a minute on a shared 2-core machine.
"""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from example_budget import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from webhook_dgds import dgd

from renderer.operator.admission.errors import AdmissionError
from renderer.operator.config import OperatorConfig

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(
    os.environ.get("DYNAMO_OPERATOR_ORACLE", ROOT.parent / "shared" / "operator-oracle" / "oracle")
)
NAMESPACE = "diff-ns"
ADMISSION_REFUSALS = ("refused: admission webhook", "refused: controller rejected")

pytestmark = pytest.mark.skipif(
    not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"
)


def _oracle(doc: dict[str, Any], checkpoint: bool) -> list[str]:
    """The oracle's admission lines for ``doc`` (warnings, then an admission refusal)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False  # the oracle adds the namespace under a block metadata:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dgd.yaml"
        with path.open("w", encoding="utf-8") as handle:
            yaml.dump(doc, handle)
        args = [str(ORACLE), "render", str(path), "--namespace", NAMESPACE]
        if checkpoint:
            args.append("--checkpoint-enabled")
        result = subprocess.run(args, capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode in (0, 3), result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("admission warning: ")]
    lines += [ln for ln in result.stderr.splitlines() if ln.startswith(ADMISSION_REFUSALS)]
    return lines


def _ours(doc: dict[str, Any], checkpoint: bool) -> list[str]:
    from renderer.operator.admission.pipeline import admit_with_warnings

    config = OperatorConfig.for_oracle(NAMESPACE, checkpoint_enabled=checkpoint)
    try:
        _, warnings = admit_with_warnings(
            doc, namespace=NAMESPACE, config=config, allow_checkpoint_with_interpod_gms=False
        )
    except AdmissionError as err:
        return [f"admission warning: {w}" for w in err.warnings] + [f"refused: {err.message}"]
    return [f"admission warning: {w}" for w in warnings]


@settings(
    derandomize=True,
    max_examples=examples(40),
    deadline=None,
    database=None,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
)
@given(st.randoms(use_true_random=False))
def test_admission_matches_the_oracle(rnd: random.Random) -> None:
    doc, checkpoint = dgd(rnd)
    assert _ours(doc, checkpoint) == _oracle(doc, checkpoint)
