"""The DGD defaulting and validating webhooks against the operator oracle's answers.

Expected values are the oracle's (the pinned operator compiled unchanged), never this
project's output:

- tests/operator/goldens/webhooks/<case>/: a hand-written DGD per webhook rule and the
  oracle's exit status and ``admission warning:`` / ``refused:`` lines
  (scripts/regen-webhook-goldens; README there);
- tests/operator/goldens/oracle/<case>/: the shared corpus (its admission outcome and
  warnings, and its admitted DGD as the validator's input).

Every case goes through the admission pipeline; the refusal text must be the operator's to
the byte, and the path the error names must exist in the input and, for v1beta1 input, be a
prefix of the field the operator names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from oracle_corpus import load_yaml, oracle_cases

from renderer.operator.admission.errors import AdmissionError
from renderer.operator.config import OperatorConfig

WEBHOOKS = Path(__file__).parent / "goldens" / "webhooks"
NAMESPACE = "team-a"  # what scripts/regen-webhook-goldens passes
INTERPOD_CAUSE = (
    "spec.components[{i}].experimental.checkpoint: Forbidden: "
    "Snapshot with gpuMemoryService.mode=InterPod is unsupported"
)


def _cases() -> list[str]:
    return sorted(p.name for p in WEBHOOKS.iterdir() if (p / "dgd.yaml").exists())


def _expected(case: str) -> tuple[int, list[str], str | None]:
    """(oracle exit, its admission warnings, its refusal message or None)."""
    root = WEBHOOKS / case
    code = int((root / "oracle-exit").read_text().strip())
    lines = (root / "oracle-stderr.txt").read_text(encoding="utf-8").splitlines()
    warnings = [
        ln.removeprefix("admission warning: ") for ln in lines if ln.startswith("admission")
    ]
    refused = [ln.removeprefix("refused: ") for ln in lines if ln.startswith("refused: ")]
    return code, warnings, refused[0] if refused else None


def _config(case: str) -> OperatorConfig:
    args_file = WEBHOOKS / case / "oracle-args"
    args = args_file.read_text().split() if args_file.exists() else []
    return OperatorConfig.for_oracle(NAMESPACE, checkpoint_enabled="--checkpoint-enabled" in args)


def _admit(
    doc: dict[str, Any], config: OperatorConfig, *, allow: bool
) -> tuple[list[str], AdmissionError | None]:
    from renderer.operator.admission.pipeline import admit_with_warnings

    try:
        _, warnings = admit_with_warnings(
            doc, namespace=NAMESPACE, config=config, allow_checkpoint_with_interpod_gms=allow
        )
    except AdmissionError as err:
        return list(err.warnings), err
    return warnings, None


def _resolves(doc: Any, path: tuple[str | int, ...]) -> bool:
    node = doc
    for seg in path:
        if isinstance(seg, int):
            if not isinstance(node, list) or not 0 <= seg < len(node):
                return False
        elif not isinstance(node, dict) or seg not in node:
            return False
        node = node[seg]
    return True


def _operator_path(message: str) -> tuple[str | int, ...]:
    """The first field path the operator names, parsed from its text (``a.b[2][key]``)."""
    text = message.split(" is invalid: ", 1)[1].lstrip("[")
    dotted = text.split(": ", 1)[0]
    out: list[str | int] = []
    for name, bracket in re.findall(r"([^.\[\]]+)|\[([^\]]*)\]", dotted):
        if name:
            out.append(name)
        else:
            out.append(int(bracket) if bracket.isdigit() else bracket)
    return tuple(out)


@pytest.mark.parametrize("case", _cases())
def test_webhook_golden(case: str) -> None:
    doc = load_yaml(WEBHOOKS / case / "dgd.yaml")
    code, warnings, refused = _expected(case)
    got_warnings, err = _admit(doc, _config(case), allow=False)
    assert got_warnings == warnings
    if code == 0:
        assert err is None, err.message if err else ""
        return
    assert err is not None, "the operator refuses this DGD"
    assert err.message == refused
    assert _resolves(doc, err.path), err.path
    for _, cause_path in err.causes:
        assert _resolves(doc, cause_path), cause_path
    operator = _operator_path(err.message)
    if doc["apiVersion"].endswith("/v1beta1") or operator[:2] != ("spec", "components"):
        assert operator[: len(err.path)] == err.path
    else:
        # v1alpha1: components are the services in name order; the path names the service.
        name = sorted(doc["spec"]["services"])[int(operator[2])]
        assert err.path[:3] == ("spec", "services", name)


def test_enough_refusal_goldens() -> None:
    refused = [c for c in _cases() if _expected(c)[0] == 3]
    assert len(refused) >= 25


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in _cases()
        if "Snapshot with gpuMemoryService.mode=InterPod" in (_expected(c)[2] or "")
    ],
)
def test_checkpoint_with_interpod_gms_allowed_by_default(case: str) -> None:
    """The project's one deliberate difference: that single cause is dropped, nothing else."""
    doc = load_yaml(WEBHOOKS / case / "dgd.yaml")
    _, _, refused = _expected(case)
    assert refused is not None
    prefix, causes = refused.split(" is invalid: ", 1)
    parts = causes[1:-1].split(", spec.") if causes.startswith("[") else [causes]
    parts = [p if i == 0 else "spec." + p for i, p in enumerate(parts)]
    pattern = re.escape(INTERPOD_CAUSE).replace(r"\{i\}", r"\d+")
    remaining = [p for p in parts if not re.fullmatch(pattern, p)]
    assert len(remaining) < len(parts)
    _, err = _admit(doc, _config(case), allow=True)
    if not remaining:
        assert err is None
    else:
        body = remaining[0] if len(remaining) == 1 else "[" + ", ".join(remaining) + "]"
        assert err is not None
        assert err.message == f"{prefix} is invalid: {body}"


