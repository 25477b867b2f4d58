"""`render` of a folder of DGDs (DGD_FILE a folder, or a config entry whose `dgd:` is one):
a DGD file it cannot read is exit 2 at its place, never dropped while its committed output
goes stale; and the folder's output files (`# Source: <folder>/<file>`) are the render's
own, so those of a deleted DGD or component are removed, and listed by `--check`.

The DGDs are upstream's `vllm-agg` example with its image tagged as deployed (its two
components, `Frontend` and `VllmDecodeWorker`, as DCDs with `--target dcd`); expected file
names follow the operator's rule, `<dgd name>-<lower-cased component>` for the frontend.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from render_support import EXAMPLES

from renderer.cli import main

AGG = (EXAMPLES / "upstream" / "vllm-agg.yaml").read_text().replace(":my-tag", ":1.3.0")
CONFIG = (
    "apiVersion: dynamo-render/v1\nkind: Config\nrender:\n"
    "  - dgd: deploy\n    namespace: team-a\n    target: dcd\n    output: rendered\n"
)


def _named(name: str) -> str:
    return AGG.replace("  name: vllm-agg\n", f"  name: {name}\n", 1)


def _without_worker(text: str) -> str:
    return text[: text.index("  - name: VllmDecodeWorker")]


def _repo(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with deploy/a.yaml (DGD agg-a) and deploy/sub/b.yaml (DGD agg-b)."""
    (root / ".git").mkdir()
    (root / ".dynamo-render.yaml").write_text(CONFIG)
    (root / "deploy" / "sub").mkdir(parents=True)
    (root / "deploy" / "a.yaml").write_text(_named("agg-a"))
    (root / "deploy" / "sub" / "b.yaml").write_text(_named("agg-b"))
    monkeypatch.chdir(root)
    return root


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# A DGD file that does not parse (a flow sequence never closed), with `{{` in a comment:
# nothing in it is a template, and kubectl refuses it too; it is no Helm chart.
BROKEN_TAIL = "# {{ .Values.note }} is documented in the chart\n  extra: [unclosed\n"


@pytest.mark.parametrize("mode", ["argument", "config", "config-check"])
def test_a_dgd_file_that_does_not_read_is_exit_2_at_its_place(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path, monkeypatch)
    assert _run(capsys, "render")[0] == 0
    before = {p: p.read_bytes() for p in (root / "rendered").iterdir()}
    # agg-b gets a third replica, and a line that breaks the file
    broken = _named("agg-b").replace("replicas: 1\n", "replicas: 3\n", 1) + BROKEN_TAIL
    (root / "deploy" / "sub" / "b.yaml").write_text(broken)
    args = {
        "argument": ("render", "deploy", "-n", "team-a", "--target", "dcd", "-o", "rendered"),
        "config": ("render",),
        "config-check": ("render", "--check"),
    }[mode]
    if mode == "argument":
        args = ("--no-config", *args)
    code, out, err = _run(capsys, *args)
    assert (code, out) == (2, ""), err
    assert re.match(r"dynamo-render: error: deploy/sub/b\.yaml:\d+:\d+: invalid YAML", err), err
    assert err.count("\n") == 1 and "Traceback" not in err
    # nothing written or removed
    assert {p: p.read_bytes() for p in (root / "rendered").iterdir()} == before


def test_a_helm_chart_beside_the_dgds_is_still_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path, monkeypatch)
    chart = root / "deploy" / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: serving\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicaCount: 2\n")
    (chart / "templates" / "dgd.yaml").write_text(_named("{{ .Release.Name }}") + BROKEN_TAIL)
    code, _, err = _run(capsys, "render")
    assert code == 0, err
    assert len(_files(root / "rendered")) == 4


@pytest.mark.parametrize("mode", ["config", "argument"])
def test_the_outputs_of_a_deleted_dgd_or_component_are_removed(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path, monkeypatch)
    # typed as `./deploy/`: the `# Source:` lines read `deploy/...` all the same
    render = (
        ("render",)
        if mode == "config"
        else ("--no-config", "render", "./deploy/", "-n", "team-a", "--target", "dcd")
    )
    out_dir = () if mode == "config" else ("-o", "rendered")
    code, _, err = _run(capsys, *render, *out_dir)
    assert code == 0, err
    all_four = [
        "dynamocomponentdeployment-agg-a-frontend.yaml",
        "dynamocomponentdeployment-agg-a-vllmdecodeworker.yaml",
        "dynamocomponentdeployment-agg-b-frontend.yaml",
        "dynamocomponentdeployment-agg-b-vllmdecodeworker.yaml",
    ]
    names = _files(root / "rendered")
    # (the worker's name carries its hash: match by prefix)
    assert [re.sub(r"-[0-9a-f]{8}\.yaml$", ".yaml", n) for n in names] == all_four
    worker_a = next(n for n in names if n.startswith("dynamocomponentdeployment-agg-a-vllm"))
    # a component deleted from a.yaml, and the whole of sub/b.yaml
    (root / "deploy" / "a.yaml").write_text(_without_worker(_named("agg-a")))
    (root / "deploy" / "sub" / "b.yaml").unlink()
    gone = [f"rendered/{worker_a}", *(f"rendered/{n}" for n in names if "-agg-b-" in n)]
    code, out, err = _run(capsys, *render, *out_dir, "--check")
    assert code == 1, err
    # (the frontend's DCD changes with the graph: it is rewritten, not removed)
    assert [line for line in out.splitlines() if not line.startswith("would write ")] == [
        f"would remove {path}" for path in gone
    ]
    code, _, err = _run(capsys, *render, *out_dir)
    assert code == 0, err
    assert _files(root / "rendered") == ["dynamocomponentdeployment-agg-a-frontend.yaml"]
    assert _run(capsys, *render, *out_dir, "--check")[:2] == (0, "")


def test_another_sources_files_in_the_output_folder_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only `deploy` and `deploy/<file>` are the folder's: `deploy-old.yaml` is not."""
    root = _repo(tmp_path, monkeypatch)
    assert _run(capsys, "render")[0] == 0
    other = root / "rendered" / "kept.yaml"
    for header in ("deploy-old.yaml", "deploy", "deployx/a.yaml", "other/deploy/a.yaml"):
        other.write_text(f"# Source: {header}\nkind: ConfigMap\n")
        code, out, err = _run(capsys, "render", "--check")
        if header == "deploy":
            assert (code, out) == (1, "would remove rendered/kept.yaml\n"), err
        else:
            assert (code, out) == (0, ""), (header, err)
