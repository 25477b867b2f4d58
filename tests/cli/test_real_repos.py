"""Repositories as people have them, through the real CLI: upstream's DGD files (no
namespace; `-n` as with `kubectl apply -n`), a file of three DGDs beside other kinds,
folders of DGDs, config entries with `namespace:` and a folder, and `lint` over a tree
with a Helm chart and kustomize files beside the manifests.

Expected names follow the operator's rule (a DCD is `<dgd name>-<lower-cased component>`,
a worker's with `-<worker hash>` appended when known; DCDs sorted by name, as the operator
lists them) and are worked out here from the input files, read with PyYAML, never from the
tool's output.

As shipped, most of these files name the image `...:my-tag` (or `${DYNAMO_IMAGE}`): the
operator's validating webhook refuses a main container image without a semantic-version
tag, so they are exit 2 with the operator's reason (the oracle's, recorded in
tests/operator/goldens/upstream-dgds/) at the field. A user replaces the placeholder with the
release tag they deploy; the tests that render do the same, exactly as those goldens pin
their `.tagged` variants (checked against the golden inputs).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import FIXTURES, OPERATOR_GOLDENS
from render_support import EXAMPLES

from renderer.cli import main

UPSTREAM = FIXTURES / "upstream"
UPSTREAM_FILES = sorted(UPSTREAM.glob("*.yaml"))
THREE = UPSTREAM / "global_planner-global-planner-gpu-budget.yaml"
WORKER_TYPES = {"worker", "prefill", "decode"}
DCD = "DynamoComponentDeployment"
GOLDENS = OPERATOR_GOLDENS / "upstream-dgds"

# The placeholders of upstream's images and what a user deploys instead, as
# tests/operator/goldens/upstream-dgds/README.md pins them for the `.tagged` cases.
RELEASE_TAG = "1.3.0"
PLACEHOLDERS = (
    (
        re.compile(r"(image:\s*)\$\{[A-Za-z_]+\}"),
        rf"\g<1>nvcr.io/nvidia/ai-dynamo/vllm-runtime:{RELEASE_TAG}",
    ),
    (re.compile(r"(image:\s*)<your-registry>/"), r"\g<1>registry.example.com/"),
    (re.compile(r"(image:\s*\S+):(my-tag|<IMAGE_TAG>|latest)\b"), rf"\g<1>:{RELEASE_TAG}"),
)


def _as_deployed(text: str) -> str:
    """`text` with upstream's placeholder image tags replaced by a release tag."""
    for pattern, replacement in PLACEHOLDERS:
        text = pattern.sub(replacement, text)
    return text


def _deployed(path: Path, into: Path) -> Path:
    """A copy of upstream file `path` at `into`, with its images tagged as deployed."""
    into.parent.mkdir(parents=True, exist_ok=True)
    into.write_text(_as_deployed(path.read_text()))
    return into


def _golden_cases(path: Path) -> list[str]:
    """The golden case of every document of upstream file `path` that is a DGD, in order
    (from the fixtures' README, which names the upstream path, and the goldens' index)."""
    table = (UPSTREAM / "README.md").read_text()
    found = re.search(rf"^\| `{re.escape(path.name)}` \| `([^`]+)`", table, re.M)
    assert found, path.name
    upstream_path = found.group(1)
    cases = []
    for line in (GOLDENS / "sources.txt").read_text().splitlines():
        case, _, source = line.partition(" ")
        if source.endswith(")"):
            continue  # a variant (`.tagged`, `.checkpoint`) of a case listed too
        if source.rpartition("#")[0] == upstream_path:
            cases.append((int(source.rpartition("#")[2]), case))
    return [case for _, case in sorted(cases)]


def _refusal(path: Path) -> str | None:
    """The oracle's refusal of the first DGD of `path` as shipped, or None if it renders."""
    first = GOLDENS / _golden_cases(path)[0] / "expected-error.txt"
    return first.read_text().strip() if first.exists() else None


