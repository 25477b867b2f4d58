"""Lint split by file (`-j`), in one process or several, reports what one pass reports.

The reference is the one-pass run (`lint_objects` over every object read by
`load_paths`), which the rule tests check against the operator's vectors. The corpus
mixes every rule's committed fixtures (DCD v1alpha1, v1beta1, PodCliqueSet), the rendered
examples copied under other names with corrupted copies, snapshots among the linted
paths (one that cannot be bound, two captures of one name that bind differently), a
schema violation, a `kind: List`, ordinary manifests and YAML that is not Kubernetes
objects (a Helm chart, a kustomize patch), in enough files that the split is taken.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
from pathlib import Path

import pytest
from paths import FIXTURES, HOSTILE, REPO, VECTORS

from renderer.commands.lint import LintArgs, execute
from renderer.lint import split
from renderer.lint.engine import LINT_KINDS, LintOptions, lint_objects
from renderer.lint.rules import RULE_MODULES
from renderer.pipeline import lint as lint_pipeline
from renderer.report import FORMATS, get_format
from renderer.source import load_paths

FIXTURES = FIXTURES / "lint"
SNAPSHOT = VECTORS / "02-worker-baseline.input.yaml"
NOT_AUTOMATIC = FIXTURES / "snapshots" / "not-automatic.yaml"
RENDERED = sorted((REPO / "examples" / "rendered").glob("*/*.yaml"))
_TOP_NAME = re.compile(r"^(  name: llama-disagg)", re.MULTILINE)
_DIGEST = re.compile(r"(v1/[0-9a-f-]+/)(1)(/[0-9a-f]{63})([0-9a-f])")


def _flip(match: re.Match[str]) -> str:
    return f"{match[1]}{match[2]}{match[3]}{'1' if match[4] == '0' else '0'}"


SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: svc-{n}
spec:
  ports:
  - port: 80
"""


def _corpus(root: Path) -> Path:
    """The linted tree (snapshots inside it too); deterministic."""
    tree = root / "tree"
    shutil.copytree(FIXTURES, tree / "fixtures", ignore=shutil.ignore_patterns("*.py", "snapshots"))
    texts = [path.read_text() for path in RENDERED]
    for n in range(48):
        text = _TOP_NAME.sub(rf"\1-{n:03d}", texts[n % len(texts)])
        if n % 5 == 1:  # one copy's digest changed
            text = _DIGEST.sub(_flip, text, 1)
        elif n % 5 == 3:  # every generation bumped
            text = _DIGEST.sub(lambda m: m[1] + "2" + m[3] + m[4], text)
        (tree / "rendered" / f"r{n % 4}").mkdir(parents=True, exist_ok=True)
        (tree / "rendered" / f"r{n % 4}" / f"copy-{n:03d}.yaml").write_text(text)
    for n in range(30):
        (tree / "plain" / f"svc-{n:02d}.yaml").parent.mkdir(parents=True, exist_ok=True)
        (tree / "plain" / f"svc-{n:02d}.yaml").write_text(SERVICE.format(n=n))
    snapshot = SNAPSHOT.read_text()
    # snapshots among the linted paths: a second, different capture of one name in
    # namespace team-c, and one that cannot be bound in namespace team-d
    (tree / "snaps").mkdir()
    (tree / "snaps" / "a.yaml").write_text(snapshot.replace("dynamo-prod", "team-c"))
    other = snapshot.replace("dynamo-prod", "team-c").replace("7c9e6679", "7c9e6670")
    (tree / "snaps" / "b.yaml").write_text(other)
    (tree / "snaps" / "c.yaml").write_text(
        NOT_AUTOMATIC.read_text().replace("dynamo-prod", "team-d")
    )
    for namespace in ("team-c", "team-d"):
        text = _TOP_NAME.sub(r"\1-ns", texts[0]).replace("dynamo-prod", namespace)
        (tree / "rendered" / f"{namespace}.yaml").write_text(text)
    # a schema violation, and a kind: List holding a DCD
    dcd = texts[0].split("\n---\n")[1]
    (tree / "schema.yaml").write_text(
        re.sub(r"(?m)^  replicas: \d+$", "  replicas: one", dcd, count=1)
    )
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        ("  - " if i == 0 else "    ") + line + "\n"
        for i, line in enumerate(line for line in dcd.splitlines() if not line.startswith("#"))
    )
    (tree / "list.yaml").write_text(listed)
    # YAML that is not Kubernetes objects: skipped and counted, by both runs
    chart = tree / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicaCount: 2\nimage: {repository: web}\n")
    (chart / "templates" / "dcd.yaml").write_text(
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoComponentDeployment\n"
        "metadata:\n  name: {{ .Release.Name }}\n"
    )
    (tree / "patch.yaml").write_text("- op: replace\n  path: /spec/replicas\n  value: 3\n")
    return tree


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _corpus(tmp_path_factory.mktemp("split"))


