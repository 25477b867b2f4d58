"""`run_render`, the library entry point of `dynamo-render render`: plain results, no click.

The bundled example (examples/llama-disagg-v1beta1 with examples/snapshots) is what the
committed examples/rendered/ files hold, which tests/test_render_examples.py checks against
the operator oracle's objects; here the library call must give the same documents the
command prints, its warnings as data, and its refusals as input errors at file:line:column.
The lint end of it: `lint --dgd` with a DGD the operator refuses is exit 2, as render.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO
from render_support import BASELINE, EXAMPLES

from renderer.cli import main
from renderer.constants import TARGETS, Target
from renderer.errors import InputError, UsageError
from renderer.pipeline.lint import run_lint
from renderer.pipeline.render import run_render, run_renders
from renderer.pipeline.requests import LintRequest, RenderRequest
from renderer.record import replace
from renderer.source import load_bytes, load_paths
from renderer.yamlout import dump_stream

EXAMPLE = "llama-disagg-v1beta1"
DGD = f"examples/{EXAMPLE}/dgd.yaml"  # relative: it is the `# Source:` name
SNAPSHOTS = "examples/snapshots"
# the operator's validation message (validation.go) for this annotation's value
BACKEND_KEY = "nvidia.com/vllm-distributed-executor-backend"
BACKEND_REFUSAL = (
    f'metadata.annotations[{BACKEND_KEY}]: Invalid value: "bogus": must be "mp" or "ray"'
)


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--no-config", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _position(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first `needle` in `text`."""
    at = text.index(needle)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _refused_dgd(tmp_path: Path) -> Path:
    """The example DGD with a vLLM executor backend the operator's webhook refuses."""
    text = (EXAMPLES / EXAMPLE / "dgd.yaml").read_text()
    anchor = '    nvidia.com/enable-grove: "true"\n'
    assert anchor in text
    path = tmp_path / "refused.yaml"
    path.write_text(text.replace(anchor, f'{anchor}    {BACKEND_KEY}: "bogus"\n', 1))
    return path


def _numbered(tmp_path: Path, *, namespace: str = "dynamo-prod", copies: int = 1) -> Path:
    """The example DGD named 123 (an integer), in `namespace`, `copies` times."""
    text = (EXAMPLES / EXAMPLE / "dgd.yaml").read_text()
    text = text.replace("  name: llama-disagg\n", "  name: 123\n", 1)
    text = text.replace("  namespace: dynamo-prod\n", f"  namespace: {namespace}\n", 1)
    path = tmp_path / "numbered.yaml"
    path.write_text("---\n".join([text] * copies))
    return path


