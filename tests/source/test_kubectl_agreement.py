"""Differential test: the objects lint reads are the objects `kubectl apply -f` sends.

Runs against the real kubectl through `../shared/kubectl-oracle/` (see kubectl_support;
skipped with the reason where kubectl, unshare or root is missing). Hypothesis generates
folders of files: objects of the kinds lint checks and others, spelled in YAML (scalar
spellings, quoting styles, comments with `{{`, `---` lines with comments, `...` ends,
CR LF and CR line breaks, byte order marks, UTF-16, a tab before a comment after a flow
`host:port`) and in JSON (compact or indented, JSON Lines or back to back, `\\/`
escapes, surrogate-pair and lone-surrogate escapes, raw DEL and C1 characters), wrapped
in lists (`kind: List`, `<Kind>List` whose items take their kind from it, any object with
`items`), in folders with `.json`, `.yaml`, `.yml` and ignored files, and a chart's
`templates/` folder.

Files kubectl accepts are checked in batches (one oracle call per folder: kubectl stops
at the first file it refuses), against both readings lint uses (all paths at once, and
file by file as a split run does), with and without lint's kind filter (its pre-scan):
the same objects in the same order, and no file skipped. Files kubectl refuses are
checked one by one: lint must refuse them too (an input error) or skip them. Every run
checks more than a thousand generated files (derandomized: the same files each run).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubectl_support import compare, kubectl_objects, normalise, unavailable

from renderer.errors import InputError
from renderer.lint.engine import LINT_KINDS
from renderer.source.files import read_objects

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

BATCHES = 24  # folders of accepted files per run (each ~50 files: > 1,000 files)
REFUSED = 16  # files kubectl refuses, each run alone

KINDS = [
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("nvidia.com/v1alpha1", "DynamoComponentDeployment"),
    ("nvidia.com/v1beta1", "DynamoComponentDeployment"),
    ("grove.io/v1alpha1", "PodCliqueSet"),
    ("nvidia.com/v1alpha1", "DynamoCheckpoint"),
]
# YAML spellings of scalars (kubectl decides what each means)
SPELLED = [
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "~",
    "null",
    "true",
    "0x1F",
    "0o17",
    "017",
    "1_000",
    "-0",
    "+12",
    ".5",
    "1e3",
    "-1.5e-3",
    "2025-01-01",
    "2025-01-01T10:00:00Z",
    "'it''s'",
    '"tab\\there"',
    '"\\u00e9\\U0001F600"',
    '"a\\x41"',
    "!!str 12",
    '!!int "7"',
    "!!float 3",
    "!!binary aGVsbG8=",
    "! plain",
    "'{{ not a template }}'",
    '"\\\'"',
]
# characters strings are made of: ASCII, Latin-1, quotes and escapes' material, `{{`,
# symbols beyond the BMP, DEL and C1 (JSON only: YAML refuses them)
TEXT = "ab Z09_-./:#'\"\\{}[],&*!|>%@`éß中\u2028\U0001f680"
RAW = "\x7f\x85\x9f"


def _text(rnd: random.Random, raw: bool = False) -> str:
    pool = TEXT + RAW if raw else TEXT
    return "".join(rnd.choice(pool) for _ in range(rnd.randrange(8)))


def _scalar(rnd: random.Random, raw: bool) -> Any:
    pick = rnd.randrange(6)
    if pick == 0:
        return _text(rnd, raw)
    if pick == 1:
        # past int64 (a uint64 to go-yaml, then beyond): kubectl sends a float64
        big = [1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 63) - 1]
        return rnd.choice(
            [0, -1, 7, 1 << 40, (1 << 63) - 1, -(1 << 63), rnd.randrange(10**6), *big]
        )
    if pick == 2:
        return rnd.choice([0.5, -2.25, 1e21, 1.5e-7, 3.0, -0.0, rnd.random()])
    if pick == 3:
        return rnd.random() < 0.5
    if pick == 4:
        return None
    return "s" + str(rnd.randrange(100))


def _value(rnd: random.Random, depth: int, raw: bool) -> Any:
    pick = rnd.randrange(5) if depth < 3 else 0
    if pick == 3:
        return [_value(rnd, depth + 1, raw) for _ in range(rnd.randrange(4))]
    if pick == 4:
        return {f"k{n}": _value(rnd, depth + 1, raw) for n in range(rnd.randrange(4))}
    return _scalar(rnd, raw)


def _object(rnd: random.Random, number: int, raw: bool = False) -> dict[str, Any]:
    api_version, kind = rnd.choice(KINDS)
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": f"o{number}"},
    }
    if rnd.random() < 0.5:
        obj["metadata"]["annotations"] = {f"a{n}": _text(rnd) for n in range(rnd.randrange(3))}
    obj["data"] = {f"d{n}": _value(rnd, 1, raw) for n in range(rnd.randrange(5))}
    return obj


# --- YAML spellings ------------------------------------------------------------------------


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML one
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return text if "e" in text or "." in text else text + ".0"
    return str(value)


def _yaml_flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_flow(v) for v in value) + "]"
    return _yaml_scalar(value)


def _yaml_block(value: Any, indent: int, step: int) -> list[str]:
    """Lines (without breaks) of `value` as a block collection at `indent`."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{key}:")
                lines.extend(_yaml_block(item, indent + step, step))
            else:
                lines.append(f"{pad}{key}: {_yaml_flow(item)}")
    else:
        for item in value:
            if isinstance(item, dict | list) and item:
                inner = _yaml_block(item, indent + 2, step)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            else:
                lines.append(f"{pad}- {_yaml_flow(item)}")
    return lines


