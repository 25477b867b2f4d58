"""Rule checkpoint-outdated through the real CLI: a committed workload naming a snapshot the
operator would not resolve for it.

Expected checkpoint names come from the operator's rule (internal/checkpoint/hash.go
DGDCheckpointID, restated below independently of the tool), and the oracle's checkpoint
mode confirms that rule on the example DGD and gives the name and worker hash for a DGD
whose worker spec changed. The manifests are the bundled examples (examples/rendered,
examples/snapshots), edited one fact at a time; positions are looked up in the edited text.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from paths import REPO

from renderer.cli import cli

EXAMPLES = REPO / "examples"
ORACLE = REPO.parent / "shared" / "operator-oracle" / "oracle"
RULE = "checkpoint-outdated"
NAMESPACE = "dynamo-prod"
DGD = "llama-disagg"
COMPONENT = "VllmDecodeWorker"
OWNER_UID = "0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77"  # the example snapshot's ownerReference
OLD_HASH = "b59eb498"  # the worker hash the example snapshot was captured for
NEW_HASH = "c0ffee12"
SNAPSHOT = next((EXAMPLES / "snapshots").glob("checkpoint-*.yaml"))
BINDING = "nvidia.com/dynamo-checkpoint-binding: "

needs_oracle = pytest.mark.skipif(
    not ORACLE.is_file(), reason="the operator oracle (../shared/operator-oracle) is absent"
)


def operator_id(namespace: str, dgd: str, uid: str, component: str, worker_hash: str) -> str:
    """DGDCheckpointID: sha256 of Go's json.Marshal of the struct (field order as declared,
    namespace / dgdUID / workerHash omitempty), first 32 hex characters. The inputs here are
    plain ASCII, which Go and json.dumps encode alike."""
    fields = {
        "namespace": namespace,
        "dgdName": dgd,
        "dgdUID": uid,
        "componentName": component,
        "workerHash": worker_hash,
    }
    kept = {k: v for k, v in fields.items() if v or k in ("dgdName", "componentName")}
    data = json.dumps(kept, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:32]


def operator_name(worker_hash: str) -> str:
    return "checkpoint-" + operator_id(NAMESPACE, DGD, OWNER_UID, COMPONENT, worker_hash)


def oracle_resolution(dgd: Path, checkpoints: Path) -> tuple[str, str]:
    """(worker hash, checkpointName of the decode worker) as the oracle resolves them."""
    out = subprocess.run(
        [str(ORACLE), "render", str(dgd), "--namespace", NAMESPACE, "--checkpoint",
         str(checkpoints), "--dgd-uid", OWNER_UID],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    worker_hash = re.search(r"^# worker-hash: (\S+)$", out, re.MULTILINE)
    names = set(re.findall(r"^\s+checkpointName: (\S+)$", out, re.MULTILINE))
    assert worker_hash is not None and len(names) == 1, out[-2000:]
    return worker_hash.group(1), names.pop()


def lint(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(cli, ["--no-config", "lint", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["findings"]


def ours(findings: list[dict[str, object]]) -> list[dict[str, object]]:
    return [f for f in findings if f["rule"] == RULE]


def value_at(path: Path, prefix: str, occurrence: int = 0) -> tuple[int, int]:
    """(line, column) of the value after `prefix` on its `occurrence`-th line."""
    hits = [
        (number, line.index(prefix) + len(prefix) + 1)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if prefix in line
    ]
    return hits[occurrence]


def copy_examples(tmp: Path, target: str, worker_hash: str = OLD_HASH) -> tuple[Path, Path]:
    """The example's committed `target` file (worker hash replaced) and its snapshot."""
    workload = tmp / f"{target}.yaml"
    text = (EXAMPLES / "rendered" / "llama-disagg-v1beta1" / f"{target}.yaml").read_text()
    workload.write_text(text.replace(OLD_HASH, worker_hash))
    snapshot = tmp / "snapshots" / SNAPSHOT.name
    snapshot.parent.mkdir()
    shutil.copy(SNAPSHOT, snapshot)
    return workload, snapshot


@needs_oracle
def test_the_operator_rule_names_the_example_snapshot() -> None:
    """The rule restated here is the oracle's: it resolves the example snapshot's name."""
    worker_hash, name = oracle_resolution(
        EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml", EXAMPLES / "snapshots"
    )
    assert worker_hash == OLD_HASH
    assert name == operator_name(worker_hash) == SNAPSHOT.stem


def test_the_examples_are_ones_the_operator_resolves() -> None:
    rendered = EXAMPLES / "rendered"
    code, findings = lint(str(rendered), str(EXAMPLES / "snapshots"))
    assert (code, ours(findings)) == (0, [])