def _one_pass(paths: list[str], checkpoints: list[str], options: LintOptions) -> object:
    skipped: list[str] = []
    objects = load_paths(paths, kinds=LINT_KINDS, allow_empty=True, skipped=skipped)
    snaps = load_paths(checkpoints, kinds={"DynamoCheckpoint"}) if checkpoints else []
    result = lint_objects(objects, snaps, options)
    result.skipped = skipped
    return result


def _reports(result: object) -> dict[str, str]:
    return {fmt: get_format(fmt)(result, color=False) for fmt in FORMATS}  # type: ignore[arg-type]


@pytest.mark.parametrize("strict", [False, True])
def test_split_reports_the_same_bytes_as_one_pass(corpus: Path, strict: bool) -> None:
    paths, checkpoints = [str(corpus)], [str(SNAPSHOT)]
    options = LintOptions(strict=strict)
    reference = _one_pass(paths, checkpoints, options)
    expected = _reports(reference)
    rules = {f.rule for f in reference.findings}  # type: ignore[attr-defined]
    # the corpus exercises the rules whose verdicts cross files, and the snapshot rules
    assert {
        "binding-absent",
        "binding-disagree",
        "binding-stale",
        "binding-provenance",
        "binding-replaced",
        "binding-malformed",
        "binding-misplaced",
        "checkpoint-pending",
        "checkpoint-invalid",
        "schema",
    } <= rules
    for jobs in (1, 2):
        result = split.lint_paths(paths, checkpoints, options, max_bytes=1 << 24, jobs=jobs)
        assert result is not None, "the corpus is large enough for the split"
        assert [f.to_json() for f in result.findings] == [
            f.to_json()
            for f in reference.findings  # type: ignore[attr-defined]
        ]
        assert result.files == reference.files  # type: ignore[attr-defined]
        assert result.objects == reference.objects  # type: ignore[attr-defined]
        assert result.skipped == reference.skipped  # type: ignore[attr-defined]
        assert len(result.skipped) == 4  # Chart.yaml, values.yaml, the template, the patch
        assert _reports(result) == expected