def _yaml_document(rnd: random.Random, obj: dict[str, Any]) -> str:
    """One YAML document, block or flow, with spelled scalars, comments holding `{{`, a
    tab before a comment after a flow `host:port` (the pure-Python parser's case)."""
    if rnd.random() < 0.2:  # (after a comment: a file starting with `{` is JSON)
        return "# flow\n" + _yaml_flow(obj) + "\n"
    lines = _yaml_block(obj, 0, rnd.choice([2, 4]))
    if rnd.random() < 0.5:
        lines.append(f"spelled: {rnd.choice(SPELLED)}")
    if rnd.random() < 0.3:
        lines.append("ports: [host:8080, db:5432]")
        if rnd.random() < 0.5:
            lines += ["note:\t# a tab before a comment", "  inner: x"]
    if rnd.random() < 0.3:
        lines.insert(rnd.randrange(len(lines) + 1), "# {{ .Values.image }} in a comment")
    return "\n".join(lines) + "\n"


def _wrapped(rnd: random.Random, first: int) -> tuple[int, str]:
    """(objects kubectl sends, YAML of them): plain documents, a `kind: List`, a
    `<Kind>List` whose items have no kind, or `items:` of another object."""
    count = rnd.randrange(1, 4)
    objs = [_object(rnd, first + n) for n in range(count)]
    form = rnd.choice(["plain", "plain", "List", "KindList", "items"])
    if form == "plain":
        return count, "---\n".join(_yaml_document(rnd, o) for o in objs)
    holder: dict[str, Any]
    if form == "KindList":
        api_version, kind = objs[0]["apiVersion"], objs[0]["kind"]
        items = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in objs]
        holder = {"apiVersion": api_version, "kind": kind + "List", "items": items}
    elif form == "List":
        holder = {"apiVersion": "v1", "kind": "List", "items": objs}
    else:
        holder = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "h"}}
        holder["items"] = objs
    return count, _yaml_document(rnd, holder)


