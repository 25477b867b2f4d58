"""`.dynamo-render.yaml`: the repository's DGDs, checkpoints and output folders, in one place.

`render`, `lint` and the pre-commit hooks all read it, so a hook needs no arguments. It is
found by walking up from the working directory to the first directory that holds the file
or a `.git` (the repository root); a `.git` without the file means no config. Paths in it
are relative to the file's directory. Command-line options always win: the values reach
click as `ctx.default_map` (see `apply_to_context`), which click consults only for options
not given on the command line.

    apiVersion: dynamo-render/v1
    kind: Config
    render:
      - dgd: deploy/llama.dgd.yaml   # a file of one or more DGDs, or a folder of them
        namespace: dynamo-prod       # for DGDs without metadata.namespace (kubectl apply -n)
        dgdUID: 0b7c8f52-3c1d-4f8e-9a51-2d6f1b3e4c77  # the live DGD's uid, once applied
        checkpoints: [snapshots/llama-decode.yaml]
        target: dcd          # or grove; omitted: the default rule
        output: rendered/llama
        kustomization: true  # keep rendered/llama/kustomization.yaml listing its files
    lint:
      paths: [rendered]
      checkpoints: [snapshots]
      strict: false
      format: text
      disable: [checkpoint-unverifiable]   # rules not run (--disable)
      baseline: .dynamo-render-baseline.json  # findings accepted (--baseline)
    trustedKeys: [keys/capture.pub]
    crds: [crds/grove.io_podcliquesets.yaml]
    maxBytes: 16777216
    operator:            # settings of the emulated operator (renderer.operator_settings)
      discoveryBackend: kubernetes
      groveTerminationDelay: 15m

The file carries apiVersion and kind so that `dynamo-render lint .` (which reads every YAML
file, hidden ones included) reads it as an object of another kind and skips it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from renderer.constants import DEFAULT_MAX_BYTES, TARGETS, Target
from renderer.errors import InputError, UsageError
from renderer.record import FrozenRecord, field
from renderer.source import load_bytes
from renderer.source.files import open_regular
from renderer.source.limits import DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_NODES
from renderer.source.model import Path, SourceObject

if TYPE_CHECKING:
    from renderer.operator.config import OperatorConfig

CONFIG_NAME = ".dynamo-render.yaml"
API_VERSION = "dynamo-render/v1"
KIND = "Config"
LINT_FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit")
MAX_CONFIG_BYTES = 1024 * 1024
# `ctx.meta` key under which the loaded Config (or None) is kept for commands that need more
# than option defaults (`render --check` reads the render jobs).
META_KEY = "dynamo_render.config"
_Choice = TypeVar("_Choice", bound=str)

_TOP_KEYS = (
    "apiVersion",
    "kind",
    "render",
    "lint",
    "trustedKeys",
    "crds",
    "maxBytes",
    "maxNodes",
    "maxDocuments",
    "operator",
)
_JOB_KEYS = ("dgd", "namespace", "dgdUID", "checkpoints", "target", "output", "kustomization")
_LINT_KEYS = ("paths", "checkpoints", "strict", "format", "disable", "baseline")


class RenderJob(NamedTuple):
    """One DGD to render: its checkpoints, target, and the folder its output is kept in."""

    dgd: str
    checkpoints: tuple[str, ...]
    output: str
    target: Target | None = None
    where: str = ""  # file:line:column of the entry, for messages
    # the DGD path as the config writes it (relative to the repository root): the
    # `# Source:` line of its output, so it does not depend on the working directory
    source: str = ""
    namespace: str | None = None  # for DGDs without metadata.namespace
    dgd_uid: str | None = None  # the live DGD's metadata.uid (automatic checkpoint names)
    kustomization: bool = False  # keep output/kustomization.yaml listing the rendered files


class LintConfig(NamedTuple):
    paths: tuple[str, ...] = ()
    checkpoints: tuple[str, ...] = ()
    strict: bool | None = None
    format: str | None = None
    disable: tuple[str, ...] = ()  # --disable: rules not run
    baseline: str | None = None  # --baseline: findings accepted (renderer.lint.suppress)


class Config(FrozenRecord):
    file: str
    render: tuple[RenderJob, ...] = ()
    lint: LintConfig = field(default_factory=LintConfig)
    trusted_keys: tuple[str, ...] = ()
    crds: tuple[str, ...] = ()
    max_bytes: int | None = None
    max_nodes: int | None = None  # per-file caps of the input layer (global options)
    max_documents: int | None = None
    # the repository root: the config's folder (absolute, symlinks resolved); every write
    # a config asks for must stay inside it
    base_dir: str = field(default="", compare=False)
    # the `operator:` section (None: the pinned defaults)
    operator: OperatorConfig | None = None
    # each path read from the file, as the commands see it -> (its key, file, line, column),
    # so a path that does not exist is reported at its line (`at_config_line`)
    places: dict[str, tuple[str, str, int, int]] = field(default_factory=dict, compare=False)


class _Reader:
    """Strict typed access to the config object, every error at its file:line:column."""

    def __init__(self, obj: SourceObject, base_dir: str, cwd: str) -> None:
        self.obj = obj
        self.base_dir = base_dir
        self.cwd = cwd
        self.places: dict[str, tuple[str, str, int, int]] = {}

    def fail(self, path: Path, message: str, *, key: bool = False) -> InputError:
        mark = self.obj.mark(path, key=key)
        return InputError(message, self.obj.file, mark.line, mark.column)

    @staticmethod
    def dotted(path: Path) -> str:
        return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")

    def mapping(self, value: Any, path: Path, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"{self.dotted(path) or 'the config'} must be a mapping")
        for key in value:
            if key not in allowed:
                where = f" in {self.dotted(path)}" if path else ""
                raise self.fail(
                    (*path, key),
                    f"unknown key {key!r}{where} (expected one of: {', '.join(allowed)})",
                    key=True,
                )
        return value

    def path_value(self, value: Any, path: Path, *, written: bool = False) -> str:
        """A path from the config; `written`: the tool writes there, so it must stay inside
        the repository root (the config's folder): no absolute path, no `..` leaving it."""
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"{self.dotted(path)} must be a non-empty path string")
        if "\x00" in value:
            raise self.fail(path, f"{self.dotted(path)} must not contain a NUL character")
        if written:
            full = os.path.normpath(FsPath(self.base_dir) / value)
            if FsPath(value).is_absolute() or not _within(full, self.base_dir):
                raise self.fail(
                    path,
                    f"{self.dotted(path)} {value!r} is outside the repository root"
                    f" {self.base_dir} (the config's folder): writes stay inside it",
                )
        resolved = self.resolve(value)
        mark = self.obj.mark(path, key=False)
        self.places.setdefault(resolved, (self.dotted(path), self.obj.file, mark.line, mark.column))
        return resolved

    def paths(self, value: Any, path: Path) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(path, f"{self.dotted(path)} must be a list of paths")
        return tuple(self.path_value(item, (*path, i)) for i, item in enumerate(value))

    def choice(self, value: Any, path: Path, choices: tuple[_Choice, ...]) -> _Choice:
        if value not in choices:
            raise self.fail(path, f"{self.dotted(path)} must be one of: {', '.join(choices)}")
        result: _Choice = value
        return result

    def resolve(self, value: str) -> str:
        """A config path (relative to the config's directory) as the commands should see it:
        relative to the working directory when that is inside the config's directory (so
        messages stay short), else absolute."""
        full = os.path.normpath(FsPath(self.base_dir) / value)
        if FsPath(value).is_absolute():
            return full
        inside = os.path.commonpath([self.base_dir, self.cwd]) == self.base_dir
        return os.path.relpath(full, self.cwd) if inside else full