def test_command_output_is_identical_with_one_and_two_jobs(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(jobs: int | None) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        args = LintArgs(paths=[str(corpus)], checkpoints=[str(SNAPSHOT)], format="json", jobs=jobs)
        return execute(args, out, err), out.getvalue(), err.getvalue()

    one, two = run(1), run(2)
    monkeypatch.setattr(lint_pipeline, "_split_run", lambda request: None)
    assert one == two == run(None)
    assert one[0] == 1


def test_a_bad_file_is_reported_as_one_pass_reports_it(tmp_path: Path) -> None:
    tree = _corpus(tmp_path)
    # read later, and the only one the snapshot pass parses
    (tree / "snaps" / "z.yaml").write_text("apiVersion: v1\nkind: DynamoCheckpoint\nx: [\n")
    # read first: a DCD, which the snapshot pass skips unparsed
    bad = tree / "rendered" / "r2" / "copy-010.yaml"
    bad.write_text(bad.read_text().replace("metadata:", "metadata: {", 1))
    options = LintOptions()
    assert split.lint_paths([str(tree)], [], options, max_bytes=1 << 24, jobs=2) is None
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(Exception, match=r"copy-010\.yaml") as caught:
        execute(LintArgs(paths=[str(tree)], jobs=2), out, err)
    # the same error as the one-pass read (the first bad file in the order read)
    with pytest.raises(type(caught.value)) as direct:
        load_paths([str(tree)], kinds=LINT_KINDS, allow_empty=True, skipped=[])
    assert str(direct.value) == str(caught.value)


def test_a_small_input_stays_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import renderer.parallel

    def no_pool() -> object:
        raise AssertionError("a small input must not start worker processes")

    monkeypatch.setattr(renderer.parallel, "_context", no_pool)
    files = [str(FIXTURES / "pcs" / "binding-stale.yaml")]
    assert not split.worth_splitting([(f, True) for f in files])
    out, err = io.StringIO(), io.StringIO()
    code = execute(LintArgs(paths=files, checkpoints=[str(SNAPSHOT)], jobs=2), out, err)
    assert code == 1
    assert "binding-stale" in out.getvalue()


def test_not_split_where_one_pass_is_needed(corpus: Path) -> None:
    options = LintOptions()
    assert split.lint_paths(["-"], [], options, max_bytes=1 << 24, jobs=2) is None
    dgd = load_paths([str(REPO / "examples" / "llama-disagg-v1beta1" / "dgd.yaml")])[0]
    with_dgd = LintOptions(dgd=dgd)
    assert split.lint_paths([str(corpus)], [], with_dgd, max_bytes=1 << 24, jobs=1) is None


def test_every_rule_has_a_place_in_the_split() -> None:
    """A rule added later runs per file unless it is listed as looking at more."""
    assert set(RULE_MODULES) >= split.SNAPSHOT_RULES | split.WHOLE_RUN_RULES


def test_a_one_file_lint_loads_no_process_machinery() -> None:
    """The hook's cold run stays in one process: multiprocessing is never imported."""
    import subprocess
    import sys

    code = (
        "import sys, contextlib, io\n"
        "from renderer.cli import main\n"
        "quiet = io.StringIO()\n"
        "with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):\n"
        "    main(sys.argv[1:])\n"
        "print('multiprocessing' in sys.modules)\n"
    )
    argv = ["lint", str(FIXTURES / "pcs" / "clean.yaml"), "--checkpoint", str(SNAPSHOT)]
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert proc.stdout.strip() == "False"


def _spellings() -> list[bytes]:
    """DynamoCheckpoint objects written so that the word is not in the bytes."""
    body = "apiVersion: nvidia.com/v1alpha1\nmetadata: {name: c, namespace: n}\n"
    return [
        (body + 'kind: "Dynamo\\x43heckpoint"\n').encode(),
        (body + "kind: !!binary RHluYW1vQ2hlY2twb2ludA==\n").encode(),
        (body + 'kind: "Dynamo\\\n  Checkpoint"\n').encode(),
        ("\ufeff" + body + "kind: DynamoCheckpoint\n").encode("utf-16"),
    ]


def test_the_snapshot_shortcut_never_skips_a_snapshot(corpus: Path) -> None:
    from renderer.errors import InputError
    from renderer.source import load_bytes

    datas = [p.read_bytes() for p in sorted(corpus.rglob("*.yaml"))]
    datas += [p.read_bytes() for p in sorted((HOSTILE).glob("*.yaml"))]
    datas += _spellings()
    held = 0
    for data in datas:
        try:
            found = load_bytes(data, "x.yaml", kinds={"DynamoCheckpoint"}, allow_empty=True)
        except InputError:
            continue
        if found:
            held += 1
            assert not split.cannot_hold_checkpoint(data), data[:80]
    assert held >= 3 + len(_spellings())  # the corpus's snapshots and every spelling


def test_a_snapshot_the_first_pass_missed_sends_the_run_to_one_pass(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = LintOptions()
    reference = _one_pass([str(corpus)], [str(SNAPSHOT)], options)
    monkeypatch.setattr(split, "cannot_hold_checkpoint", lambda data: True)
    assert (
        split.lint_paths([str(corpus)], [str(SNAPSHOT)], options, max_bytes=1 << 24, jobs=1) is None
    )
    out, err = io.StringIO(), io.StringIO()
    args = LintArgs(paths=[str(corpus)], checkpoints=[str(SNAPSHOT)], format="json", jobs=2)
    execute(args, out, err)
    assert out.getvalue() == get_format("json")(reference, color=False)  # type: ignore[arg-type]


def test_workers_keep_the_node_and_document_caps(corpus: Path) -> None:
    """A cap the command line lowers holds in the workers too (same error, same exit)."""
    from renderer.cli import main

    # no snapshots here, so the first pass parses nothing and the workers meet the cap
    paths = [str(corpus / "rendered"), str(corpus / "plain")]
    assert main(["lint", "-j", "2", "--format", "json", *paths]) == 1
    results = []
    for jobs in ("1", "2"):
        results.append(main(["--max-nodes", "40", "lint", "-j", jobs, "--format", "json", *paths]))
    assert results == [2, 2]


def test_split_with_trusted_keys_reports_what_one_pass_reports(tmp_path: Path) -> None:
    """--trusted-key: one signed snapshot file, one unsigned (checkpoint-untrusted)."""
    from renderer.cli import main
    from renderer.trust import generate_key_pair, load_trusted_keys

    tree = _corpus(tmp_path)
    signed = tmp_path / "signed.yaml"
    shutil.copy(SNAPSHOT, signed)
    private_pem, public_pem, _ = generate_key_pair()
    (tmp_path / "k.key").write_bytes(private_pem)
    (tmp_path / "k.pub").write_bytes(public_pem)
    assert main(["snapshot", "sign", str(signed), "--key", str(tmp_path / "k.key")]) == 0
    options = LintOptions(trusted_keys=load_trusted_keys([str(tmp_path / "k.pub")]))
    reference = _one_pass([str(tree)], [str(signed)], options)
    assert "checkpoint-untrusted" in {f.rule for f in reference.findings}  # type: ignore[attr-defined]
    for jobs in (1, 2):
        result = split.lint_paths([str(tree)], [str(signed)], options, max_bytes=1 << 24, jobs=jobs)
        assert result is not None
        assert _reports(result) == _reports(reference)


_PARENT = os.getpid()


def _square_or_die(item: int) -> int:
    # in a worker, item 7 kills the process running it, as the OOM killer would
    if item == 7 and os.getpid() != _PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return item * item


def test_a_killed_worker_leaves_its_items_to_this_process() -> None:
    from renderer.parallel import ordered_map

    items = list(range(40))
    assert list(ordered_map(_square_or_die, items, jobs=2)) == [i * i for i in items]
