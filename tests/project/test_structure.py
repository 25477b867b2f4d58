"""The package's shape: no import cycle in renderer/, and each shared fact defined once.

Imports are read statically with `ast`, including the lazy ones inside functions (they
run too, only later); imports under `if TYPE_CHECKING:` never run and are left out.
Importing `a.b.c` first runs the package `a.b`, so that counts as an import of `a.b`
too, unless the importer is inside `a.b` itself (Python initialises it first then).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from paths import REPO

PACKAGE = REPO / "renderer"

# Modules allowed to keep their own copy of a shared fact while a replacement is under way
# (none now: the operator emulation replaced the render and model copies). A test below
# fails when an entry no longer has a copy, so the list only shrinks.
PENDING: frozenset[str] = frozenset()

# The operator's vocabulary: the tool's keys and constants re-export it, and the port reads
# it. It imports nothing of renderer (nor does its package's __init__), so it cannot close a
# cycle: it is a node of its own rather than part of renderer.operator.
VOCABULARY = frozenset({"renderer.operator.consts"})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth (functions included)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for branch in child.orelse:
                yield from _run_time_imports(ast.Module(body=[branch], type_ignores=[]))
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        else:
            yield from _run_time_imports(child)


def _imported(name: str, path: Path) -> set[str]:
    """The renderer modules `name` imports (by the rule in the module docstring)."""
    modules = _modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _run_time_imports(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        for alias in node.names:  # `from a import b` may import the module a.b
            full = f"{base}.{alias.name}"
            targets.add(full if full in modules else base)
    found: set[str] = set()
    for imported in targets:
        if imported != "renderer" and not imported.startswith("renderer."):
            continue
        target = imported
        while target not in modules:  # a name inside a module, or a namespace package
            target = target.rpartition(".")[0]
        found.add(target)
        if target in VOCABULARY:  # its package runs first, but imports nothing (tested)
            continue
        parts = target.split(".")
        for size in range(2, len(parts)):
            parent = ".".join(parts[:size])
            inside = name == parent or name.startswith(parent + ".")
            if parent in modules and not inside:
                found.add(parent)
    found.discard(name)
    return found


def _module_graph() -> dict[str, set[str]]:
    return {name: _imported(name, path) for name, path in _modules().items()}


def _package_of(name: str) -> str:
    """renderer.<subpackage> for modules inside one, else the top-level module itself."""
    if name in VOCABULARY:
        return name
    parts = name.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return name


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, targets in _module_graph().items():
        own = _package_of(name)
        graph.setdefault(own, set()).update(
            _package_of(t) for t in targets if _package_of(t) != own
        )
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_graph_sees_lazy_imports() -> None:
    # guards the walker itself: these edges exist only inside functions
    graph = _module_graph()
    assert "renderer.config" in graph["renderer.cli"]
    assert "renderer.commands.render_config" in graph["renderer.commands.render"]
    assert "renderer.fix" in graph["renderer.pipeline.lint"]
    # and a TYPE_CHECKING-only import is not an edge
    assert "renderer.lint.checks" not in graph["renderer.lint.context"]


def test_cycles_are_found() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# Two files of one Go file's translation, split for length, that call each other lazily (the
# Go side is one file of one package, where this is no cycle): listed exactly, so a new
# cycle anywhere fails.
SPLIT_GO_FILES = [
    ["renderer.operator.dcd_alpha", "renderer.operator.dcd_alpha_restore"],
]


def test_no_module_imports_one_that_imports_it_back() -> None:
    # in any order: the walk's order follows the package layout, not the cycles' meaning
    assert sorted(_cycles(_module_graph())) == sorted(SPLIT_GO_FILES)


def test_no_package_imports_one_that_imports_it_back() -> None:
    assert _cycles(_package_graph()) == []


@pytest.mark.parametrize("name", sorted(VOCABULARY))
def test_the_vocabulary_imports_nothing_of_renderer(name: str) -> None:
    graph = _module_graph()
    package = name.rpartition(".")[0]
    assert graph[name] == set()
    assert graph[package] == set()


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def _private_imports(name: str, path: Path, source: str) -> Iterator[str]:
    """`importer: module.name` for each private name (or a name in a private module) that
    module `name` (file `path`, text `source`) imports from another package; imports
    under TYPE_CHECKING count too."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found = [(alias.name, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found = [(base, f"{base}.{alias.name}") for alias in node.names]
        else:
            continue
        for module, full in found:
            if not full.startswith("renderer.") or not _private(full.removeprefix("renderer.")):
                continue
            if _package_of(module) != _package_of(name):
                yield f"{name}: {full}"


def test_the_private_import_check_sees_one() -> None:
    # guards the walker: a private name across packages, a relative one, a private module
    source = (
        "from renderer.render import _admit\n"
        "from ..render import locate, _namespace\n"
        "from renderer.lint.rules import _mismatch\n"
    )
    found = list(_private_imports("renderer.lint.probe", PACKAGE / "lint" / "probe.py", source))
    assert found == [
        "renderer.lint.probe: renderer.render._admit",
        "renderer.lint.probe: renderer.render._namespace",
    ]


def test_no_package_imports_a_private_name_of_another() -> None:
    """A leading underscore is private to its package (renderer.<package>): what another
    package needs is given a public name there."""
    found = [
        hit
        for name, path in _modules().items()
        for hit in _private_imports(name, path, path.read_text("utf-8"))
    ]
    assert found == []


# --- each fact defined once -------------------------------------------------------------

