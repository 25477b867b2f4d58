"""`did you mean` for a misspelt DGD field, through `render`: a field one typo away from a
field declared beside it, a field written as the other API version spells it (the renames
of the operator's conversion webhook), and none when no field is a clear match.

The DGDs are the bundled examples (examples/llama-disagg-v1*), each changed at one key;
the field trees are the pinned operator's CRD (renderer/data/dgd-fields.json).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main

EXAMPLES = REPO / "examples"
TEXTS = {
    "v1beta1": (EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml").read_text(),
    "v1alpha1": (EXAMPLES / "llama-disagg-v1alpha1" / "dgd.yaml").read_text(),
}
BETA, ALPHA = "v1beta1", "v1alpha1"
STRICT = "its CRD does not declare it, so the API server would refuse it"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLES / "snapshots", "snapshots")
    return tmp_path


def _error(version: str, old: str, new: str, capsys: pytest.CaptureFixture[str]) -> str:
    text = TEXTS[version]
    assert text.count(old) >= 1, old
    Path("dgd.yaml").write_text(text.replace(old, new, 1))
    capsys.readouterr()
    code = main(["--no-config", "render", "dgd.yaml", "--checkpoint", "snapshots"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert STRICT in captured.err
    assert len(captured.err.splitlines()) == 1
    return captured.err


@pytest.mark.parametrize(
    ("text", "old", "new", "hint"),
    [
        (
            BETA,
            "      type: decode\n",
            "      componentType: decode\n",
            "(did you mean spec.components[2].type? 'componentType' is the v1alpha1 spelling,"
            " and this DGD is nvidia.com/v1beta1)",
        ),
        (
            BETA,
            "  components:\n",
            "  services:\n",
            "(did you mean spec.components? 'services' is the v1alpha1 spelling, and this DGD is"
            " nvidia.com/v1beta1)",
        ),
        (
            ALPHA,
            "      componentType: decode\n",
            "      type: decode\n",
            "(did you mean spec.services.VllmDecodeWorker.componentType? 'type' is the v1beta1"
            " spelling, and this DGD is nvidia.com/v1alpha1)",
        ),
        (
            ALPHA,
            "  envs:\n",
            "  env:\n",
            "(did you mean spec.envs? 'env' is the v1beta1 spelling",
        ),
        (
            ALPHA,
            "      checkpoint:\n        enabled: true\n",
            "      experimental:\n        checkpoint:\n          enabled: true\n",
            "('experimental' is v1beta1's; in nvidia.com/v1alpha1 its fields are checkpoint,"
            " gpuMemoryService, failover, on the service itself)",
        ),
        (
            BETA,
            "      replicas: 2\n",
            "      replica: 2\n",
            "(did you mean spec.components[2].replicas?)",
        ),
        (
            BETA,
            "      replicas: 2\n",
            "      Replicas: 2\n",
            "(did you mean spec.components[2].replicas?)",
        ),
    ],
)
def test_a_hint_names_the_field_meant(  # noqa: PLR0917 - one parameter per column
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, old: str, new: str, hint: str
) -> None:
    assert hint in _error(text, old, new, capsys)


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        (BETA, "      replicas: 2\n", "      zzz: 2\n"),
        (BETA, "      replicas: 2\n", "      rep: 2\n"),  # too far from any field
        (ALPHA, "      replicas: 2\n", "      replicaCount: 2\n"),
    ],
)
def test_no_hint_without_a_clear_match(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, old: str, new: str
) -> None:
    assert "did you mean" not in _error(text, old, new, capsys)


def test_the_nested_hint_still_wins_for_checkpoint_on_a_v1beta1_component(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error(
        BETA,
        "      experimental:\n        checkpoint:\n",
        "      checkpoint:\n        enabledx: 1\n      experimental:\n        checkpoint:\n",
        capsys,
    )
    assert "did you mean spec.components[2].experimental.checkpoint?" in err
