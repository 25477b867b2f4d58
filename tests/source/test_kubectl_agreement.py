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
safe_text = st.text(
    alphabet=st.characters(
        min_codepoint=0x20, max_codepoint=0x2FFF, exclude_categories=("Cs", "Cc", "Zl", "Zp")
    ),
    max_size=12,
)
ident = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
scalars = st.one_of(
    safe_text,
    st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(ident, inner, max_size=3)),
    max_leaves=8,
)


# --- YAML spellings ------------------------------------------------------------------------


def _yaml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, str):
        return _yaml_string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if "e" in repr(value) or "." in repr(value) else repr(value) + ".0"
    return str(value)


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


def _yaml_flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_flow(v) for v in value) + "]"
    return _yaml_scalar(value)


@st.composite
def objects(draw: st.DrawFn, number: int) -> dict[str, Any]:
    api_version, kind = draw(st.sampled_from(KINDS))
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": f"o{number}"},
    }
    if draw(st.booleans()):
        obj["metadata"]["annotations"] = draw(st.dictionaries(ident, safe_text, max_size=2))
    obj["data"] = draw(st.dictionaries(ident, values, max_size=4))
    return obj


@st.composite
def yaml_documents(draw: st.DrawFn, objs: list[dict[str, Any]]) -> str:
    """One YAML document: block or flow, with a spelled scalar, comments, an optional
    tab before a comment after a flow `host:port`."""
    obj = objs[0]
    step = draw(st.sampled_from([2, 4]))
    lines = _yaml_block(obj, 0, step) if draw(st.booleans()) else [_yaml_flow(obj)]
    extras = []
    if lines[0].startswith("{"):
        pass
    else:
        if draw(st.booleans()):
            extras.append(f"spelled: {draw(st.sampled_from(SPELLED))}")
        if draw(st.booleans()):
            extras.append("ports: [host:8080, db:5432]")
            if draw(st.booleans()):
                extras.append("note:\t# a tab before a comment")
                extras.append("  inner: x")
        if draw(st.booleans()):
            extras.append("# {{ .Values.image }} in a comment")
    return "\n".join([*lines, *extras]) + "\n"


@st.composite
def wrapped(draw: st.DrawFn, first: int) -> tuple[list[dict[str, Any]], str]:
    """Objects as kubectl sees them, and the document(s) holding them: plain, in a
    `kind: List`, in a `<Kind>List` (items without kind), or under `items:` of another
    object."""
    count = draw(st.integers(1, 3))
    objs = [draw(objects(first + n)) for n in range(count)]
    form = draw(st.sampled_from(["plain", "List", "KindList", "items"]))
    if form == "plain":
        docs = [draw(yaml_documents([o])) for o in objs]
        return objs, "\n---\n".join(docs)
    if form == "KindList":
        api_version, kind = objs[0]["apiVersion"], objs[0]["kind"]
        for obj in objs:
            obj["apiVersion"], obj["kind"] = api_version, kind
        items = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in objs]
        holder: dict[str, Any] = {"apiVersion": api_version, "kind": kind + "List"}
    elif form == "List":
        holder = {"apiVersion": "v1", "kind": "List"}
        items = objs
    else:
        holder = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "holder"}}
        items = objs
    holder["items"] = items
    return objs, draw(yaml_documents([holder]))


@st.composite
def yaml_files(draw: st.DrawFn, first: int) -> bytes:
    parts = []
    number = first
    for _ in range(draw(st.integers(1, 3))):
        objs, text = draw(wrapped(number))
        number += len(objs)
        parts.append(text)
    separator = draw(st.sampled_from(["---\n", "--- # next\n", "---\t\n", "---#c\n", "---  \n"]))
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "# only a comment\n")
    text = separator.join(p if p.endswith("\n") else p + "\n" for p in parts)
    if draw(st.booleans()):
        text = "---\n" + text
    if draw(st.booleans()):
        text += "...\nnot: [parsed\n"  # go-yaml reads the first document only
    if draw(st.booleans()):
        text = text.removesuffix("\n")
    breaks = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    if breaks == "\r\n":
        text = text.replace("\n", "\r\n")
    elif breaks == "\r":  # one line to kubectl: `---` lines there are YAML's only
        text = text.replace("\n", "\r")
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16"]))
    return text.encode(encoding)


@st.composite
def json_files(draw: st.DrawFn, first: int) -> bytes:
    count = draw(st.integers(1, 3))
    objs = [draw(objects(first + n)) for n in range(count)]
    if draw(st.booleans()):
        for obj in objs:
            obj["data"]["odd"] = draw(
                st.sampled_from(["\x7f", "\x85\x9f", "a/b", "\U0001f600", "@LONE@", "\ufffe"])
            )
    if draw(st.booleans()):
        objs = [{"apiVersion": "v1", "kind": "List", "items": objs}]
    ascii_only = draw(st.booleans())
    indent = draw(st.sampled_from([None, 2, "\t"]))
    texts = [json.dumps(o, ensure_ascii=ascii_only, indent=indent) for o in objs]
    joiner = draw(st.sampled_from(["\n", "", " ", "\r\n\n"]))
    text = draw(st.sampled_from(["", " ", "\n\n"])) + joiner.join(texts)
    if draw(st.booleans()):
        text += "\nnull"
    text = text.replace("@LONE@", "\\udc80" if ascii_only else "\\ud83d\\ude00")
    if draw(st.booleans()):
        text = text.replace("/", "\\/")
    return text.encode("utf-8")


@st.composite
def folders(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """(relative path, bytes) of a folder of files kubectl accepts, and ignored ones."""
    files: list[tuple[str, bytes]] = []
    number = 0
    for index in range(draw(st.integers(35, 60))):
        folder = draw(st.sampled_from(["", "a/", "a/b/", ".hidden/", "z/deep/er/"]))
        if draw(st.integers(0, 3)) == 0:
            data = draw(json_files(number))
            suffix = ".json"
        else:
            data = draw(yaml_files(number))
            suffix = draw(st.sampled_from([".yaml", ".yml"]))
        number += 20
        files.append((f"{folder}f{index:03d}{suffix}", data))
    for index in range(draw(st.integers(0, 3))):
        files.append((f"ignored{index}.{draw(st.sampled_from(['txt', 'YAML', 'yaml~']))}", b"{"))
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
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(folders())
def test_lint_reads_what_kubectl_sends(files: list[tuple[str, bytes]]) -> None:
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