def _job(reader: _Reader, value: Any, path: Path) -> RenderJob:
    entry = reader.mapping(value, path, _JOB_KEYS)
    for required in ("dgd", "output"):
        if required not in entry:
            raise reader.fail(path, f"{reader.dotted(path)} needs {required!r}", key=True)
    target = entry.get("target")
    kustomization = entry.get("kustomization", False)
    if not isinstance(kustomization, bool):
        where = (*path, "kustomization")
        raise reader.fail(where, f"{reader.dotted(where)} must be true or false")
    namespace = entry.get("namespace")
    if namespace is not None:
        from renderer.model.namespace import check_namespace  # noqa: PLC0415 - the DGD model only for a config entry with a namespace (off a lint's path)

        where = (*path, "namespace")
        if not isinstance(namespace, str):
            raise reader.fail(where, f"{reader.dotted(where)} must be a namespace name")
        try:
            check_namespace(namespace, reader.dotted(where))
        except UsageError as exc:
            raise reader.fail(where, str(exc)) from None
    uid = entry.get("dgdUID")
    if uid is not None:
        from renderer.render.uid import check_dgd_uid  # noqa: PLC0415 - renderer.render (the operator emulation) only for a config entry with a dgdUID

        where = (*path, "dgdUID")
        if not isinstance(uid, str):
            raise reader.fail(where, f"{reader.dotted(where)} must be a string (quote it)")
        try:
            check_dgd_uid(uid, reader.dotted(where))
        except UsageError as exc:
            raise reader.fail(where, str(exc)) from None
    return RenderJob(
        dgd=reader.path_value(entry["dgd"], (*path, "dgd")),
        checkpoints=reader.paths(entry.get("checkpoints", []), (*path, "checkpoints")),
        output=reader.path_value(entry["output"], (*path, "output"), written=True),
        target=None if target is None else reader.choice(target, (*path, "target"), TARGETS),
        where=reader.obj.where(path, key=False),
        source=FsPath(os.path.normpath(entry["dgd"])).as_posix(),
        namespace=namespace,
        dgd_uid=uid,
        kustomization=kustomization,
    )


