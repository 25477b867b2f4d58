"""Differential test of the DCDs and the worker hash against the oracle on generated DGDs.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). The DGD variations are the conversion
differential's generators (v1alpha1 and v1beta1, the fields conversion and defaulting
touch); for each DGD the oracle renders, the emulation starts from the admitted DGD the
oracle printed and must reproduce its worker hash and every DCD (the ``nvidia.com/dcd-spec``
v1alpha1 record included). A case the emulation declines names its field
(NotReproducedError) and is counted, never compared. Derandomized, about a minute.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from ruamel.yaml import YAML

from renderer.operator.graph_dcd import (
    RollingUpdateContext,
    generate_dynamo_components_deployments,
    printed_dcds,
)
from renderer.operator.hash import compute_dgd_workers_spec_hash
from renderer.operator.typed_json import NotReproducedError
from tests.operator.oracle_corpus import diff_paths
from tests.operator.test_admission_conversion_differential import ORACLE, alpha_dgds, beta_dgds

pytestmark = pytest.mark.skipif(
    not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"
)
NAMESPACE = "diff-ns"
WARNING_PREFIXES = ("warning:", "admission warning:")


# The oracle writes YAML 1.1 (sigs.k8s.io/yaml): a hex hash such as 313e0843 is a string
# there (a 1.1 float needs a dot) but a float to a 1.2 reader, so such scalars are quoted
# before reading.
_HEX = re.compile(r"^(\s*(?:- )?[^:#]+: )([0-9a-f]*e[0-9a-f]*)$", re.MULTILINE)


def _yaml_text(text: str) -> str:
    return _HEX.sub(r'\1"\2"', text)


def _reader() -> YAML:
    return YAML(typ="safe", pure=True)


def _oracle(doc: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dgd.yaml"
        writer = YAML(typ="safe", pure=True)
        writer.default_flow_style = False
        with path.open("w", encoding="utf-8") as handle:
            writer.dump(doc, handle)
        return subprocess.run(
            [str(ORACLE), "render", str(path), "--namespace", NAMESPACE, "--emit-rendered-dgd"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )


def _check(doc: dict[str, Any]) -> None:
    proc = _oracle(doc)
    if proc.returncode == 3:  # refused before rendering: the admission tests cover it
        return
    assert proc.returncode == 0, proc.stderr
    reader = _reader()
    admitted = reader.load(
        "".join(
            line for line in proc.stderr.splitlines(True) if not line.startswith(WARNING_PREFIXES)
        )
    )
    head, _, rest = proc.stdout.partition("\n---\n")
    want_hash = head.splitlines()[0].removeprefix("# worker-hash: ").strip()
    _pcs, _, dcd_text = rest.partition("\n---\n")
    expected = [d for d in reader.load_all(_yaml_text(dcd_text)) if d]
    try:
        got_hash = compute_dgd_workers_spec_hash(admitted)
        dcds = generate_dynamo_components_deployments(
            admitted, None, None, RollingUpdateContext(new_worker_hash=want_hash)
        )
    except NotReproducedError:
        return
    assert got_hash == want_hash
    assert diff_paths(printed_dcds(dcds), expected) == []


_SETTINGS = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(alpha_dgds)
def test_alpha_variations_render_as_the_oracle(doc: dict[str, Any]) -> None:
    _check(doc)


@settings(_SETTINGS, max_examples=25)
@given(beta_dgds)
def test_beta_variations_render_as_the_oracle(doc: dict[str, Any]) -> None:
    _check(doc)
