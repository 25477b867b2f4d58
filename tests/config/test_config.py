""".dynamo-render.yaml: finding it, strict checking with file:line:column, and the rule that
command-line options always win over it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from paths import REPO

from renderer.cli import main
from renderer.config import (
    CONFIG_NAME,
    Config,
    LintConfig,
    RenderJob,
    default_map,
    find_config,
    load_config,
    parse_config,
)
from renderer.errors import InputError

EXAMPLES = REPO / "examples"
HEADER = "apiVersion: dynamo-render/v1\nkind: Config\n"

FULL = (
    HEADER
    + """\
render:
  - dgd: deploy/a.dgd.yaml
    checkpoints: [snapshots/a.yaml, snapshots/more]
    target: grove
    output: rendered/a
  - dgd: deploy/b.dgd.yaml
    output: rendered/b
lint:
  paths: [rendered]
  checkpoints: [snapshots]
  strict: true
  format: github
trustedKeys: [keys/ci.pub]
crds: [crds/pcs.yaml]
maxBytes: 1000
"""
)


def _parse(text: str, *, base: str = "/repo", cwd: str = "/repo") -> Config:
    return parse_config(text.encode(), CONFIG_NAME, base_dir=base, cwd=cwd)


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        _parse(text)
    return info.value


def test_full_config_is_read_with_paths_relative_to_the_config_file() -> None:
    config = _parse(FULL)
    assert config.render == (
        RenderJob(
            dgd="deploy/a.dgd.yaml",
            checkpoints=("snapshots/a.yaml", "snapshots/more"),
            output="rendered/a",
            target="grove",
            where=f"{CONFIG_NAME}:4:5",
            source="deploy/a.dgd.yaml",
        ),
        RenderJob(
            dgd="deploy/b.dgd.yaml",
            checkpoints=(),
            output="rendered/b",
            where=f"{CONFIG_NAME}:8:5",
            source="deploy/b.dgd.yaml",
        ),
    )
    assert config.lint == LintConfig(("rendered",), ("snapshots",), True, "github")
    assert config.trusted_keys == ("keys/ci.pub",)
    assert config.crds == ("crds/pcs.yaml",)
    assert config.max_bytes == 1000


def test_paths_are_shown_relative_to_the_working_directory() -> None:
    # run from a subdirectory of the repository: paths still reach the same files
    config = _parse(FULL, base="/repo", cwd="/repo/deploy")
    assert config.render[0].dgd == "a.dgd.yaml"
    assert config.render[0].output == "../rendered/a"
    # from outside the repository: absolute paths
    outside = _parse(FULL, base="/repo", cwd="/elsewhere")
    assert outside.lint.paths == ("/repo/rendered",)
    # absolute paths in the file stay absolute
    absolute = _parse(HEADER + "lint: {paths: [/abs/dir]}\n")
    assert absolute.lint.paths == ("/abs/dir",)


def test_an_empty_config_sets_nothing() -> None:
    config = _parse(HEADER)
    assert config == Config(file=CONFIG_NAME)
    assert default_map(config) == {"render": {}, "lint": {}, "binding": {}}


def test_default_map_uses_the_commands_parameter_names() -> None:
    assert default_map(_parse(FULL)) == {
        "render": {"trusted_keys": ["keys/ci.pub"], "crds": ["crds/pcs.yaml"], "max_bytes": 1000},
        "lint": {
            "trusted_keys": ["keys/ci.pub"],
            "crds": ["crds/pcs.yaml"],
            "max_bytes": 1000,
            "paths": ["rendered"],
            "checkpoints": ["snapshots"],
            "strict": True,
            "fmt": "github",
        },
        "binding": {"max_bytes": 1000},
    }


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (HEADER + "lnt: {}\n", "3:1", "unknown key 'lnt' (expected one of: apiVersion, kind,"),
        (HEADER + "lint:\n  path: [x]\n", "4:3", "unknown key 'path' in lint (expected one of:"),
        (HEADER + "lint: {strict: yes please}\n", "3:16", "lint.strict must be true or false"),
        (HEADER + "lint: {format: xml}\n", "3:16", "lint.format must be one of: "),
        (HEADER + "lint: {paths: rendered}\n", "3:15", "lint.paths must be a list of paths"),
        (HEADER + "lint: {paths: [1]}\n", "3:16", "lint.paths[0] must be a non-empty path"),
        (HEADER + "lint: [paths]\n", "3:7", "lint must be a mapping"),
        (HEADER + "render: {dgd: x}\n", "3:9", "render must be a list of"),
        (HEADER + "render:\n  - dgd: x\n", "4:5", "render[0] needs 'output'"),
        (HEADER + "render:\n  - {dgd: x, output: o, target: pcs}\n", "4:33", "target must be"),
        (HEADER + "render:\n  - {dgd: x, output: o, extra: 1}\n", "4:25", "unknown key 'extra'"),
        (
            HEADER + "render:\n  - {dgd: x, output: o}\n  - {dgd: z, output: o}\n",
            "5:5",
            "two render entries write to o (the other is at .dynamo-render.yaml:4:5)",
        ),
        (HEADER + "maxBytes: 0\n", "3:11", "maxBytes must be a positive integer"),
        (HEADER + "maxBytes: true\n", "3:11", "maxBytes must be a positive integer"),
        (HEADER + "trustedKeys: key.pub\n", "3:14", "trustedKeys must be a list of paths"),
        ("apiVersion: dynamo-render/v2\nkind: Config\n", "1:13", "expected apiVersion"),
        ("render: []\n", "1:1", "a config file starts with `apiVersion: dynamo-render/v1`"),
        (HEADER + "---\n" + HEADER, "1:1", "a config file holds one document"),
        (HEADER + "lint: {paths: [a, a]\n", "4:1", "invalid YAML"),
    ],
)
def test_invalid_config_is_an_input_error_at_its_position(
    text: str, where: str, message: str
) -> None:
    error = _error(text)
    assert f"{error.line}:{error.column}" == where, str(error)
    assert error.file == CONFIG_NAME
    assert message in error.message, error.message


def test_find_config_walks_up_to_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert find_config(str(repo / "a" / "b")) is None
    (repo / CONFIG_NAME).write_text(HEADER)
    assert find_config(str(repo / "a" / "b")) == str((repo / CONFIG_NAME).resolve())
    # a nested repository (its own .git) does not see the outer config
    (repo / "a" / ".git").mkdir()
    assert find_config(str(repo / "a" / "b")) is None


def test_load_config_reports_an_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read config file"):
        load_config(str(tmp_path / "missing.yaml"))


def test_the_bundled_example_config_reads(tmp_path: Path) -> None:
    # examples/dynamo-render.yaml is the walkthrough's starting config: it must stay a valid
    # config (the schema tests skip it, it is not a Kubernetes object).
    config = load_config(str(EXAMPLES / "dynamo-render.yaml"), cwd=str(tmp_path))
    assert [(Path(j.dgd).name, j.target) for j in config.render] == [("dgd.yaml", "dcd")]
    assert [Path(p).name for p in config.lint.paths] == ["rendered", "snapshots"]
    assert [Path(p).name for p in config.lint.checkpoints] == ["snapshots"]


# --- through the command line ---------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the examples' v1beta1 DCD render, its snapshot, and a config."""
    if not EXAMPLES.is_dir():
        pytest.skip("no examples/")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "rendered").mkdir()
    shutil.copy(EXAMPLES / "rendered" / "llama-disagg-v1beta1" / "dcd.yaml", root / "rendered")
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    (root / CONFIG_NAME).write_text(
        HEADER + "lint:\n  paths: [rendered]\n  checkpoints: [snapshots]\n  format: json\n"
    )
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return root