def _lint(reader: _Reader, value: Any) -> LintConfig:
    section = reader.mapping(value, ("lint",), _LINT_KEYS)
    strict = section.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise reader.fail(("lint", "strict"), "lint.strict must be true or false")
    fmt = section.get("format")
    baseline = section.get("baseline")
    return LintConfig(
        paths=reader.paths(section.get("paths", []), ("lint", "paths")),
        checkpoints=reader.paths(section.get("checkpoints", []), ("lint", "checkpoints")),
        strict=strict,
        format=None if fmt is None else reader.choice(fmt, ("lint", "format"), LINT_FORMATS),
        disable=_disabled_rules(reader, section.get("disable", [])),
        baseline=None if baseline is None else reader.path_value(baseline, ("lint", "baseline")),
    )


def _disabled_rules(reader: _Reader, value: Any) -> tuple[str, ...]:
    """`lint: disable`, as --disable: each a known rule (an unknown one is at its line)."""
    from renderer.lint.rules import RULE_MODULES  # noqa: PLC0415 - the rule table only for a config that disables rules (off a render's path)

    path: Path = ("lint", "disable")
    if not isinstance(value, list):
        raise reader.fail(path, "lint.disable must be a list of rule names (see --list-rules)")
    for i, rule in enumerate(value):
        if not isinstance(rule, str) or rule not in RULE_MODULES:
            raise reader.fail(
                (*path, i), f"lint.disable: no rule {rule!r} (see dynamo-render lint --list-rules)"
            )
    return tuple(dict.fromkeys(value))


