#!/usr/bin/env python3
"""Generate renderer/data/dgd-types.json: the Go struct table of both DGD API versions.

The table lists every struct type Go's ``encoding/json`` walks when it decodes or encodes
a ``nvidia.com/v1alpha1`` or ``nvidia.com/v1beta1`` DynamoGraphDeployment, with its JSON
fields in declaration order, their tag options and a type descriptor (the format of
renderer/data/binding-types-k8s-v0.36.2.json: ``kind``
string/bool/int32/int64/float64/ptr/slice/map/struct, ``name``, ``elem``, ``key``,
``marshaler`` for types with their own JSON methods).
Embedded structs without a JSON name are inlined the way ``encoding/json`` does it.

It reads the Go sources at the versions the pinned operator's go.mod requires, from git
mirrors (``git show REV:PATH``), so the table can be regenerated:

    python scripts/gen_dgd_types.py \
        --dynamo DYNAMO_GIT_DIR --k8s-api K8S_API_GIT_DIR \
        --apimachinery APIMACHINERY_GIT_DIR --giex GIEX_GIT_DIR [-o renderer/data/dgd-types.json]

The parser understands the subset of Go the API type files use (struct declarations,
named types over builtin kinds, maps, slices, pointers, qualified names); anything else
it meets on a reachable path stops generation with a message.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

DYNAMO_REV = "2a6da14c83617f5412caba5777dbf0e2399e9c5f"
K8S_REV = "v0.36.2"
GIEX_REV = "v1.2.0"
OP = "github.com/ai-dynamo/dynamo/deploy/operator"

# package path -> (repository key, revision, directory, file name filter)
PACKAGES: dict[str, tuple[str, str, str]] = {
    f"{OP}/api/v1alpha1": ("dynamo", DYNAMO_REV, "deploy/operator/api/v1alpha1"),
    f"{OP}/api/v1beta1": ("dynamo", DYNAMO_REV, "deploy/operator/api/v1beta1"),
    "k8s.io/api/core/v1": ("k8s-api", K8S_REV, "core/v1"),
    "k8s.io/api/autoscaling/v2": ("k8s-api", K8S_REV, "autoscaling/v2"),
    "k8s.io/apimachinery/pkg/apis/meta/v1": ("apimachinery", K8S_REV, "pkg/apis/meta/v1"),
    "sigs.k8s.io/gateway-api-inference-extension/apix/config/v1alpha1": (
        "giex",
        GIEX_REV,
        "apix/config/v1alpha1",
    ),
}

# Types with their own MarshalJSON/UnmarshalJSON: not expanded.
SPECIAL: dict[str, str] = {
    "k8s.io/apimachinery/pkg/api/resource.Quantity": "quantity",
    "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "time",
    "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "time",
    "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "duration",
    "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": "raw",
    "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intorstring",
    "k8s.io/apimachinery/pkg/runtime.RawExtension": "raw",
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "raw",
    "encoding/json.RawMessage": "raw",
}
# Named types outside the parsed packages, by their underlying kind.
FOREIGN_BASIC: dict[str, str] = {
    "k8s.io/apimachinery/pkg/types.UID": "string",
}

BUILTIN = {
    "string": "string",
    "bool": "bool",
    "int32": "int32",
    "int64": "int64",
    "int": "int",
    "float64": "float64",
    "float32": "float32",
    "uint32": "uint32",
    "uint64": "uint64",
    "byte": "uint8",
}

ROOTS = {
    "v1alpha1": f"{OP}/api/v1alpha1.DynamoGraphDeployment",
    "v1beta1": f"{OP}/api/v1beta1.DynamoGraphDeployment",
}

_STRUCT_RE = re.compile(r"^type\s+(\w+)\s+struct\s*\{", re.M)
_NAMED_RE = re.compile(r"^type\s+(\w+)\s+(=\s*)?([^\s{][^\n]*?)\s*$", re.M)


class GenError(RuntimeError):
    """The sources hold something this generator does not understand."""


def git_show(git_dir: str, rev: str, path: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{rev}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def git_ls(git_dir: str, rev: str, path: str) -> list[str]:
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "--name-only", f"{rev}", f"{path}/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [p for p in out.split() if p.endswith(".go") and not p.endswith("_test.go")]


def strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def parse_imports(src: str) -> dict[str, str]:
    imports: dict[str, str] = {}
    block = re.search(r"^import\s*\((.*?)^\)", src, re.S | re.M)
    lines = block.group(1).splitlines() if block else []
    single = re.findall(r'^import\s+(\w+\s+)?"([^"]+)"', src, re.M)
    for alias, path in single:
        lines.append(f'{alias} "{path}"')
    for line in lines:
        m = re.match(r'\s*(\w+|_|\.)?\s*"([^"]+)"', line)
        if not m:
            continue
        alias, path = m.group(1), m.group(2)
        if alias is None:
            alias = path.rsplit("/", 1)[-1]
            if re.fullmatch(r"v\d+\w*", alias):
                alias = path.rsplit("/", 2)[-2] + alias  # unusual; explicit aliases are used
        imports[alias] = path
    return imports


class Package:
    def __init__(self, path: str) -> None:
        self.path = path
        self.structs: dict[str, tuple[str, dict[str, str]]] = {}  # name -> (body, imports)
        self.named: dict[str, tuple[str, dict[str, str]]] = {}

    def add_file(self, raw: str) -> None:
        imports = parse_imports(raw)
        src = strip_comments(raw)
        for m in _STRUCT_RE.finditer(src):
            start = m.end()
            depth, i = 1, start
            while depth:
                if src[i] == "{":
                    depth += 1
                elif src[i] == "}":
                    depth -= 1
                i += 1
            self.structs[m.group(1)] = (src[start : i - 1], imports)
        for m in _NAMED_RE.finditer(src):
            name, rhs = m.group(1), m.group(3)
            if rhs.startswith("struct") or rhs.startswith("interface"):
                continue
            self.named[name] = (rhs.strip(), imports)


class Generator:
    def __init__(self, packages: dict[str, Package]) -> None:
        self.packages = packages
        self.types: dict[str, Any] = {}

    def qualify(self, ref: str, pkg: str, imports: dict[str, str]) -> str:
        if "." in ref:
            alias, name = ref.split(".", 1)
            if alias not in imports:
                raise GenError(f"{pkg}: unknown import alias {alias!r} in {ref!r}")
            return f"{imports[alias]}.{name}"
        return f"{pkg}.{ref}"

    def descriptor(self, expr: str, pkg: str, imports: dict[str, str]) -> dict[str, Any]:
        expr = expr.strip()
        if expr.startswith("*"):
            return {"kind": "ptr", "elem": self.descriptor(expr[1:], pkg, imports)}
        if expr.startswith("[]"):
            return {"kind": "slice", "elem": self.descriptor(expr[2:], pkg, imports)}
        if expr.startswith("map["):
            depth, i = 1, 4
            while depth:
                if expr[i] == "[":
                    depth += 1
                elif expr[i] == "]":
                    depth -= 1
                i += 1
            key = self.descriptor(expr[4 : i - 1], pkg, imports)
            return {"kind": "map", "key": key, "elem": self.descriptor(expr[i:], pkg, imports)}
        if expr in BUILTIN:
            return {"kind": BUILTIN[expr]}
        if expr in ("any", "interface{}"):
            raise GenError(f"{pkg}: interface type on a reachable path")
        full = self.qualify(expr, pkg, imports)
        return self.named_descriptor(full)

    def named_descriptor(self, full: str) -> dict[str, Any]:
        if full in SPECIAL:
            return {"kind": "special", "name": full, "marshaler": SPECIAL[full]}
        if full in FOREIGN_BASIC:
            return {"kind": FOREIGN_BASIC[full], "name": full}
        pkg, name = full.rsplit(".", 1)
        if pkg not in self.packages:
            raise GenError(f"type {full} is outside the parsed packages")
        package = self.packages[pkg]
        if name in package.structs:
            self.walk_struct(full)
            return {"kind": "struct", "name": full}
        if name in package.named:
            rhs, imports = package.named[name]
            under = self.descriptor(rhs, pkg, imports)
            if under["kind"] in ("struct", "special"):
                raise GenError(f"{full}: named struct types over structs are not handled")
            out = dict(under)
            out["name"] = full
            return out
        raise GenError(f"type {full} not found")

    def walk_struct(self, full: str) -> None:
        if full in self.types:
            return
        self.types[full] = None  # recursion guard
        pkg, name = full.rsplit(".", 1)
        body, imports = self.packages[pkg].structs[name]
        fields: list[dict[str, Any]] = []
        for raw_line in body.splitlines():
            line = raw_line.strip()
            if not line:
                continue
            m = re.match(r"^(\w+)?\s*([^`]+?)\s*(`[^`]*`)?$", line)
            if not m:
                raise GenError(f"{full}: cannot parse field line {line!r}")
            tag = m.group(3) or ""
            parts = line.split("`")[0].split()
            if len(parts) == 1:
                gname, texpr, embedded = parts[0].lstrip("*").split(".")[-1], parts[0], True
            elif len(parts) == 2:
                gname, texpr, embedded = parts[0], parts[1], False
            else:
                raise GenError(f"{full}: cannot parse field line {line!r}")
            json_tag = re.search(r'json:"([^"]*)"', tag)
            tag_text = json_tag.group(1) if json_tag else ""
            if tag_text == "-":
                continue
            jname, *opts = tag_text.split(",")
            if not gname[0].isupper():
                continue
            if embedded and not jname:
                inner = self.descriptor(texpr, pkg, imports)
                through_ptr = inner["kind"] == "ptr"
                if through_ptr:
                    # Go allocates the pointer when it decodes one of its fields and
                    # skips all of them when it is nil (ExtraPodSpec's *PodSpec).
                    inner = inner["elem"]
                if inner["kind"] != "struct":
                    raise GenError(f"{full}: embedded non-struct {texpr} not handled")
                self.walk_struct(inner["name"])
                for f in self.types[inner["name"]]["fields"]:
                    g = dict(f)
                    g["via"] = [gname, *f.get("via", [])]
                    if through_ptr:
                        g["viaPtr"] = [gname, *f.get("viaPtr", [])]
                    fields.append(g)
                continue
            if "string" in opts:
                raise GenError(f"{full}.{gname}: ,string option not handled")
            fields.append(
                {
                    "json": jname or gname,
                    "go": gname,
                    "omitempty": "omitempty" in opts,
                    "omitzero": "omitzero" in opts,
                    "type": self.descriptor(texpr, pkg, imports),
                }
            )
        names = [f["json"] for f in fields]
        if len(set(names)) != len(names):
            raise GenError(f"{full}: duplicate JSON names after inlining {names}")
        self.types[full] = {"fields": fields}


def render(table: dict[str, Any]) -> str:
    """Compact JSON, one struct type per line, so a regeneration diffs by type."""
    compact = {"separators": (",", ":")}
    lines = ["{"]
    lines.append(f'"source":{json.dumps(table["source"], **compact)},')  # type: ignore[arg-type]
    lines.append(f'"roots":{json.dumps(table["roots"], **compact)},')  # type: ignore[arg-type]
    lines.append('"types":{')
    items = list(table["types"].items())
    for i, (name, entry) in enumerate(items):
        sep = "," if i < len(items) - 1 else ""
        lines.append(f"{json.dumps(name)}:{json.dumps(entry, **compact)}{sep}")  # type: ignore[arg-type]
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dynamo", required=True)
    ap.add_argument("--k8s-api", required=True)
    ap.add_argument("--apimachinery", required=True)
    ap.add_argument("--giex", required=True)
    ap.add_argument("-o", "--output", default="renderer/data/dgd-types.json")
    args = ap.parse_args()
    repos = {
        "dynamo": args.dynamo,
        "k8s-api": args.k8s_api,
        "apimachinery": args.apimachinery,
        "giex": args.giex,
    }
    packages: dict[str, Package] = {}
    for path, (repo, rev, directory) in PACKAGES.items():
        pkg = Package(path)
        for file in git_ls(repos[repo], rev, directory):
            if "zz_generated" in file or file.endswith(".pb.go"):
                continue
            pkg.add_file(git_show(repos[repo], rev, file))
        packages[path] = pkg
    gen = Generator(packages)
    roots = {}
    for key, full in ROOTS.items():
        roots[key] = gen.named_descriptor(full)["name"]
    table = {
        "source": {
            "dynamo": f"ai-dynamo/dynamo {DYNAMO_REV} (deploy/operator/api)",
            "k8s.io/api": K8S_REV,
            "k8s.io/apimachinery": K8S_REV,
            "sigs.k8s.io/gateway-api-inference-extension": GIEX_REV,
            "generator": "scripts/gen_dgd_types.py",
        },
        "roots": roots,
        "types": dict(sorted(gen.types.items())),
    }
    Path(args.output).write_text(render(table))
    print(f"{args.output}: {len(gen.types)} struct types", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