@pytest.mark.parametrize("target", ["dcd", "grove"])
def test_a_new_worker_hash_makes_the_snapshot_outdated(tmp_path: Path, target: str) -> None:
    workload, snapshot = copy_examples(tmp_path, target, NEW_HASH)
    code, findings = lint(str(workload), str(snapshot))
    wanted = operator_name(NEW_HASH)
    assert wanted != SNAPSHOT.stem
    found = ours(findings)
    # without --dgd a checkpointRef naming this snapshot cannot be ruled out: a warning
    # that says so (the --dgd tests below decide)
    assert code == 0
    assert [(f["file"], f["line"], f["column"], f["severity"]) for f in found] == [
        (str(workload), *value_at(workload, BINDING), "warning"),
        (str(snapshot), *value_at(snapshot, "  name: "), "warning"),
    ]
    assert all("lint with --dgd to decide" in str(f["message"]) for f in found)
    for f in found:
        message = str(f["message"])
        assert f"it looks for checkpoint {wanted}" in message
        assert f"uid {OWNER_UID}" in message and f"worker hash {NEW_HASH}" in message
        assert f"captured for worker hash {OLD_HASH}" in message
    assert f"restores from checkpoint {NAMESPACE}/{SNAPSHOT.stem}" in str(found[0]["message"])


def test_a_checkpoint_id_that_is_not_the_operators_is_refused(tmp_path: Path) -> None:
    workload, snapshot = copy_examples(tmp_path, "dcd")
    other = "0123456789abcdef0123456789abcdef"
    text = snapshot.read_text()
    status_id = f'  checkpointID: "{SNAPSHOT.stem.removeprefix("checkpoint-")}"'
    assert text.count(status_id) == 1
    snapshot.write_text(text.replace(status_id, f'  checkpointID: "{other}"'))
    code, findings = lint(str(workload), str(snapshot))
    found = ours(findings)
    assert code == 0  # without --dgd: a warning (see above)
    assert [(f["file"], f["line"], f["column"]) for f in found] == [
        (str(workload), *value_at(workload, BINDING)),
        (str(snapshot), *value_at(snapshot, "  checkpointID: ")),
    ]
    expected = operator_id(NAMESPACE, DGD, OWNER_UID, COMPONENT, OLD_HASH)
    for f in found:
        assert f"its checkpoint ID is {other}, not {expected}" in str(f["message"])


def test_without_an_owner_reference_the_check_says_it_could_not_run(tmp_path: Path) -> None:
    workload, snapshot = copy_examples(tmp_path, "dcd")
    lines = snapshot.read_text().splitlines(keepends=True)
    start = lines.index("  ownerReferences:\n")
    assert lines[start + 6].strip() == "blockOwnerDeletion: true"
    snapshot.write_text("".join(lines[:start] + lines[start + 7 :]))
    code, findings = lint(str(workload), str(snapshot))
    assert code == 0  # a warning: the binding itself is right
    assert [(f["file"], f["line"], f["column"], f["severity"]) for f in findings] == [
        (str(workload), *value_at(workload, BINDING), "warning")
    ]
    assert findings[0]["rule"] == RULE
    assert "could not check" in str(findings[0]["message"])
    assert "ownerReference" in str(findings[0]["message"])
    code, findings = lint(str(workload), str(snapshot), "--strict")
    assert code == 1 and [f["severity"] for f in ours(findings)] == ["error"]


def test_a_manual_checkpoint_is_not_checked(tmp_path: Path) -> None:
    workload, snapshot = copy_examples(tmp_path, "dcd", NEW_HASH)
    text = snapshot.read_text()
    for line in (
        '    nvidia.com/snapshot-checkpoint-id: "46333b366341a5dbfd4f63b83b7b9fc1"\n',
        '    nvidia.com/dynamo-auto-checkpoint: "true"\n',
    ):
        assert text.count(line) == 1
        text = text.replace(line, "")
    snapshot.write_text(text)
    _, findings = lint(str(workload), str(snapshot))
    assert ours(findings) == []


def _edited_dgd(tmp: Path, *, checkpoint_ref: str | None = None) -> Path:
    """The example v1beta1 DGD with the decode worker's spec changed (another worker hash)."""
    text = (EXAMPLES / "llama-disagg-v1beta1" / "dgd.yaml").read_text()
    args = '--is-decode-worker, --max-model-len, "8192"]'
    assert text.count(args) == 1
    text = text.replace(args, '--is-decode-worker, --max-model-len, "4096"]')
    if checkpoint_ref is not None:
        mode = "          mode: Auto\n"
        assert text.count(mode) == 1
        text = text.replace(mode, f"          checkpointRef: {checkpoint_ref}\n")
    dgd = tmp / "dgd.yaml"
    dgd.write_text(text)
    return dgd