def parse_config(data: bytes, name: str, *, base_dir: str, cwd: str | None = None) -> Config:
    """Read and check a config file's bytes. `name` is used in messages; paths in it are
    resolved against `base_dir` and shown relative to `cwd` (default: the working directory).
    Raises InputError (file:line:column) for anything unexpected; unknown keys included."""
    try:
        objects = load_bytes(data, name, max_bytes=MAX_CONFIG_BYTES)
    except InputError as exc:
        if exc.message.startswith("object has no"):
            raise InputError(
                f"a config file starts with `apiVersion: {API_VERSION}` and `kind: {KIND}`",
                exc.file,
                exc.line,
                exc.column,
            ) from None
        raise
    obj = objects[0]
    reader = _Reader(obj, base_dir, cwd if cwd is not None else _working_directory(name))
    if len(objects) > 1:
        raise reader.fail((), "a config file holds one document")
    if obj.api_version != API_VERSION or obj.kind != KIND:
        raise reader.fail(
            ("apiVersion",),
            f"expected apiVersion {API_VERSION} and kind {KIND}, found"
            f" {obj.api_version} {obj.kind}",
            key=False,
        )
    top = reader.mapping(obj.data, (), _TOP_KEYS)
    jobs_value = top.get("render", [])
    if not isinstance(jobs_value, list):
        raise reader.fail(("render",), "render must be a list of {dgd, checkpoints, output}")
    jobs = tuple(_job(reader, v, ("render", i)) for i, v in enumerate(jobs_value))
    outputs: dict[str, str] = {}
    for job in jobs:
        if job.output in outputs:
            raise InputError(
                f"two render entries write to {job.output} (the other is at {outputs[job.output]})",
                *_split_where(job.where),
            )
        outputs[job.output] = job.where
    max_bytes, max_nodes, max_documents = (_limit(reader, top, key, most) for key, most in _LIMITS)
    return Config(
        file=name,
        render=jobs,
        lint=_lint(reader, top["lint"]) if "lint" in top else LintConfig(),
        trusted_keys=reader.paths(top.get("trustedKeys", []), ("trustedKeys",)),
        crds=reader.paths(top.get("crds", []), ("crds",)),
        max_bytes=max_bytes,
        max_nodes=max_nodes,
        max_documents=max_documents,
        base_dir=base_dir,
        operator=_operator(reader, top["operator"]) if "operator" in top else None,
        places=reader.places,
    )


def at_config_line(config: Config | None, exc: InputError) -> InputError:
    """`exc` at the config line that names its file, when it says that a path the config
    gives does not exist (else `exc` unchanged): the line to fix is in the config."""
    if config is None or exc.line is not None or not exc.message.endswith(_MISSING):
        return exc
    place = config.places.get(exc.file)
    if place is None:
        return exc
    key, file, line, column = place
    return InputError(f"{key}: {exc.file!r} does not exist", file, line, column)


_MISSING = os.strerror(2)  # ENOENT: "No such file or directory"


# The per-file limits a config may set, and the most it may set: the defaults. The config
# comes with the repository, so it may tighten what bounds a run's time and memory on one
# file but not lift it; the command line (the person or CI job running the tool) can.
_LIMITS = (
    ("maxBytes", DEFAULT_MAX_BYTES),
    ("maxNodes", DEFAULT_MAX_NODES),
    ("maxDocuments", DEFAULT_MAX_DOCUMENTS),
)


def _limit(reader: _Reader, top: dict[str, Any], key: str, most: int) -> int | None:
    value = top.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise reader.fail((key,), f"{key} must be a positive integer")
    if value > most:
        option = "--" + "".join(f"-{c.lower()}" if c.isupper() else c for c in key)
        raise reader.fail(
            (key,),
            f"{key} {value} is above the default {most}: a repository's config may lower a"
            f" per-file limit, not raise it ({option} on the command line can)",
        )
    return value