def _yaml_file(rnd: random.Random, first: int) -> bytes:
    parts = []
    number = first
    for _ in range(rnd.randrange(1, 4)):
        count, text = _wrapped(rnd, number)
        number += count
        parts.append(text)
    if rnd.random() < 0.3:  # (not last: `...` after it would end an empty document)
        parts.insert(rnd.randrange(len(parts)), "# only a comment\n")
    breaks = rnd.choice(["\n", "\n", "\n", "\r\n", "\r"])
    separators = ["---\n", "--- # next\n", "---\t\n", "---  \n"]
    if breaks != "\r":  # (with CR alone, `---#c` is text to go-yaml, not a marker)
        separators.append("---#c\n")
    text = rnd.choice(separators).join(parts)
    if breaks != "\r":  # (CR alone: the file is one line to kubectl, starting with it)
        if rnd.random() < 0.3:
            text = "---\n" + text
        if rnd.random() < 0.2:
            text += "...\nnot: [parsed\n"  # go-yaml reads the first document only
    if rnd.random() < 0.2:
        text = text.removesuffix("\n")
    if breaks != "\n":  # CR alone: kubectl's `---` lines are then YAML's markers only
        text = text.replace("\n", breaks)
    return text.encode(rnd.choice(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16"]))


def _json_file(rnd: random.Random, first: int) -> bytes:
    objs = [_object(rnd, first + n, raw=True) for n in range(rnd.randrange(1, 4))]
    if rnd.random() < 0.3:
        for obj in objs:
            obj["data"]["odd"] = rnd.choice(["a/b", "\U0001f680", "@LONE@", "\ufffe"])
    if rnd.random() < 0.3:
        objs = [{"apiVersion": "v1", "kind": "List", "items": objs}]
    ascii_only = rnd.random() < 0.5
    indent = rnd.choice([None, 2, "\t"])
    texts = [json.dumps(o, ensure_ascii=ascii_only, indent=indent) for o in objs]
    text = rnd.choice(["", " ", "\n\n"]) + rnd.choice(["\n", "", " ", "\r\n\n"]).join(texts)
    if rnd.random() < 0.2:
        text += "\nnull"
    text = text.replace("@LONE@", "\\udc80" if ascii_only else "\\ud83d\\ude00")
    if rnd.random() < 0.3:
        text = text.replace("/", "\\/")
    return text.encode("utf-8")


def folder(seed: int) -> list[tuple[str, bytes]]:
    """(relative path, bytes) of a folder of about 50 files kubectl accepts, and a few it
    ignores (other extensions), generated from `seed`."""
    rnd = random.Random(seed)
    files: list[tuple[str, bytes]] = []
    for index in range(rnd.randrange(40, 60)):
        where = rnd.choice(["", "a/", "a/b/", ".hidden/", "z/deep/er/"])
        if rnd.random() < 0.25:
            files.append((f"{where}f{index:03d}.json", _json_file(rnd, index * 20)))
        else:
            suffix = rnd.choice([".yaml", ".yml"])
            files.append((f"{where}f{index:03d}{suffix}", _yaml_file(rnd, index * 20)))
    for index in range(rnd.randrange(4)):
        files.append((f"ignored{index}.{rnd.choice(['txt', 'YAML', 'yaml~'])}", b"{"))
    return files


def _read_all(
    paths: list[Path],
) -> list[tuple[str, list[dict[str, Any]], list[str]]]:
    """Our readings: (how, objects, skipped files) for each way lint reads."""
    readings = []
    for per_file in (False, True):
        for kinds in (None, LINT_KINDS):
            found, skipped = read_objects([str(p) for p in paths], kinds=kinds, per_file=per_file)
            readings.append((f"per_file={per_file} kinds={kinds is not None}", found, skipped))
    return readings


def _write(root: Path, files: list[tuple[str, bytes]]) -> None:
    for relative, data in files:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


COUNTED: list[int] = []


@settings(
    max_examples=BATCHES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(0, 2**32))
def test_lint_reads_what_kubectl_sends(seed: int) -> None:
    files = folder(seed)  # (hypothesis picks the seed: a failure names it)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        _write(root, files)
        status, sent, stderr = kubectl_objects([root])
        assert status == 0, stderr  # every generated file is one kubectl accepts
        for how, found, skipped in _read_all([root]):
            assert skipped == [], (how, skipped)
            if "kinds=True" in how:
                wanted = [o for o in sent if o.get("kind") in LINT_KINDS]
                compare(wanted, found)
            else:
                compare(sent, found)
    COUNTED.append(len(files))


REFUSED_FORMS = [
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- !!map\nb: 1\n",
    b"%TAG ! tag:yaml.org,2002:\n---\napiVersion: v1\nkind: !binary Q29uZmlnTWFw\n",
    b"%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n----\n",
    b"\xc2\xa0{}",
    b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}} x',
    b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "x": 1e400}',
    b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}\n---\n{}',
    b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nitems: {a: 1}\n",
    b"apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n",
    b"apiVersion: v1\nkind: List\nitems:\n- 5\n",
    b"replicas: 3\nimage: x\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
    b"[1, 2]\n",
    b"apiVersion: v1\nkind: ConfigMap\ndata: {a: \x7f}\n",
]


@settings(max_examples=REFUSED, deadline=None, derandomize=True)
@given(st.sampled_from(REFUSED_FORMS), st.sampled_from([".yaml", ".json"]))
def test_what_kubectl_refuses_lint_refuses_or_skips(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"refused{suffix}"
        path.write_bytes(data)
        status, _, stderr = kubectl_objects([path])
        assert status != 0, "kubectl applied it"
        for per_file in (False, True):
            try:
                _, skipped = read_objects([str(path)], per_file=per_file)
            except InputError:
                continue
            assert skipped == [str(path)], stderr


def test_more_than_a_thousand_files_were_compared() -> None:
    """(runs after the batches, in file order) the run checked enough files."""
    if not COUNTED:
        pytest.skip("the batches did not run (selected alone)")
    assert sum(COUNTED) >= 1000, sum(COUNTED)


def test_chart_templates_kubectl_accepts_are_read(tmp_path: Path) -> None:
    """A file in a chart's `templates/` folder that kubectl applies is read (it used to
    be skipped unread); the chart's own Chart.yaml is not a manifest (kubectl refuses
    it), so the oracle is asked about the templates folder."""
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "dcd.yaml").write_text(
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoComponentDeployment\n"
        "metadata: {name: plain}\nspec: {replicas: 1}\n"
    )
    status, sent, stderr = kubectl_objects([chart / "templates"])
    assert status == 0, stderr
    found, skipped = read_objects([str(chart / "templates")])
    assert skipped == []
    compare(sent, found)
    assert [normalise(o, None)["kind"] for o in sent] == ["DynamoComponentDeployment"]