def test_lint_takes_its_paths_checkpoints_and_format_from_the_config(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["files"] == 1
    assert report["findings"] == []


def test_the_config_is_found_from_a_subdirectory(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "rendered")
    assert main(["lint"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["files"] == 1


def test_command_line_options_win_over_the_config(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--format", "text", "rendered/dcd.yaml"]) == 0
    captured = capsys.readouterr()
    assert not captured.out.lstrip().startswith("{")  # text, not the config's json
    # without the config's checkpoints the bindings cannot be verified: warnings, still 0
    assert main(["--no-config", "lint", "--format", "json", "rendered"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["warnings"] > 0


def test_an_invalid_config_stops_every_command_with_its_position(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / CONFIG_NAME).write_text(HEADER + "lint:\n  format: xml\n")
    assert main(["lint", "rendered"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dynamo-render: error: {CONFIG_NAME}:4:11: lint.format must be")
    assert err.count("\n") == 1
    # --no-config gets past it; --config names another file
    assert main(["--no-config", "lint", "--format", "json", "rendered"]) == 0
    other = repo / "other.yaml"
    other.write_text(HEADER + "lint: {paths: [rendered], checkpoints: [snapshots]}\n")
    capsys.readouterr()
    assert main(["--config", str(other), "lint", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["warnings"] == 0


def test_lint_of_the_whole_repository_skips_the_config_file(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--format", "json", "."]) == 0
    report = json.loads(capsys.readouterr().out)
    assert CONFIG_NAME not in " ".join(report.get("files", []))
    assert report["findings"] == []


def test_config_choices_are_the_commands_choices() -> None:
    from renderer.config import LINT_FORMATS
    from renderer.constants import TARGETS
    from renderer.report import FORMATS

    assert sorted(LINT_FORMATS) == sorted(FORMATS)
    assert TARGETS == ("dcd", "grove")


def test_the_documented_example_is_a_valid_config() -> None:
    import re

    doc = (REPO / "docs" / "config.md").read_text()
    example = re.search(r"```yaml\n(.*?)```", doc, flags=re.S)
    assert example is not None
    config = _parse(example.group(1))
    assert config.render[0].target == "grove"
    assert config.lint.format == "text"
    assert config.max_bytes == 16777216
    # and the module docstring's example too
    import renderer.config as module

    docstring = module.__doc__ or ""
    start = docstring.index("    apiVersion:")
    block = "\n".join(line[4:] for line in docstring[start:].split("\n\n")[0].splitlines())
    assert _parse(block + "\n").render[0].output == "rendered/llama"


def test_configured_render_is_the_same_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `# Source:` names the DGD as the config writes it, so a check from a subdirectory or
    # through --config from elsewhere agrees with the render made at the repository root.
    if not EXAMPLES.is_dir():
        pytest.skip("no examples/")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLES, root / "examples")
    (root / "snapshots").mkdir()
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots", dirs_exist_ok=True)
    shutil.copy(EXAMPLES / "dynamo-render.yaml", root / CONFIG_NAME)
    monkeypatch.chdir(root)
    assert main(["render"]) == 0
    first = (root / "rendered" / "dynamocomponentdeployment-llama-disagg-frontend.yaml").read_text()
    assert first.startswith("# Source: examples/llama-disagg-v1beta1/dgd.yaml\n")
    monkeypatch.chdir(root / "rendered")
    assert main(["render", "--check"]) == 0
    monkeypatch.chdir(tmp_path)
    assert main(["--config", str(root / CONFIG_NAME), "render", "--check"]) == 0
    capsys.readouterr()


def test_configured_render_reports_an_output_folder_it_cannot_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The configured render writes with render's own `apply`: a folder that cannot be
    # created (a permission denied, a full disk) is one usage error, exit 2, no traceback.
    if not EXAMPLES.is_dir():
        pytest.skip("no examples/")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLES, root / "examples")
    shutil.copytree(EXAMPLES / "snapshots", root / "snapshots")
    shutil.copy(EXAMPLES / "dynamo-render.yaml", root / CONFIG_NAME)
    monkeypatch.chdir(root)

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    assert main(["render"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "dynamo-render: error: cannot create rendered: Permission denied\n"
    assert not (root / "rendered").exists()