def _field_mark(text: str, document: int, field: str) -> tuple[int, int]:
    """1-based line and column of `field` (`spec.components[0].x`) in the `document`-th
    YAML document of `text`: its key, else its nearest present ancestor (a list item: the
    item itself), as kubectl and the API server name the field of a refusal."""
    node = list(yaml.compose_all(text))[document]
    mark = node.start_mark
    for part in re.findall(r"[^.\[\]]+", field):
        if isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            mark = node.start_mark
        elif isinstance(node, yaml.MappingNode):
            pairs = [(k, v) for k, v in node.value if k.value == part]
            if not pairs:
                break
            mark, node = pairs[0][0].start_mark, pairs[0][1]
        else:
            break
    return mark.line + 1, mark.column + 1


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--no-config", *args]) if "--config" not in args[:2] else main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _components(path: Path) -> list[tuple[str, str, str]]:
    """(dgd name, component name, component type) of every DGD in the file, in order."""
    found = []
    for doc in yaml.safe_load_all(path.read_text()):
        if not doc or doc.get("kind") != "DynamoGraphDeployment":
            continue
        name, spec = doc["metadata"]["name"], doc["spec"]
        if doc["apiVersion"].endswith("v1beta1"):
            found += [(name, c["name"], c.get("type", "")) for c in spec["components"]]
        else:
            found += [(name, k, v.get("componentType", "")) for k, v in spec["services"].items()]
    return found


def _check_dcd(obj: dict[str, Any], expected: tuple[str, str, str], namespace: str) -> None:
    dgd, component, kind = expected
    assert obj["kind"] == DCD
    meta = obj["metadata"]
    assert meta["namespace"] == namespace
    base = f"{dgd}-{component.lower()}"
    if kind in WORKER_TYPES:
        assert re.fullmatch(re.escape(base) + r"(-[0-9a-f]+)?", meta["name"]), meta["name"]
    else:
        assert meta["name"] == base
    assert meta["labels"]["nvidia.com/dynamo-component"] == component
    assert meta["labels"]["nvidia.com/dynamo-graph-deployment-name"] == dgd


def _label(obj: dict[str, Any], key: str) -> str:
    return str(obj["metadata"]["labels"][f"nvidia.com/{key}"])


def _check_dcds(
    objects: list[dict[str, Any]], expected: list[tuple[str, str, str]], namespace: str
) -> None:
    """`objects` are the DCDs of `expected`'s components: DGD by DGD in input order, each
    DGD's sorted by name (the operator's order), its workers all with one worker hash."""
    dgds = list(dict.fromkeys(d for d, _, _ in expected))
    count = {d: sum(1 for e in expected if e[0] == d) for d in dgds}
    assert [_label(o, "dynamo-graph-deployment-name") for o in objects] == [
        d for d in dgds for _ in range(count[d])
    ]
    for dgd in dgds:
        mine = [o for o in objects if _label(o, "dynamo-graph-deployment-name") == dgd]
        names = [o["metadata"]["name"] for o in mine]
        assert names == sorted(names)
        wanted = {c: (d, c, kind) for d, c, kind in expected if d == dgd}
        assert sorted(_label(o, "dynamo-component") for o in mine) == sorted(wanted)
        for obj in mine:
            _check_dcd(obj, wanted[_label(obj, "dynamo-component")], namespace)
        hashes = {
            o["metadata"]["name"].rsplit("-", 1)[1]
            for o in mine
            if wanted[_label(o, "dynamo-component")][2] in WORKER_TYPES
        }
        assert len(hashes) <= 1, hashes


def _stream(out: str) -> tuple[list[str], list[dict[str, Any]]]:
    sources = re.findall(r"(?m)^# Source: (.*)$", out)
    return sources, [d for d in yaml.safe_load_all(out) if d]


def _spelled(path: Path) -> str:
    """How `# Source:` names an absolute DGD_FILE: relative when under the working directory."""
    here = Path.cwd()
    return str(path.relative_to(here)) if path.is_relative_to(here) else str(path)