@pytest.mark.parametrize("target", TARGETS)
def test_the_documents_are_what_the_command_prints(
    target: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run_render(RenderRequest(DGD, (SNAPSHOTS,), target=target))
    code, out, err = _cli(capsys, "render", DGD, "--checkpoint", SNAPSHOTS, "--target", target)
    assert (code, err) == (0, "")
    assert dump_stream(outcome.documents) == out
    assert [obj for _, obj in outcome.documents] == [
        o.data for o in load_bytes(out.encode(), "stdout")
    ]
    assert {source for source, _ in outcome.documents} == {DGD}
    # the committed render the oracle test holds the example to
    assert out == (EXAMPLES / "rendered" / EXAMPLE / f"{target}.yaml").read_text()
    assert outcome.warnings == []
    assert outcome.output is None


def test_warnings_are_returned_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    # a snapshot whose labels name the decode worker, captured for another worker spec
    baseline = str(BASELINE.relative_to(REPO))
    outcome = run_render(RenderRequest(DGD, (SNAPSHOTS, baseline)))
    assert capsys.readouterr() == ("", "")
    line, column = _position(BASELINE.read_text(), "name:")
    assert outcome.warnings == [
        f"{baseline}:{line}:{column}: component 'VllmDecodeWorker': snapshot"
        " checkpoint-9f1e2d3c4b5a6978 is outdated: it was captured for worker hash 5f8d2c1a9b,"
        " and the DGD's worker spec has changed since (its worker hash is now b59eb498); the"
        " operator restores from checkpoint checkpoint-46333b366341a5dbfd4f63b83b7b9fc1, whose"
        " snapshot is given: remove this one"
    ]
    code, _, err = _cli(capsys, "render", DGD, "--checkpoint", SNAPSHOTS, "--checkpoint", baseline)
    assert code == 0
    assert err == f"dynamo-render: warning: {outcome.warnings[0]}\n"


def test_an_operator_refusal_is_an_input_error_at_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dgd = _refused_dgd(tmp_path)
    with pytest.raises(InputError) as raised:
        run_render(RenderRequest(str(dgd), (SNAPSHOTS,)))
    error = raised.value
    assert BACKEND_REFUSAL in error.message
    assert (error.file, error.line, error.column) == (
        str(dgd),
        *_position(dgd.read_text(), BACKEND_KEY),
    )
    assert error.exit_code == 2
    code, out, err = _cli(capsys, "render", str(dgd), "--checkpoint", SNAPSHOTS)
    assert (code, out) == (2, "")
    assert err == f"dynamo-render: error: {error}\n"


def test_the_output_folder_is_planned_not_written(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    request = RenderRequest(DGD, (SNAPSHOTS,), target="dcd", output_dir=str(folder))
    outcome = run_render(request)
    assert not folder.exists()
    plan = outcome.output
    assert plan is not None
    assert plan.folder == str(folder)
    assert plan.removals == []
    committed = load_paths([str(EXAMPLES / "rendered" / EXAMPLE / "dcd.yaml")])
    assert [Path(path).name for path, _ in plan.writes] == [
        f"dynamocomponentdeployment-{o.name}.yaml" for o in committed
    ]
    folder.mkdir()
    for path, content in plan.writes:
        Path(path).write_bytes(content)
    stale = folder / "dynamocomponentdeployment-gone.yaml"  # an earlier render's, by its header
    stale.write_bytes(plan.writes[0][1])
    (folder / "notes.yaml").write_text("# Source: someone else\n")  # not ours: left alone
    again = run_render(request).output
    assert again is not None
    assert (again.writes, again.removals) == ([], [str(stale)])
    assert again.changed


def test_several_requests_give_what_each_gives_alone() -> None:
    requests = [
        RenderRequest(f"examples/{example}/dgd.yaml", (SNAPSHOTS,), target=target)
        for example in ("llama-disagg-v1alpha1", EXAMPLE)
        for target in TARGETS
    ]
    alone = [run_render(request) for request in requests]
    assert run_renders(requests, 1) == alone
    assert run_renders(requests, 2) == alone


def test_an_output_folder_outside_the_write_roots_is_refused_before_any_render(
    tmp_path: Path,
) -> None:
    inside = tmp_path / "repo"
    inside.mkdir()
    broken = RenderRequest(str(tmp_path / "missing.yaml"), output_dir=str(inside / "a"))
    outside = RenderRequest(DGD, (SNAPSHOTS,), output_dir=str(tmp_path / "elsewhere"))
    roots = (str(inside),)
    requests = [replace(broken, write_roots=roots), replace(outside, write_roots=roots)]
    with pytest.raises(UsageError, match=r"refusing to write .*elsewhere: outside the"):
        run_renders(requests, 1)


def test_the_pipeline_runs_without_click() -> None:
    script = (
        "import sys\n"
        "from renderer.pipeline.render import RenderRequest, run_render\n"
        f"outcome = run_render(RenderRequest({DGD!r}, ({SNAPSHOTS!r},)))\n"
        "assert outcome.documents\n"
        "print(sorted(m for m in sys.modules if m == 'click' or m.startswith('click.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


# --- lint --dgd: a DGD render refuses is bad input there too --------------------------------


def test_lint_with_a_dgd_the_operator_refuses_is_exit_2_as_render(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dgd = _refused_dgd(tmp_path)
    committed = str(EXAMPLES / "rendered" / EXAMPLE / "grove.yaml")
    code, out, err = _cli(capsys, "lint", committed, "--checkpoint", SNAPSHOTS, "--dgd", str(dgd))
    line, column = _position(dgd.read_text(), BACKEND_KEY)
    assert (code, out) == (2, "")  # no report: bad input, not a render-drift finding
    assert err.startswith(f"dynamo-render: error: {dgd}:{line}:{column}: ")
    assert BACKEND_REFUSAL in err
    rendered = _cli(capsys, "render", str(dgd), "--checkpoint", SNAPSHOTS)
    assert rendered == (2, "", err)  # the very message render gives
    with pytest.raises(InputError) as raised:
        run_lint(LintRequest([committed], [SNAPSHOTS], dgd=str(dgd)))
    assert (raised.value.file, raised.value.line, raised.value.column) == (str(dgd), line, column)


def test_lint_with_a_dgd_whose_name_is_not_a_string_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dgd = _numbered(tmp_path)
    committed = str(EXAMPLES / "rendered" / EXAMPLE / "grove.yaml")
    code, out, err = _cli(capsys, "lint", committed, "--checkpoint", SNAPSHOTS, "--dgd", str(dgd))
    line, column = _position(dgd.read_text(), "123")
    assert (code, out) == (2, "")
    assert err.startswith(f"dynamo-render: error: {dgd}:{line}:{column}: $.metadata.name: ")
    assert _cli(capsys, "render", str(dgd), "--checkpoint", SNAPSHOTS) == (2, "", err)


def test_lint_with_a_dgd_that_renders_still_compares(capsys: pytest.CaptureFixture[str]) -> None:
    committed = str(EXAMPLES / "rendered" / EXAMPLE / "grove.yaml")
    code, out, _ = _cli(
        capsys, "lint", committed, "--checkpoint", SNAPSHOTS, "--dgd", DGD, "--format", "json"
    )
    assert code == 0
    assert '"findings": []' in out


def test_two_dgds_without_a_string_name_are_left_to_the_schema_check(tmp_path: Path) -> None:
    dgd = _numbered(tmp_path, copies=2)
    with pytest.raises(InputError) as raised:
        run_render(RenderRequest(str(dgd), (SNAPSHOTS,)))
    # the first one's name, as the schema check names it; not "DGD dynamo-prod/ is given
    # twice", which named neither
    assert raised.value.message.startswith("$.metadata.name: ")
    assert (raised.value.line, raised.value.column) == _position(dgd.read_text(), "123")


def test_a_namespace_mismatch_names_a_dgd_whose_name_is_not_a_string(tmp_path: Path) -> None:
    dgd = _numbered(tmp_path, namespace="other")
    with pytest.raises(InputError) as raised:
        run_render(RenderRequest(str(dgd), (SNAPSHOTS,), namespace="dynamo-prod"))
    assert raised.value.message.startswith("DGD 123 is in namespace 'other', which does not")
