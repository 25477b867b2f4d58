"""Before the capture, `render --dgd-uid` equals the oracle's checkpoint mode, field for field.

Day 1 of a checkpoint's life (docs/admission.md section 3): the DGD is applied, its
automatic checkpoints are not captured. For every case of the oracle corpus
(tests/operator/goldens/oracle/, not refused, not already in checkpoint mode) every
worker-class component is given `checkpoint.enabled` with each startup policy
(Immediate, WaitForCheckpoint), and the DGD is rendered twice:

- by the oracle (the pinned operator, compiled unchanged):
  `oracle render dgd.yaml --namespace dynamo --checkpoint-enabled --dgd-uid UID --out DIR`;
- by `dynamo-render render dgd.yaml --dgd-uid UID --target T`, through the CLI, with no
  snapshot, for both targets (`input-dgd.yaml`, the oracle's input, names its namespace).

Render must exit 0 with the oracle's objects (render adds nothing before the capture: no
binding, and the name annotation the contract keeps is the operator's own on a restore
candidate) and one warning per checkpointed component naming the checkpoint the oracle
resolved and the `kubectl get dynamocheckpoint` that saves it; where the oracle refuses
the DGD, render refuses it (exit 2) with the operator's words.

A worker-spec edit with the old snapshot committed (state 3) is checked the same way:
render, given the snapshot captured for the old spec, equals the oracle given that
snapshot (`--checkpoint FILE`): the operator does not read it.

Runs only when the oracle is present (``../shared/operator-oracle/oracle`` relative to the
repository root, or $DYNAMO_OPERATOR_ORACLE). Expected values are the oracle's outputs.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from oracle_corpus import (
    GROVE_REFUSES,
    NAMESPACE,
    OracleCase,
    diff_paths,
    load_yaml_documents,
    rendered_cases,
)
from test_admission_conversion_differential import ORACLE

from renderer.cli import main
from renderer.keys import BINDING_KEY, BINDINGS_MAP_KEY
from renderer.operator.admission.validation_shared import CHECKPOINT_INTER_POD_MESSAGE
from renderer.source import load_bytes

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ORACLE.exists(), reason=f"the operator oracle is not at {ORACLE}"),
]

JSON = dict[str, Any]
UID = "3f0c9e2a-6b1d-4c7e-8a5f-9d2b4e6a1c08"
POLICIES = ("Immediate", "WaitForCheckpoint")
WORKER_TYPES = ("worker", "prefill", "decode")
CASES = [c for c in rendered_cases() if not c.checkpoint_mode]


def _checkpointed(case: OracleCase, policy: str) -> tuple[JSON, list[str]]:
    """The case's input DGD with every worker-class component checkpointed (automatic,
    `policy`); and those components' names."""
    dgd: JSON = copy.deepcopy(load_yaml_documents(case.path / "input-dgd.yaml")[0])
    spec = dgd["spec"]
    names: list[str] = []
    if "services" in spec:  # v1alpha1: a map, componentType and checkpoint per service
        for name, service in spec["services"].items():
            if (service or {}).get("componentType") in WORKER_TYPES:
                service["checkpoint"] = {"enabled": True, "mode": "Auto", "startupPolicy": policy}
                names.append(name)
    else:
        for component in spec.get("components") or []:
            if component.get("type") in WORKER_TYPES:
                experimental = component.setdefault("experimental", {})
                experimental["checkpoint"] = {"enabled": True, "startupPolicy": policy}
                names.append(component["name"])
    return dgd, names


def _oracle(work: Path, *extra: str) -> Path:
    out = work / "oracle"
    args = [str(ORACLE), "render", "dgd.yaml", "--namespace", NAMESPACE, "--out", str(out)]
    done = subprocess.run(
        [*args, "--checkpoint-enabled", "--dgd-uid", UID, *extra],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 3), done.stderr
    return out


