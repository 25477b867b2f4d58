"""`dynamo-render render` refuses with the operator's exact text, stage prefix included.

Every refusal golden of the operator corpora (`expected-error.txt`, written by the operator
oracle, see each corpus README) is rendered through the CLI for the target the operator
creates (the PodCliqueSet unless the DGD turns Grove off); the message after
`file:line:column: ` must be the oracle's text byte for byte: `admission webhook denied the
request: ...`, `controller rejected the DGD: ...`, `failed to reconcile checkpoints: ...`,
`failed to reconcile Grove workloads: failed to generate the Grove GangSet: ...`,
`compute worker hash: ...`, never the tool's own wording around it.

Three answers come before the operator's, each on purpose, and each is checked for what it is:
- the API server's: a DGD its CRD schema refuses (a missing required field, an unknown
  field) is reported with that rule, since kubectl apply would fail before any webhook;
  only where the operator refuses the DGD as well;
- render's snapshot check: a checkpoint the operator would fail to resolve (no object of
  the checkpointRef's name, the object of the automatic name with another ID, or no
  snapshot given at all) is reported naming the component and the snapshot to pass, since
  render cannot bind a checkpoint it has not seen; only where the operator's refusal is a
  checkpoint reconcile failure;
- the deliberate admission difference (validation.py): checkpointing together with inter-pod
  GMS is admitted, so that refusal of the operator's is missing from the aggregate.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from renderer.cli import main

GOLDENS = Path(__file__).parent / "goldens"
CORPORA = ("oracle", "checkpoint", "backends", "dcd", "upstream-dgds")
#: The namespace each corpus was rendered in when its DGD names none (see the READMEs).
_NAMESPACE = {"upstream-dgds": "dynamo"}


def _cases() -> list[Path]:
    return [
        case
        for corpus in CORPORA
        for case in sorted((GOLDENS / corpus).iterdir())
        if (case / "expected-error.txt").exists()
    ]


def _args(case: Path) -> list[str]:
    args = case / "oracle-args"
    return args.read_text(encoding="utf-8").split() if args.exists() else []


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_refusal_is_the_operators_text(
    case: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()  # the config search stops here
    source = case / "input-dgd.yaml"
    shutil.copy(source if source.exists() else case / "dgd.yaml", work / "dgd.yaml")
    argv = ["render", "dgd.yaml"]
    if not _names_namespace(work / "dgd.yaml"):  # as the oracle ran it
        argv += ["-n", _NAMESPACE.get(case.parent.name, "dynamo")]
    args = _args(case)
    if "--checkpoint" in args:
        snapshot = args[args.index("--checkpoint") + 1]
        shutil.copy(case / snapshot, work / snapshot)
        argv += ["--checkpoint", snapshot]
    monkeypatch.chdir(work)
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    expected = (case / "expected-error.txt").read_text(encoding="utf-8").strip()
    err = captured.err
    if any(rule in err for rule in _API_SERVER_RULES):
        assert expected.startswith("admission webhook denied the request: "), err
        return
    if "pass its snapshot with --checkpoint" in err or "the operator expects" in err:
        assert expected.startswith("failed to reconcile checkpoints: failed to "), err
        component = re.search(r"for component (\S+?):", expected)
        assert component is not None
        assert f"component {component.group(1)!r}" in err
        return
    refusal = re.fullmatch(r"dynamo-render: error: [^:]+:\d+:\d+: (.*)\n", err, re.S)
    assert refusal is not None, err
    got = refusal.group(1)
    if _INTERPOD_GMS_SNAPSHOT in expected and _INTERPOD_GMS_SNAPSHOT not in got:
        # the operator's aggregate without that one error, in its order
        head = got.partition(" is invalid: ")[0]
        rest = [e for e in _field_errors(expected) if _INTERPOD_GMS_SNAPSHOT not in e]
        assert _field_errors(got) == rest
        assert expected.startswith(head + " is invalid: "), got
        return
    assert got == expected


def _field_errors(message: str) -> list[str]:
    """The field errors of an aggregated webhook refusal (`[a, b]` or a single one)."""
    errors = message.partition(" is invalid: ")[2]
    if errors.startswith("[") and errors.endswith("]"):
        return re.split(r", (?=spec\.|metadata\.)", errors[1:-1])
    return [errors]


def _names_namespace(path: Path) -> bool:
    from oracle_corpus import load_yaml

    return bool((load_yaml(path).get("metadata") or {}).get("namespace"))


#: The tool's words for a rule of the API server's (the CRD schema), see the docstring.
_API_SERVER_RULES = (
    "required field is missing (schema dgd-",
    "its CRD does not declare it, so the API server would refuse it",
)
#: Checkpointing with inter-pod GMS: admitted on purpose (operator/admission/validation.py).
_INTERPOD_GMS_SNAPSHOT = "Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported"