def _corpus_warnings(root: Path) -> list[str]:
    """The corpus case's admission warnings (the file exists only when the oracle warned)."""
    path = root / "oracle-warnings.txt"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [ln.removeprefix("admission warning: ") for ln in lines if ln.startswith("admission")]


@pytest.mark.parametrize("case", oracle_cases(), ids=lambda c: c.name)
def test_corpus_admission_outcome(case: Any) -> None:
    """The shared corpus: refused exactly where the oracle's admission refused, same warnings."""
    doc = load_yaml(case.path / "dgd.yaml")
    warnings = _corpus_warnings(case.path)
    from renderer.operator.admission.pipeline import admit_with_warnings

    error = ""
    if case.refused:
        error = (case.path / "expected-error.txt").read_text(encoding="utf-8").strip()
    admission_refusal = error.startswith(("admission webhook", "controller rejected"))
    namespace = str(load_yaml(case.path / "input-dgd.yaml")["metadata"]["namespace"])
    config = OperatorConfig.for_oracle(namespace, checkpoint_enabled=case.checkpoint_mode)
    try:
        _, got = admit_with_warnings(
            doc,
            namespace=namespace,
            config=config,
            allow_checkpoint_with_interpod_gms=False,
        )
    except AdmissionError as err:
        assert admission_refusal, err.message
        assert err.message == error
        assert list(err.warnings) == warnings
        return
    assert not admission_refusal, error
    assert got == warnings


@pytest.mark.parametrize(
    "case",
    [c for c in oracle_cases() if not c.refused],
    ids=lambda c: c.name,
)
def test_validate_accepts_the_oracles_admitted_dgd(case: Any) -> None:
    """validate() on the DGD the oracle admitted (v1beta1 inputs) accepts it, same warnings."""
    from renderer.operator.admission.validation import check_controller_preflight, validate

    doc = load_yaml(case.path / "dgd.yaml")
    if not doc["apiVersion"].endswith("/v1beta1"):
        pytest.skip("a v1alpha1 request needs its v1alpha1 document: covered by the pipeline test")
    warnings = _corpus_warnings(case.path)
    admitted = case.admitted_dgd()
    got = validate(admitted, case.config(), allow_checkpoint_with_interpod_gms=False)
    check_controller_preflight(admitted, allow_checkpoint_with_interpod_gms=False)
    assert got == warnings


def test_defaulting_matches_the_oracles_admitted_dgd() -> None:
    """The defaulting webhook's fields in every accepted corpus case are the oracle's."""
    from renderer.operator.admission.defaulting import default

    checked = 0
    for case in oracle_cases():
        if case.refused:
            continue
        admitted = case.admitted_dgd()
        # Undo what defaulting adds, then redo it: the result must be the oracle's again.
        stripped = load_yaml(case.path / "admitted-dgd.yaml")
        annotations = stripped["metadata"]["annotations"]
        annotations.pop("nvidia.com/workload-provider")
        doc = load_yaml(case.path / "dgd.yaml")
        if "nvidia.com/dynamo-operator-origin-version" not in (
            doc.get("metadata", {}).get("annotations") or {}
        ):
            annotations.pop("nvidia.com/dynamo-operator-origin-version")
        source = doc["spec"].get("components") or []
        for i, component in enumerate(stripped["spec"]["components"]):
            written = source[i] if doc["apiVersion"].endswith("/v1beta1") else None
            if written is not None and "replicas" not in written:
                component.pop("replicas", None)
            if written is not None and "minAvailable" not in written:
                component.pop("minAvailable", None)
        assert default(stripped, case.config()) == admitted, case.name
        checked += 1
    assert checked >= 20


#: The input field each refusal names, written by hand from the case's dgd.yaml: for
#: v1alpha1 inputs the operator's v1beta1 path is mapped back to the service it came from.
INPUT_PATHS: dict[str, tuple[str | int, ...]] = {
    "a1-checkpoint-gate-off-and-no-semver": ("spec", "services", "VllmWorker", "checkpoint"),
    "a1-interpod-gms-sglang": ("spec", "services", "VllmWorker", "gpuMemoryService", "mode"),
    "a1-image-missing": ("spec", "services", "Frontend"),
    "a1-failover-numshadows": ("spec", "services", "VllmWorker", "failover", "numShadows"),
    "elastic-ep-without-command": ("spec", "components", 1, "podTemplate", "spec", "containers", 0),
    "no-pod-template": ("spec", "components", 0),
    "intrapod-failover-needs-container-discovery": ("metadata",),
    "vllm-executor-backend-annotation": (
        "metadata",
        "annotations",
        "nvidia.com/vllm-distributed-executor-backend",
    ),
}


@pytest.mark.parametrize("case", sorted(INPUT_PATHS))
def test_refusal_names_the_input_field(case: str) -> None:
    doc = load_yaml(WEBHOOKS / case / "dgd.yaml")
    _, err = _admit(doc, _config(case), allow=False)
    assert err is not None
    assert err.path == INPUT_PATHS[case]