def _within(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def _operator(reader: _Reader, value: Any) -> OperatorConfig:
    from renderer.operator_settings import parse_operator_section  # noqa: PLC0415 - operator settings only for a config with an operator section (off a lint's path)

    return parse_operator_section(value, reader.fail)


def _split_where(where: str) -> tuple[str, int, int]:
    file, line, column = where.rsplit(":", 2)
    return file, int(line), int(column)


def _working_directory(config_file: str) -> str:
    try:
        return str(FsPath.cwd())
    except OSError as exc:
        raise InputError(
            f"cannot resolve the config's paths: the working directory is gone ({exc.strerror})",
            config_file,
        ) from None


def find_config(start: str | None = None) -> str | None:
    """The config file of the repository `start` (default: the working directory) is in."""
    try:
        here = FsPath(start if start is not None else str(FsPath.cwd())).resolve()
    except OSError:
        return None  # a working directory that was removed holds no config
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_NAME
        if candidate.exists() and not candidate.is_dir():
            return str(candidate)  # a FIFO or device there is refused by the read, not skipped
        if (directory / ".git").exists():
            return None
    return None


def load_config(path: str, *, cwd: str | None = None) -> Config:
    """Read the config file at `path` (InputError when unreadable or invalid)."""
    try:
        # found by walking up from the working directory: a repository may plant a FIFO or
        # a link to a terminal there, which must be refused, not waited on
        with open_regular(path) as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read config file: {exc.strerror}", path) from None
    except ValueError:  # a NUL character in the path
        raise InputError(
            "cannot read config file: the path contains a NUL character", path
        ) from None
    here = cwd if cwd is not None else _working_directory(path)
    shown = os.path.relpath(path, here) if FsPath(path).is_absolute() else path
    if shown.startswith(".."):
        shown = path
    base_dir = str(FsPath(path).resolve().parent)
    return parse_config(data, shown, base_dir=base_dir, cwd=here)


def default_map(config: Config) -> dict[str, dict[str, Any]]:
    """Option defaults per command, by click parameter name (only the keys the file sets)."""
    shared: dict[str, Any] = {}
    if config.trusted_keys:
        shared["trusted_keys"] = list(config.trusted_keys)
    if config.crds:
        shared["crds"] = list(config.crds)
    if config.max_bytes is not None:
        shared["max_bytes"] = config.max_bytes
    lint: dict[str, Any] = dict(shared)
    if config.lint.paths:
        lint["paths"] = list(config.lint.paths)
    if config.lint.checkpoints:
        lint["checkpoints"] = list(config.lint.checkpoints)
    if config.lint.strict is not None:
        lint["strict"] = config.lint.strict
    if config.lint.format is not None:
        lint["fmt"] = config.lint.format
    if config.lint.disable:
        lint["disabled"] = list(config.lint.disable)
    if config.lint.baseline is not None:
        lint["baseline"] = config.lint.baseline
    render = dict(shared)
    binding = {"max_bytes": config.max_bytes} if config.max_bytes is not None else {}
    return {"render": render, "lint": lint, "binding": binding}


def apply_to_context(ctx: Any, path: str | None = None, *, disabled: bool = False) -> None:
    """Load the config (`path`, else the one found from the cwd) into a click context.

    Sets `ctx.default_map` (merged under any default map the caller already set) and keeps
    the Config in `ctx.meta[META_KEY]` (None without one).
    """
    config: Config | None = None
    if not disabled:
        found = path if path is not None else find_config()
        if found is not None:
            config = load_config(found)
    ctx.meta[META_KEY] = config
    if config is None:
        return
    merged: dict[str, Any] = {name: dict(values) for name, values in default_map(config).items()}
    existing: Mapping[str, Any] = ctx.default_map or {}
    for name, values in existing.items():
        if isinstance(values, Mapping) and isinstance(merged.get(name), dict):
            merged[name].update(values)
        else:
            merged[name] = values
    ctx.default_map = merged


def from_context(ctx: Any) -> Config | None:
    """The Config `apply_to_context` loaded for this invocation, or None."""
    value = ctx.meta.get(META_KEY)
    return value if isinstance(value, Config) else None