@needs_oracle
def test_with_dgd_the_renders_worker_hash_decides(tmp_path: Path) -> None:
    """The committed DCD still carries the old worker hash; the DGD has moved on."""
    workload, snapshot = copy_examples(tmp_path, "dcd")
    dgd = _edited_dgd(tmp_path)
    worker_hash, wanted = oracle_resolution(dgd, snapshot.parent)
    assert worker_hash != OLD_HASH and wanted == operator_name(worker_hash)
    _, plain = lint(str(workload), str(snapshot))
    assert ours(plain) == []  # by its own labels the committed DCD is consistent
    code, findings = lint(str(workload), str(snapshot), "--dgd", str(dgd))
    found = ours(findings)
    assert code == 1
    assert [(f["file"], f["line"], f["column"]) for f in found] == [
        (str(workload), *value_at(workload, BINDING)),
        (str(snapshot), *value_at(snapshot, "  name: ")),
    ]
    for f in found:
        message = str(f["message"])
        assert f"it looks for checkpoint {wanted}" in message
        assert f"worker hash {worker_hash} (from a fresh render" in message


def test_with_dgd_a_checkpoint_ref_is_read_by_name(tmp_path: Path) -> None:
    """A component the DGD names by checkpointRef restores from that name, whatever it is."""
    workload, snapshot = copy_examples(tmp_path, "dcd")
    dgd = _edited_dgd(tmp_path, checkpoint_ref=SNAPSHOT.stem)
    _, findings = lint(str(workload), str(snapshot), "--dgd", str(dgd))
    assert ours(findings) == []


def test_the_rule_is_listed_and_explained() -> None:
    runner = CliRunner()
    listed = runner.invoke(cli, ["--no-config", "lint", "--list-rules"])
    assert listed.exit_code == 0 and RULE in listed.output
    explained = runner.invoke(cli, ["--no-config", "lint", "--explain", RULE])
    assert explained.exit_code == 0 and "DGDCheckpointID" in explained.output


def test_a_workload_without_its_worker_hash_label_is_not_passed(tmp_path: Path) -> None:
    workload, snapshot = copy_examples(tmp_path, "dcd")
    label = re.compile(rf"^ +nvidia\.com/dynamo-worker-hash: {OLD_HASH}\n", re.MULTILINE)
    text, removed = label.subn("", workload.read_text())
    assert removed == 4  # metadata and pod template, of the decode and the prefill worker
    workload.write_text(text)
    _, findings = lint(str(workload), str(snapshot))
    found = ours(findings)
    assert [(f["line"], f["column"], f["severity"]) for f in found] == [
        (*value_at(workload, BINDING), "warning")
    ]
    assert "nvidia.com/dynamo-worker-hash" in str(found[0]["message"])


def test_an_unreadable_checkpoint_id_is_not_passed(tmp_path: Path) -> None:
    """status of the wrong type: the ID cannot be read, so the check says it did not run."""
    workload, snapshot = copy_examples(tmp_path, "dcd")
    text = snapshot.read_text()
    snapshot.write_text(text[: text.index("\nstatus:\n")] + "\nstatus: garbage\n")
    code, findings = lint(str(workload), str(snapshot))
    found = ours(findings)
    assert code == 1  # the snapshot does not decode: other rules' errors
    assert [(f["line"], f["column"], f["severity"]) for f in found] == [
        (*value_at(workload, BINDING), "warning")
    ]
    assert "cannot be read" in str(found[0]["message"])


def test_the_snapshot_the_operator_reads_is_pointed_at_when_present(tmp_path: Path) -> None:
    """Both captures are committed; the workload still names the old one."""
    workload, snapshot = copy_examples(tmp_path, "dcd", NEW_HASH)
    wanted = operator_name(NEW_HASH)
    old_id = SNAPSHOT.stem.removeprefix("checkpoint-")
    fresh = snapshot.parent / f"{wanted}.yaml"
    text = SNAPSHOT.read_text().replace(old_id, wanted.removeprefix("checkpoint-"))
    fresh.write_text(text.replace(OLD_HASH, NEW_HASH))
    code, findings = lint(str(workload), str(snapshot.parent))
    found = ours(findings)
    assert code == 0  # without --dgd: a warning (see above)
    assert [(f["file"], f["line"]) for f in found] == [
        (str(workload), value_at(workload, BINDING)[0]),
        (str(snapshot), value_at(snapshot, "  name: ")[0]),
    ]
    assert f"that snapshot is at {fresh}:{value_at(fresh, '  name: ')[0]}" in str(
        found[0]["message"]
    )
