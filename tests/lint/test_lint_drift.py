"""Rule render-drift (`lint --dgd`): committed renders against a fresh render of the examples.

`examples/rendered/*` are committed renders of `examples/*/dgd.yaml` with the example
snapshot, so they are clean; each test changes one thing and states where lint must
point. Data are compared, not text: comments, quoting and key order never count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from paths import OPERATOR_GOLDENS, REPO

from renderer.cli import cli

EXAMPLES = REPO / "examples"
SNAPSHOTS = str(EXAMPLES / "snapshots")
EXAMPLE_NAMES = ["llama-disagg-v1alpha1", "llama-disagg-v1beta1"]
TARGETS = ["dcd", "grove"]
# The oracle's worker hash of the examples (tests/operator/goldens/bound/): the DCD suffix.
_HASH = (OPERATOR_GOLDENS / "bound/example-v1beta1/worker-hash.txt").read_text().strip()
DECODE_DCD = f"llama-disagg-vllmdecodeworker-{_HASH}"


def dgd_of(example: str) -> str:
    return str(EXAMPLES / example / "dgd.yaml")


def rendered(example: str, target: str) -> str:
    return (EXAMPLES / "rendered" / example / f"{target}.yaml").read_text()


def lint(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(
        cli, ["--no-config", "lint", "--format", "json", *args], catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


def drift(committed: Path, dgd: str, *extra: str) -> tuple[int, list[dict[str, object]]]:
    code, found = lint(str(committed), "--checkpoint", SNAPSHOTS, "--dgd", dgd, *extra)
    return code, [f for f in found if f["rule"] == "render-drift"]


def position(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based (line, column) of the `occurrence`-th `needle` in `text`."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def write(tmp_path: Path, text: str, name: str = "committed.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_committed_renders_do_not_drift(example: str, target: str, tmp_path: Path) -> None:
    path = write(tmp_path, rendered(example, target))
    assert lint(str(path), "--checkpoint", SNAPSHOTS, "--dgd", dgd_of(example)) == (0, [])


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_comments_quoting_and_key_order_are_not_drift(example: str, tmp_path: Path) -> None:
    text = rendered(example, "dcd")
    assert text.count("kind: DynamoComponentDeployment\n") == 3
    edited = (
        text.replace("  replicas: 2\n", "  replicas: 2  # scaled by hand? no: rendered\n")
        .replace("  namespace: dynamo-prod\n", '  namespace: "dynamo-prod"\n')
        .replace(  # the operator writes v1beta1 DCDs for either DGD version
            "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\n",
            "kind: DynamoComponentDeployment\napiVersion: nvidia.com/v1beta1\n",
        )
    )
    assert edited.count("kind: DynamoComponentDeployment\napiVersion") == 3
    assert lint(
        str(write(tmp_path, edited)), "--checkpoint", SNAPSHOTS, "--dgd", dgd_of(example)
    ) == (
        0,
        [],
    )


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_a_changed_value_is_found_at_its_key_with_a_diff(example: str, tmp_path: Path) -> None:
    text = rendered(example, "dcd")
    assert text.count("  replicas: 2\n") == 1  # the decode worker
    path = write(tmp_path, text.replace("  replicas: 2\n", "  replicas: 5\n"))
    code, found = drift(path, dgd_of(example))
    assert code == 1
    [finding] = found
    line, column = position(text, "replicas: 2")
    assert (finding["file"], finding["line"], finding["column"]) == (str(path), line, column)
    assert (finding["kind"], finding["name"]) == ("DynamoComponentDeployment", DECODE_DCD)
    message = str(finding["message"])
    assert "at $.spec.replicas:\n" in message
    assert f"--- committed: {path}\n+++ rendered: {dgd_of(example)}\n@@ " in message
    assert "\n-  replicas: 5\n+  replicas: 2\n" in message
    assert message.count("@@ ") == 1  # only the first hunk


def test_a_changed_dgd_is_drift_in_the_committed_object(tmp_path: Path) -> None:
    dgd_text = Path(dgd_of("llama-disagg-v1beta1")).read_text()
    assert dgd_text.count("replicas: 2\n") == 1
    dgd = write(tmp_path, dgd_text.replace("replicas: 2\n", "replicas: 3\n"), "dgd.yaml")
    text = rendered("llama-disagg-v1beta1", "grove")
    committed = write(tmp_path, text)
    code, found = drift(committed, str(dgd))
    assert code == 1
    [finding] = found
    assert finding["kind"] == "PodCliqueSet"
    assert "$.spec.template.cliques[" in str(finding["message"])
    assert "\n+" in str(finding["message"]) and "\n-" in str(finding["message"])
    assert finding["file"] == str(committed)


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_a_key_missing_from_the_committed_object_points_at_its_parent(
    example: str, tmp_path: Path
) -> None:
    text = rendered(example, "dcd")
    assert text.startswith("# Source:") and text.count("  replicas: 1\n") == 2
    # drop the frontend DCD's `spec.replicas`: its parent key `spec:` is reported
    edited = text.replace("  replicas: 1\n", "", 1)
    path = write(tmp_path, edited)
    code, found = drift(path, dgd_of(example))
    assert code == 1
    [finding] = found
    assert finding["name"] == "llama-disagg-frontend"
    spec_line = position(edited, "\nspec:")[0] + 1  # the line after the newline
    assert (finding["line"], finding["column"]) == (spec_line, 1)
    assert "at $.spec.replicas:" in str(finding["message"])
    assert "\n+  replicas: 1\n" in str(finding["message"])


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_missing_and_extra_objects(example: str, tmp_path: Path) -> None:
    text = rendered(example, "dcd")
    documents = text.split("---\n")
    assert len(documents) == 3 and "llama-disagg-frontend" in documents[0]
    # drop the frontend DCD; commit a DCD of this DGD that the render does not produce
    extra = documents[0].replace("llama-disagg-frontend", "llama-disagg-router")
    path = write(tmp_path, "---\n".join([*documents[1:], extra]))
    code, found = drift(path, dgd_of(example))
    assert code == 1
    by_file = {(f["file"], f["name"]) for f in found}
    dgd = dgd_of(example)
    assert by_file == {(dgd, "llama-disagg"), (str(path), "llama-disagg-router")}
    missing = next(f for f in found if f["file"] == dgd)
    assert "produces DCD dynamo-prod/llama-disagg-frontend, which is not among" in str(
        missing["message"]
    )
    assert (missing["line"], missing["column"]) == position(
        Path(dgd).read_text(), "name: llama-disagg"
    )
    extra_finding = next(f for f in found if f["file"] == str(path))
    written = path.read_text()
    assert (extra_finding["line"], extra_finding["column"]) == position(
        written, "name: llama-disagg-router"
    )
    assert "does not produce it" in str(extra_finding["message"])


def test_the_target_follows_what_is_committed(tmp_path: Path) -> None:
    """A committed PCS means grove: DCDs of the same DGD committed beside it are extra."""
    text = (
        rendered("llama-disagg-v1beta1", "grove")
        + "---\n"
        + rendered("llama-disagg-v1beta1", "dcd")
    )
    path = write(tmp_path, text)
    code, found = drift(path, dgd_of("llama-disagg-v1beta1"))
    assert code == 1
    assert {f["kind"] for f in found} == {"DynamoComponentDeployment"}
    assert len(found) == 3
    assert all("(target grove) does not produce it" in str(f["message"]) for f in found)


def test_another_api_version_is_drift_at_api_version(tmp_path: Path) -> None:
    # DCDs committed as v1alpha1 (as this tool wrote them before it followed the operator,
    # which writes v1beta1 DCDs from either DGD version)
    text = rendered("llama-disagg-v1alpha1", "dcd").replace(
        "apiVersion: nvidia.com/v1beta1\n", "apiVersion: nvidia.com/v1alpha1\n"
    )
    path = write(tmp_path, text)
    code, found = drift(path, dgd_of("llama-disagg-v1alpha1"))
    assert code == 1
    assert len(found) == 3
    text = path.read_text()
    assert [(f["line"], f["column"]) for f in found] == [
        position(text, "apiVersion:", n) for n in (1, 2, 3)
    ]
    assert all("at $.apiVersion:" in str(f["message"]) for f in found)


def test_a_dgd_that_cannot_be_rendered_is_a_finding(tmp_path: Path) -> None:
    path = write(tmp_path, rendered("llama-disagg-v1beta1", "dcd"))
    # a checkpointRef to a snapshot that is not given: the operator refuses to render
    text = Path(dgd_of("llama-disagg-v1beta1")).read_text()
    anchor = "          startupPolicy: Immediate\n"
    assert anchor in text
    dgd = str(
        write(
            tmp_path, text.replace(anchor, anchor + "          checkpointRef: gone\n"), "dgd.yaml"
        )
    )
    code, found = lint(str(path), "--dgd", dgd)
    assert code == 1
    refused = [f for f in found if f["rule"] == "render-drift"]
    [finding] = refused
    assert finding["file"] == dgd
    assert "cannot render DGD dynamo-prod/llama-disagg to compare" in str(finding["message"])
    assert "no DynamoCheckpoint of that name" in str(finding["message"])
    # at the component's checkpointRef
    assert (finding["line"], finding["column"]) == position(Path(dgd).read_text(), "checkpointRef:")


def test_no_dgd_no_drift_rule() -> None:
    path = EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml"
    code, found = lint(str(path), "--checkpoint", SNAPSHOTS)
    assert (code, found) == (0, [])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_a_wrong_binding_is_left_to_the_binding_rules(
    example: str, target: str, tmp_path: Path
) -> None:
    """Binding copies are not compared: a stale copy is one binding-stale finding, and a
    real drift behind it (the decode worker's replicas) is still found at its key."""
    text = rendered(example, target)
    binding = "v1/7c9e6679-7425-40de-944b-e07fc1f90ae7/1/"  # both copies (DCD, or clique and map)
    assert text.count(binding) == 2
    stale = text.replace(binding, binding.replace("/1/", "/2/"))
    path = write(tmp_path, stale)
    code, found = lint(str(path), "--checkpoint", SNAPSHOTS, "--dgd", dgd_of(example))
    assert code == 1
    assert {f["rule"] for f in found} == {"binding-stale"}

    assert stale.count("  replicas: 2\n") == 1  # the decode worker
    path = write(tmp_path, stale.replace("  replicas: 2\n", "  replicas: 5\n"))
    code, found = drift(path, dgd_of(example))
    assert code == 1
    line, column = position(stale, "replicas: 2")
    assert [(f["line"], f["column"]) for f in found] == [(line, column)]
    assert "replicas: 5\n" in str(found[0]["message"])
