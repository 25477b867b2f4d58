"""The operator emulation's refusals as InputError at the field's file:line:column.

- ``AdmissionError`` (webhook refusals) carries a path into the input document.
- ``NotReproducedError`` names a path into the input document, or a dotted field of the
  admitted v1beta1 DGD (``spec.components[VllmWorker].experimental...``): located there.
- Anything else the render path raises (``OperatorRenderError``, Grove/DCD generation
  errors) carries the operator's message only: located at the component it names, else at
  the DGD's name.
- Any other exception is a defect of the port: ``internal_error`` (its own exit code).
"""

from __future__ import annotations

import re
from typing import Any

from renderer.errors import InputError, InternalError
from renderer.source.model import Path, SourceObject

_INDEX = re.compile(r"\[([^\]]*)\]")
_COMPONENT = re.compile(r"\bcomponent[s]? \"?'?([A-Za-z0-9][-A-Za-z0-9_.]*)")


def _error(dgd: SourceObject, path: Path, message: str) -> InputError:
    mark = dgd.mark(path)
    return InputError(message, dgd.file, mark.line, mark.column)


def component_path(dgd: SourceObject, name: str) -> Path | None:
    """Where component `name` is in the input (v1beta1 list or v1alpha1 map), or None."""
    spec = dgd.data.get("spec")
    if not isinstance(spec, dict):
        return None
    components = spec.get("components")
    if isinstance(components, list):
        for index, item in enumerate(components):
            if isinstance(item, dict) and item.get("name") == name:
                return ("spec", "components", index)
    services = spec.get("services")
    if isinstance(services, dict) and name in services:
        return ("spec", "services", name)
    return None


def dotted_to_path(dgd: SourceObject, dotted: str) -> Path:
    """`spec.components[name].a.b` (or `[3]`) as a path into the input document."""
    parts: list[str | int] = []
    for segment in dotted.split("."):
        head = _INDEX.split(segment)
        key, indexes = head[0], head[1::2]
        if key:
            parts.append(key)
        for index in indexes:
            parts.append(int(index) if index.isdigit() else index)
    if parts[:2] == ["spec", "components"] and len(parts) > 2 and isinstance(parts[2], str):
        located = component_path(dgd, parts[2])
        if located is None:
            return ("spec",)
        if located[1] == "services":  # v1alpha1 input: field names differ below
            return located
        return (*located, *parts[3:])
    return tuple(parts)


def admission_error(dgd: SourceObject, exc: Any) -> InputError:
    """An AdmissionError at the field it names."""
    return _error(dgd, tuple(exc.path) or ("metadata", "name"), str(exc.message))


def not_reproduced(dgd: SourceObject, exc: Any) -> InputError:
    """NotReproducedError: exit 2 at the field it names (an input path, or a dotted path of
    the admitted DGD)."""
    if isinstance(exc.path, str):
        path = dotted_to_path(dgd, exc.path) if exc.path else ("metadata", "name")
    else:
        path = tuple(exc.path) or ("metadata", "name")
    return _error(
        dgd, path, f"not reproduced (the operator's result is not known here): {exc.message}"
    )


def internal_error(dgd: SourceObject, exc: BaseException) -> InternalError:
    """An exception the port does not raise on purpose: a defect, at the DGD's name."""
    return InternalError(f"{type(exc).__name__}: {exc}", dgd.where(("metadata", "name")))


def render_refusal(dgd: SourceObject, message: str) -> InputError:
    """The operator refuses to render: its exact message (with the controller's stage
    prefix, as for an admission refusal), at the component it names if any."""
    for match in _COMPONENT.finditer(message):
        path = component_path(dgd, match.group(1))
        if path is not None:
            return _error(dgd, path, message)
    return _error(dgd, ("metadata", "name"), message)
