"""`render -o DIR --kustomization`: DIR/kustomization.yaml lists exactly the files render
owns there, `kubectl kustomize DIR` builds them, and a worker-spec change (a new worker
hash, so new file names) keeps it building; `render --check` reports a stale one.

The reference is the real `kubectl kustomize` (kustomize v5 built into kubectl): the
objects it builds from the folder must be the objects of the rendered files. Skipped when
no kubectl is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import REPO

from renderer.cli import main

KUBECTL = "/usr/bin/kubectl" if Path("/usr/bin/kubectl").exists() else shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
AGG = (REPO / "examples" / "upstream" / "vllm-agg.yaml").read_text().replace(":my-tag", ":1.3.0")
RENDER = ["--no-config", "render", "agg.yaml", "-n", "dynamo-prod", "--target", "dcd"]
OUT = ["-o", "out", "--kustomization"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def _kustomized(folder: str) -> list[dict[str, Any]]:
    assert KUBECTL is not None
    built = subprocess.run(
        [KUBECTL, "kustomize", folder], capture_output=True, text=True, check=True, timeout=120
    )
    return sorted(yaml.safe_load_all(built.stdout), key=_key)


def _rendered(folder: str) -> list[dict[str, Any]]:
    objects = [
        yaml.safe_load(path.read_text())
        for path in sorted(Path(folder).glob("*.yaml"))
        if path.name != "kustomization.yaml"
    ]
    return sorted(objects, key=_key)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("agg.yaml").write_text(AGG)
    return tmp_path


def _resources() -> list[str]:
    document = yaml.safe_load(Path("out/kustomization.yaml").read_text())
    assert document["apiVersion"] == "kustomize.config.k8s.io/v1beta1"
    assert document["kind"] == "Kustomization"
    resources: list[str] = document["resources"]
    return resources


@needs_kubectl
def test_kubectl_kustomize_builds_exactly_the_rendered_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run([*RENDER, *OUT], capsys)
    assert code == 0
    assert out.endswith("wrote out/kustomization.yaml\n")
    assert Path("out/kustomization.yaml").read_text().startswith("# Source: agg.yaml\n")
    owned = sorted(p.name for p in Path("out").glob("dynamocomponentdeployment-*.yaml"))
    assert len(owned) == 2
    assert _resources() == owned
    assert _kustomized("out") == _rendered("out")
    # up to date: render and --check leave it alone
    assert _run([*RENDER, *OUT], capsys)[:2] == (0, "")
    assert _run([*RENDER, *OUT, "--check"], capsys)[:2] == (0, "")


@needs_kubectl
def test_a_worker_spec_change_renames_the_files_and_the_kustomization_follows(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([*RENDER, *OUT], capsys)[0] == 0
    before = _resources()
    Path("agg.yaml").write_text(AGG.replace("- Qwen/Qwen3-0.6B", "- Qwen/Qwen3-1.7B"))
    code, out, _ = _run([*RENDER, *OUT, "--check"], capsys)
    assert code == 1
    assert "would write out/kustomization.yaml\n" in out
    old_worker = next(name for name in before if "worker" in name)
    assert f"would remove out/{old_worker}\n" in out
    assert _run([*RENDER, *OUT], capsys)[0] == 0
    after = _resources()
    assert after != before
    assert after == sorted(p.name for p in Path("out").glob("dynamocomponentdeployment-*.yaml"))
    assert _kustomized("out") == _rendered("out")


def test_a_hand_edited_kustomization_is_stale_for_check(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([*RENDER, *OUT], capsys)[0] == 0
    path = Path("out/kustomization.yaml")
    path.write_text(path.read_text() + "  - extra.yaml\n")
    code, out, _ = _run([*RENDER, *OUT, "--check", "--diff"], capsys)
    assert code == 1
    assert out.startswith("would write out/kustomization.yaml\n")
    assert "\n-  - extra.yaml\n" in out


def test_rendering_without_the_option_removes_the_owned_kustomization(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([*RENDER, *OUT], capsys)[0] == 0
    code, out, _ = _run([*RENDER, "-o", "out", "--check"], capsys)
    assert (code, out) == (1, "would remove out/kustomization.yaml\n")
    assert _run([*RENDER, "-o", "out"], capsys)[1] == "removed out/kustomization.yaml\n"
    assert not Path("out/kustomization.yaml").exists()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("kustomization.yaml", "resources: [mine.yaml]\n"),
        ("kustomization.yml", "resources: []\n"),
        ("Kustomization", "resources: []\n"),
    ],
)
def test_a_kustomization_render_did_not_write_is_never_touched(
    repo: Path, capsys: pytest.CaptureFixture[str], name: str, content: str
) -> None:
    Path("out").mkdir()
    Path("out", name).write_text(content)
    code, out, err = _run([*RENDER, *OUT], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"dynamo-render: error: out/{name}: a kustomization this render did")
    assert Path("out", name).read_text() == content
    assert sorted(p.name for p in Path("out").iterdir()) == [name]  # nothing written


def test_kustomization_needs_an_output_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*RENDER, "--kustomization"], capsys)
    assert (code, out) == (2, "")
    assert "--kustomization needs -o DIR" in err


CONFIG = (
    "apiVersion: dynamo-render/v1\nkind: Config\nrender:\n"
    "  - dgd: agg.yaml\n    namespace: dynamo-prod\n    target: dcd\n    output: out\n"
)


@needs_kubectl
def test_a_config_entry_keeps_its_kustomization(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(".git").mkdir()
    Path(".dynamo-render.yaml").write_text(CONFIG + "    kustomization: true\n")
    assert _run(["render"], capsys)[0] == 0
    assert _kustomized("out") == _rendered("out")
    assert _run(["render", "--check"], capsys)[:2] == (0, "")
    Path("out/kustomization.yaml").unlink()
    code, out, err = _run(["render", "--check"], capsys)
    assert (code, out) == (1, "would write out/kustomization.yaml\n")
    assert "rendered files are out of date" in err


def test_a_config_kustomization_must_be_a_boolean(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(".git").mkdir()
    Path(".dynamo-render.yaml").write_text(CONFIG + '    kustomization: "yes"\n')
    code, _, err = _run(["render"], capsys)
    assert code == 2
    assert err == (
        "dynamo-render: error: .dynamo-render.yaml:8:20: render[0].kustomization must be"
        " true or false\n"
    )