@pytest.mark.parametrize("path", UPSTREAM_FILES, ids=[p.stem for p in UPSTREAM_FILES])
def test_upstream_file_as_shipped_with_namespace(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -n the namespace is no longer what is missing: the operator's webhook decides.
    A placeholder image tag is its refusal, at the field it names; a release tag renders."""
    text = path.read_text()
    assert text.startswith("# SPDX-FileCopyrightText:")  # copied as upstream has it
    code, out, err = _run(capsys, "render", str(path), "-n", "team-a", "--target", "dcd")
    refusal = _refusal(path)
    if refusal is None:
        assert code == 0, err
        sources, objects = _stream(out)
        # (an absolute path inside the working directory is written relative to it)
        assert sources == [_spelled(path)] * len(objects)
        _check_dcds(objects, _components(path), "team-a")
        return
    assert (code, out) == (2, ""), err
    assert "runtimeVersionOverride: Required value" in refusal  # the placeholder tag's reason
    kinds = [d.get("kind") if d else None for d in yaml.safe_load_all(text)]
    document = kinds.index("DynamoGraphDeployment")
    field = re.search(r"(spec\.[^:]+): ", refusal)
    assert field, refusal
    line, column = _field_mark(text, document, field.group(1))
    assert err == f"dynamo-render: error: {path}:{line}:{column}: {refusal}\n"


@pytest.mark.parametrize("path", UPSTREAM_FILES, ids=[p.stem for p in UPSTREAM_FILES])
def test_upstream_file_with_a_release_tag_renders_with_namespace(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deployed = _deployed(path, tmp_path / path.name)
    # the same inputs as the oracle's goldens: each DGD is its `.tagged` case (or, with a
    # release tag already, its own)
    documents = [d for d in yaml.safe_load_all(deployed.read_text()) if d]
    dgds = [d for d in documents if d["kind"] == "DynamoGraphDeployment"]
    for doc, case in zip(dgds, _golden_cases(path), strict=True):
        golden = GOLDENS / f"{case}.tagged"
        golden = golden if golden.exists() else GOLDENS / case
        assert doc == yaml.safe_load(golden.joinpath("dgd.yaml").read_text()), case
        assert golden.joinpath("worker-hash.txt").exists(), case  # the oracle renders it
    code, out, err = _run(capsys, "render", str(deployed), "-n", "team-a", "--target", "dcd")
    assert code == 0, err
    sources, objects = _stream(out)
    assert sources == [_spelled(deployed)] * len(objects)
    _check_dcds(objects, _components(path), "team-a")


@pytest.mark.parametrize("path", UPSTREAM_FILES[:3], ids=[p.stem for p in UPSTREAM_FILES[:3]])
def test_upstream_file_without_namespace_is_refused_at_its_metadata(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "render", str(path))
    assert (code, out) == (2, "")
    lines = path.read_text().splitlines()
    metadata_line = lines.index("metadata:") + 1
    found = re.match(rf"dynamo-render: error: {re.escape(str(path))}:(\d+):(\d+): ", err)
    assert found, err
    assert int(found.group(1)) in (metadata_line, metadata_line + 1)
    assert "-n/--namespace" in err


def test_a_dgd_in_another_namespace_is_refused_at_its_namespace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _as_deployed((UPSTREAM / "backends-vllm-agg.yaml").read_text())
    text = text.replace("  name: vllm-agg\n", "  name: vllm-agg\n  namespace: staging\n", 1)
    (tmp_path / "dgd.yaml").write_text(text)
    line = text.splitlines().index("  namespace: staging") + 1
    code, out, err = _run(capsys, "render", str(tmp_path / "dgd.yaml"), "-n", "team-a")
    assert (code, out) == (2, "")
    assert err.startswith(f"dynamo-render: error: {tmp_path / 'dgd.yaml'}:{line}:14: ")
    assert "'staging'" in err and "'team-a'" in err
    # the namespace it names is accepted
    code, out, err = _run(capsys, "render", str(tmp_path / "dgd.yaml"), "-n", "staging")
    assert code == 0, err
    assert {d["metadata"]["namespace"] for d in _stream(out)[1]} == {"staging"}


def test_an_invalid_namespace_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "render", str(THREE), "-n", "Team_A")
    assert (code, out) == (2, "")
    assert "'Team_A' is not a valid Kubernetes namespace" in err


def test_three_dgds_in_one_file_beside_other_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    three = _deployed(THREE, tmp_path / THREE.name)
    kinds = [d["kind"] for d in yaml.safe_load_all(three.read_text()) if d]
    assert kinds.count("DynamoGraphDeployment") == 3 and len(kinds) == 5
    expected = _components(three)
    assert [d for d, _, _ in expected][:: len(expected) - 1][0] == "gp-ctrl"
    args = ("render", str(three), "-n", "team-a", "--target", "dcd")
    code, out, err = _run(capsys, *args)
    assert code == 0, err
    assert "ClusterRoleBinding" not in err and "PersistentVolumeClaim" not in err
    _, objects = _stream(out)
    _check_dcds(objects, expected, "team-a")
    # -o DIR: one file per object, as for one DGD
    code, out, err = _run(capsys, *args, "-o", str(tmp_path / "o"))
    assert code == 0, err
    written = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert written == sorted(
        f"dynamocomponentdeployment-{o['metadata']['name']}.yaml" for o in objects
    )
    assert out.count("wrote ") == len(expected)
    # without --target, what the operator creates: Grove (none asks for it off), one
    # PodCliqueSet per DGD, named after it
    code, out, err = _run(capsys, "render", str(three), "-n", "team-a")
    assert code == 0, err
    pcs = _stream(out)[1]
    assert [(o["kind"], o["metadata"]["name"]) for o in pcs] == [
        ("PodCliqueSet", d) for d in dict.fromkeys(d for d, _, _ in expected)
    ]
    assert {o["metadata"]["namespace"] for o in pcs} == {"team-a"}


def _deploy_folder(root: Path) -> list[Path]:
    """deploy/ with two upstream files (one in a sub-folder) and a Helm chart beside them."""
    deploy = root / "deploy"
    (deploy / "vllm").mkdir(parents=True)
    _deployed(UPSTREAM / "backends-sglang-agg.yaml", deploy / "b-sglang.yaml")
    _deployed(THREE, deploy / "vllm" / "planner.yaml")
    _helm_chart(deploy / "chart")
    return [deploy / "b-sglang.yaml", deploy / "vllm" / "planner.yaml"]  # sorted walk order


def _helm_chart(chart: Path) -> None:
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: serving\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicaCount: 2\nimage:\n  tag: 1.0.0\n")
    (chart / "templates" / "dgd.yaml").write_text(
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n"
        "  name: {{ .Release.Name }}\nspec:\n  components:\n"
        "{{- toYaml .Values.components | nindent 4 }}\n"
    )


def test_a_folder_of_dgds_renders_every_one_in_file_then_document_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _deploy_folder(tmp_path)
    args = ("render", str(tmp_path / "deploy"), "-n", "team-a", "--target", "dcd")
    code, out, err = _run(capsys, *args)
    assert code == 0, err
    sources, objects = _stream(out)
    expected = [(f, c) for f in files for c in _components(f)]
    assert sources == [_spelled(f) for f, _ in expected]
    _check_dcds(objects, [c for _, c in expected], "team-a")


def test_config_entries_take_a_namespace_and_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _deploy_folder(tmp_path)
    _deployed(UPSTREAM / "backends-vllm-agg.yaml", tmp_path / "agg.yaml")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".dynamo-render.yaml").write_text(
        "apiVersion: dynamo-render/v1\nkind: Config\nrender:\n"
        "  - dgd: deploy\n    namespace: team-a\n    target: dcd\n    output: rendered/deploy\n"
        "  - dgd: agg.yaml\n    namespace: team-b\n    output: rendered/agg\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = main(["render"]), *capsys.readouterr()
    assert code == 0, err
    rendered = sorted((tmp_path / "rendered" / "deploy").iterdir())
    expected = [(f, c) for f in files for c in _components(f)]
    assert len(rendered) == len(expected)
    heads = {p.read_text().splitlines()[0] for p in rendered}
    assert heads == {"# Source: deploy/b-sglang.yaml", "# Source: deploy/vllm/planner.yaml"}
    for path in rendered:
        assert yaml.safe_load(path.read_text())["metadata"]["namespace"] == "team-a"
    for path in (tmp_path / "rendered" / "agg").iterdir():
        assert yaml.safe_load(path.read_text())["metadata"]["namespace"] == "team-b"
    code, out, err = main(["render", "--check"]), *capsys.readouterr()
    assert (code, out) == (0, ""), err


def _config_render(
    root: Path, entry: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """`render` in a repository at `root` whose config has one render entry for agg.yaml
    (`entry`: its lines after `dgd:`); the exit code and stderr."""
    (root / ".git").mkdir()
    (root / ".dynamo-render.yaml").write_text(
        "apiVersion: dynamo-render/v1\nkind: Config\nrender:\n  - dgd: agg.yaml\n" + entry
    )
    monkeypatch.chdir(root)
    code = main(["render"])
    return code, capsys.readouterr().err


def test_config_namespace_is_checked_at_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = "    namespace: Team_A\n    output: rendered\n"
    code, err = _config_render(tmp_path, entry, monkeypatch, capsys)
    assert code == 2
    assert err.startswith("dynamo-render: error: .dynamo-render.yaml:5:16: ")


def test_config_namespace_against_a_dgd_in_another_names_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (UPSTREAM / "backends-vllm-agg.yaml").read_text()
    (tmp_path / "agg.yaml").write_text(
        text.replace("  name: vllm-agg\n", "  name: vllm-agg\n  namespace: staging\n", 1)
    )
    entry = "    namespace: team-a\n    output: rendered\n"
    code, err = _config_render(tmp_path, entry, monkeypatch, capsys)
    assert code == 2
    assert err.startswith("dynamo-render: error: agg.yaml:8:14: ")
    assert "namespace: of the entry at .dynamo-render.yaml:4:" in err
    assert not (tmp_path / "rendered").exists()


def test_a_config_entry_dgd_without_a_namespace_is_told_to_give_the_entry_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `render -n` is refused in config mode: the advice is the entry's own namespace:
    (tmp_path / "agg.yaml").write_text((UPSTREAM / "backends-vllm-agg.yaml").read_text())
    code, err = _config_render(tmp_path, "    output: rendered\n", monkeypatch, capsys)
    assert code == 2
    assert "has no metadata.namespace" in err
    assert "give the config entry a namespace (namespace: of the entry at" in err
    assert "-n/--namespace" not in err
    assert not (tmp_path / "rendered").exists()


def test_lint_dgd_takes_the_namespace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dgd = str(_deployed(UPSTREAM / "backends-vllm-agg.yaml", tmp_path / "agg.yaml"))
    code, _, err = _run(capsys, "render", dgd, "-n", "team-a", "-o", str(tmp_path / "r"))
    assert code == 0, err
    code, out, err = _run(capsys, "lint", str(tmp_path / "r"), "--dgd", dgd, "-n", "team-a")
    assert (code, out) == (0, ""), err
    # another namespace: the committed objects are not what that render produces
    code, out, err = _run(capsys, "lint", str(tmp_path / "r"), "--dgd", dgd, "-n", "team-b")
    assert code == 1
    assert "[render-drift]" in out
    code, out, err = _run(capsys, "lint", str(tmp_path / "r"), "-n", "team-a")
    assert (code, out) == (2, "")
    assert "give --dgd too" in err


def test_lint_over_a_repository_with_a_helm_chart_and_kustomize_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "rendered" / "llama-disagg-v1beta1", repo / "rendered")
    shutil.copytree(EXAMPLES / "snapshots", repo / "snapshots")
    _helm_chart(repo / "charts" / "serving")
    (repo / "charts" / "serving" / "templates" / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
    )
    kustomize = repo / "overlays" / "prod"
    kustomize.mkdir(parents=True)
    (kustomize / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources:\n  - ../../rendered\npatches:\n  - path: replicas.yaml\n"
    )
    (kustomize / "replicas.yaml").write_text(  # a strategic-merge patch: no kind
        "metadata:\n  name: llama-disagg-frontend\nspec:\n  replicas: 2\n"
    )
    (kustomize / "ops.yaml").write_text("- op: replace\n  path: /spec/replicas\n  value: 3\n")
    not_objects = len(
        [
            "charts/serving/Chart.yaml",
            "charts/serving/values.yaml",
            "charts/serving/templates/dgd.yaml",
            # (templates/configmap.yaml is read now, as kubectl reads a chart's templates,
            # and its one ConfigMap document is skipped unparsed by the pre-scan)
            "overlays/prod/replicas.yaml",
            "overlays/prod/ops.yaml",
        ]
    )
    code, out, err = _run(capsys, "lint", str(repo), "--checkpoint", str(repo / "snapshots"))
    assert (code, out) == (0, ""), err
    assert err == (
        # rendered/: 3 DCDs and a PCS in 2 files; snapshots/: 1 DynamoCheckpoint
        "dynamo-render lint: 0 errors, 0 warnings in 3 files (5 objects);"
        f" skipped {not_objects} files (not Kubernetes objects)\n"
    )
    # a file that looks like a Kubernetes object and does not read is still an error
    (repo / "rendered" / "broken.yaml").write_text(
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata: {name: [\n"
    )
    code, out, err = _run(capsys, "lint", str(repo))
    assert (code, out) == (2, "")
    assert err.startswith(f"dynamo-render: error: {repo / 'rendered' / 'broken.yaml'}:4:1: ")


def test_snapshots_are_shared_by_the_dgds_of_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A snapshot one DGD restores from is not 'unused' because another DGD of the folder
    does not use it; one that no DGD uses is reported once."""
    from render_support import (
        BASELINE,
        FRONTEND_BETA,
        MINIMAL,
        decode_beta,
        expected_binding,
        v1beta1_dgd,
    )

    deploy = tmp_path / "deploy"
    deploy.mkdir()
    # its decode worker restores from reference vector 02 by checkpointRef (DCDs: Grove off)
    (deploy / "a-llama.yaml").write_text(
        v1beta1_dgd(
            FRONTEND_BETA + decode_beta(), annotations='    nvidia.com/enable-grove: "false"\n'
        )
    )
    _deployed(UPSTREAM / "backends-vllm-agg.yaml", deploy / "b-agg.yaml")
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    shutil.copy(BASELINE, snaps / "decode.yaml")
    args = ["render", str(deploy), "-n", "dynamo-prod", "--checkpoint", str(snaps)]
    code, out, err = _run(capsys, *args)
    assert code == 0, err
    assert "matches no checkpoint-enabled component" not in err
    assert out.count(expected_binding("02-worker-baseline")) == 2  # the decode DCD's two copies
    shutil.copy(MINIMAL, snaps / "unused.yaml")  # checkpoint-a1b2c3d4: no component's
    code, out, err = _run(capsys, *args)
    assert code == 0, err
    unused = [line for line in err.splitlines() if "matches no checkpoint-enabled" in line]
    assert len(unused) == 1
    assert unused[0].endswith(
        "checkpoint dynamo-prod/checkpoint-a1b2c3d4 matches no checkpoint-enabled component"
        " of the DGDs rendered"
    )