KIND_NAMES = frozenset(
    {"DynamoGraphDeployment", "DynamoComponentDeployment", "PodCliqueSet", "DynamoCheckpoint"}
)
SHARED_OPTIONS = frozenset({"--trusted-key", "--crd", "--max-bytes"})
HOMES = {
    "kind name": "renderer/operator/consts.py",
    "GMS mode": "renderer/operator/consts.py",
    "render targets": "renderer/constants.py",
    "exit code": "renderer/constants.py",
    "size cap": "renderer/constants.py",
    "shared option": "renderer/commands/options.py",
    "Literal Severity": "renderer/lint/finding.py",
    "Literal FixOp": "renderer/lint/finding.py",
    "Literal Target": "renderer/constants.py",
    "Literal GmsMode": "renderer/constants.py",
}
LITERAL_TYPES = ("Severity", "FixOp", "Target", "GmsMode")
OPERATOR_CONSTS = "renderer/operator/consts.py"
# A key or apiVersion of the operator's domains (nvidia.com, grove.io): a label, annotation,
# resource name or group/version (or a prefix of one).
_KUBE_KEY = re.compile(r"(?:[a-z0-9-]+\.)*(?:nvidia\.com|grove\.io)/[A-Za-z0-9_.-]*\Z")
# The tool's own keys (its contract, not the operator's): defined once, in keys.py.
TOOL_KEYS = frozenset(
    {"nvidia.com/dynamo-checkpoint-binding", "nvidia.com/dynamo-checkpoint-bindings"}
)


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _literal_type_members(tree: ast.AST) -> set[int]:
    """The strings of `Literal[...]` types: a type spells its values (checked as "Literal
    ..." facts and by mypy against the constants), it does not define them again."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        if isinstance(node.value, ast.Name) and node.value.id == "Literal":
            ids.update(id(n) for n in ast.walk(node.slice) if isinstance(n, ast.Constant))
    return ids


def _value(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = _value(node.left), _value(node.right)
            if isinstance(left, int) and isinstance(right, int):
                return left * right
        return None


def _facts(path: Path) -> Iterator[str]:
    """One entry per definition of a shared fact found in `path`."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = _docstrings(tree) | _literal_type_members(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value in KIND_NAMES:
                yield "kind name"
            if node.value in ("intraPod", "interPod"):
                yield "GMS mode"
            # "grove" is the operator's word (workload provider, a Go JSON field name) that
            # --target reuses; "dcd" is the tool's own.
            if node.value == "dcd":
                yield "render targets"
            if _KUBE_KEY.match(node.value) and node.value not in TOOL_KEYS:
                yield f"operator key {node.value}"
            if node.value in SHARED_OPTIONS:
                yield "shared option"
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            value = _value(node.value) if node.value is not None else None
            if any(n.startswith("EXIT_") for n in names) and isinstance(value, int):
                yield "exit code"
            if value == 16 * 1024 * 1024:
                yield "size cap"
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
                literal = node.value.value
                if isinstance(literal, ast.Name) and literal.id == "Literal":
                    yield from (f"Literal {n}" for n in names if n in LITERAL_TYPES)


@cache
def _definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(REPO).as_posix()
        for fact in _facts(path):
            if where not in found.setdefault(fact, []):
                found[fact].append(where)
    return found


@pytest.mark.parametrize("fact", sorted(HOMES))
def test_each_fact_is_defined_in_one_place(fact: str) -> None:
    places = [p for p in _definitions().get(fact, []) if p not in PENDING]
    assert places == [HOMES[fact]]


def test_each_operator_key_is_spelled_once_in_the_operator_constants() -> None:
    # A label, annotation, resource or apiVersion string of the operator is written once,
    # in renderer/operator/consts.py; keys.py, constants.py and every module import it.
    keys = {f: p for f, p in _definitions().items() if f.startswith("operator key ")}
    assert len(keys) > 40
    spelled_elsewhere = {
        f: [w for w in p if w != OPERATOR_CONSTS] for f, p in keys.items() if p != [OPERATOR_CONSTS]
    }
    assert spelled_elsewhere == {}


def test_the_key_pattern_sees_the_operator_keys() -> None:
    assert _KUBE_KEY.match("nvidia.com/snapshot-checkpoint-id")
    assert _KUBE_KEY.match("grove.io/v1alpha1")
    assert _KUBE_KEY.match("nvidia.com/dgd-")
    assert _KUBE_KEY.match("dynamo.nvidia.com/gpu-power-limit")
    assert not _KUBE_KEY.match("kubectl.kubernetes.io/last-applied-configuration")
    assert not _KUBE_KEY.match("/root/.cache/vllm")
    assert not _KUBE_KEY.match("spec.components")


def test_the_pending_copies_are_still_there() -> None:
    # When render/ or model/ stop defining their own copy, drop them from PENDING so a
    # new copy there is caught too.
    holders = {p for places in _definitions().values() for p in places}
    assert sorted(PENDING - holders) == []


@pytest.mark.parametrize("name", ["binding", "lint", "render", "snapshot"])
def test_every_command_has_the_one_execute_shape(name: str) -> None:
    import importlib
    import inspect
    import typing

    from renderer.cli import COMMANDS

    module = importlib.import_module(COMMANDS[name][0])
    signature = inspect.signature(module.execute)
    assert list(signature.parameters) == ["args", "out", "err"]
    hints = typing.get_type_hints(module.execute)
    assert hints["out"] is typing.TextIO
    assert hints["err"] is typing.TextIO
    assert hints["return"] is int