def _render(
    work: Path, target: str, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(
        [
            "--no-config",
            "render",
            str(work / "dgd.yaml"),
            *("--dgd-uid", UID, "--target", target, *extra),
        ]
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _objects(stdout: str) -> list[JSON]:
    return [o.data for o in load_bytes(stdout.encode("utf-8"), "stdout", allow_empty=True)]


def _binding_keys(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [k for k in node if k in (BINDING_KEY, BINDINGS_MAP_KEY)]
        return found + [k for v in node.values() for k in _binding_keys(v)]
    if isinstance(node, list):
        return [k for v in node for k in _binding_keys(v)]
    return []


def _expected(out: Path, target: str) -> list[JSON]:
    if target == "grove":
        return load_yaml_documents(out / "expected-pcs.yaml")
    return load_yaml_documents(out / "expected-dcds.yaml")


def _resolution(out: Path) -> JSON:
    text = (out / "checkpoint-resolution.yaml").read_text(encoding="utf-8")
    report: JSON = yaml.safe_load(text)
    return report


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_precapture_render_equals_the_oracle(
    case: OracleCase, policy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dgd, names = _checkpointed(case, policy)
    if not names:
        pytest.skip("no worker-class component to checkpoint")
    (tmp_path / "dgd.yaml").write_text(yaml.safe_dump(dgd, sort_keys=False), encoding="utf-8")
    out = _oracle(tmp_path)
    for target in ("grove", "dcd"):
        code, stdout, stderr = _render(tmp_path, target, capsys)
        refused = out / "expected-error.txt"
        if refused.exists():
            assert (code, stdout) == (2, ""), stderr
            first = refused.read_text(encoding="utf-8").splitlines()[0]
            if CHECKPOINT_INTER_POD_MESSAGE in first:
                # the project's one deliberate admission difference (validation.py): the
                # inter-pod GMS refusal is skipped, and another refusal comes further on
                assert "dgd.yaml:" in stderr and "error:" in stderr
                continue
            assert first.split(": ")[-1][:60] in stderr.replace("\n", " "), stderr
            continue
        if target == "grove" and case.name in GROVE_REFUSES:
            # refused on purpose where the oracle renders: the cluster would refuse it
            assert (code, stdout) == (2, ""), stdout
            assert GROVE_REFUSES[case.name] in stderr, stderr
            continue
        assert code == 0, stderr
        objects = _objects(stdout)
        assert _binding_keys(objects) == []  # nothing is bound before the capture
        expected = _expected(out, target)
        assert [diff_paths(a, e) for a, e in zip(objects, expected, strict=True)] == [
            [] for _ in expected
        ]
        report = _resolution(out)["components"]
        assert sorted(report) == sorted(names)
        namespace = dgd["metadata"]["namespace"]  # input-dgd.yaml carries it
        for name in names:
            checkpoint = report[name]["checkpointName"]
            assert report[name]["foundInInput"] is False
            warned = [w for w in stderr.splitlines() if f"component {name!r}" in w]
            assert len(warned) == 1, stderr
            assert f"{namespace}/{checkpoint}" in warned[0]
            assert (
                f"`kubectl get dynamocheckpoint {checkpoint} -n {namespace} -o yaml >"
                f" {checkpoint}.yaml`" in warned[0]
            )


# The example graph, as the oracle's bound golden holds it, and its snapshot captured
# for that worker spec (tests/operator/goldens/bound/README.md).
BOUND = Path(__file__).parent / "goldens" / "bound" / "example-v1beta1"


@pytest.mark.parametrize("target", ["grove", "dcd"])
def test_worker_spec_edit_with_the_old_snapshot_equals_the_oracle(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """State 3: the decode worker's spec is edited after its capture; the old snapshot is
    still committed. The operator never reads it (another worker hash, another name), so
    render equals the oracle given that snapshot, and warns that it is outdated."""
    text = (BOUND / "input-dgd.yaml").read_text(encoding="utf-8")
    edited = text.replace('--max-model-len, "8192"]', '--max-model-len, "16384"]')
    assert edited != text
    snapshot = yaml.safe_load((BOUND / "checkpoint.yaml").read_text(encoding="utf-8"))
    uid = next(r["uid"] for r in snapshot["metadata"]["ownerReferences"] if r.get("controller"))
    (tmp_path / "dgd.yaml").write_text(edited, encoding="utf-8")
    (tmp_path / "old.yaml").write_text(
        (BOUND / "checkpoint.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    out = tmp_path / "oracle"
    done = subprocess.run(
        [
            *(str(ORACLE), "render", "dgd.yaml", "--namespace", NAMESPACE, "--out", str(out)),
            *("--checkpoint", "old.yaml", "--dgd-uid", uid),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = _resolution(out)["components"]["VllmDecodeWorker"]
    assert report["foundInInput"] is False  # the operator does not read the old snapshot
    assert report["checkpointName"] != snapshot["metadata"]["name"]
    # without --dgd-uid: the uid comes from the old snapshot's ownerReference
    capsys.readouterr()
    code = main(
        [
            *("--no-config", "render", str(tmp_path / "dgd.yaml"), "--target", target),
            *("--checkpoint", str(tmp_path / "old.yaml")),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    objects = _objects(captured.out)
    assert _binding_keys(objects) == []
    expected = _expected(out, target)
    assert [diff_paths(a, e) for a, e in zip(objects, expected, strict=True)] == [
        [] for _ in expected
    ]
    assert f"snapshot {snapshot['metadata']['name']} is outdated" in captured.err
    assert f"{report['checkpointName']} (DGD uid {uid}" in captured.err
