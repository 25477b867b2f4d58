"""The operator-exact checkpoint binding: `v1/<uid>/<generation>/<sha256>`.

Public surface:

- `bind(obj) -> BoundCheckpoint` (BindingError: file:line:col and the operator's reason)
- `canonical_projection(obj) -> str`: the exact JSON text that is hashed
- `parse_binding(value) -> Binding` (BindingFormatError with the operator's wording)
- `verify_binding(value, bound) -> str | None`: None when equal, else the operator's reason:
  `UID_DIFFERS`, `GENERATION_DIFFERS`, `PROVENANCE_DIFFERS` (its admission wording), the
  parse message, or `NONCANONICAL` ... for a spelling the operator accepts but never writes
- `Binding`, `BoundCheckpoint`, `Checkpoint` (the checkpoint model, `binding.checkpoint`)

Importing this package is light (the standard library and the interpreter's built-in
SHA-256); the Go type table is read and compiled by the first `bind`.
See docs/binding.md.
"""

from __future__ import annotations

from typing import NamedTuple

from renderer.binding.checkpoint import (
    Checkpoint,
    checkpoint_from_object,
    unbindable_path,
    unbindable_reason,
)
from renderer.binding.value import (
    GENERATION_DIFFERS,
    PROVENANCE_DIFFERS,
    UID_DIFFERS,
    Binding,
    compare_bindings,
    parse_binding,
)
from renderer.errors import BindingError, BindingFormatError, InputError
from renderer.goruntime.strconv import quote as go_quote
from renderer.sha256 import sha256_type
from renderer.source.model import SourceObject

__all__ = [
    "GENERATION_DIFFERS",
    "NONCANONICAL",
    "PROVENANCE_DIFFERS",
    "UID_DIFFERS",
    "Binding",
    "BoundCheckpoint",
    "Checkpoint",
    "bind",
    "canonical_projection",
    "parse_binding",
    "verify_binding",
]

NONCANONICAL = "automatic checkpoint binding is not in canonical form (the operator accepts it):"


class BoundCheckpoint(NamedTuple):
    """A checkpoint with its binding, the exact text hashed, and what to warn about."""

    checkpoint: Checkpoint
    binding: Binding
    canonical: str
    warnings: tuple[str, ...]

    @property
    def value(self) -> str:
        return str(self.binding)


def _bind(obj: SourceObject) -> tuple[Checkpoint, str, list[str]]:
    from renderer.binding.projection import build_projection  # noqa: PLC0415 - the projection and its Go type tables only when a snapshot is bound, never in a lint without snapshots

    cp = checkpoint_from_object(obj)
    canonical, warnings = build_projection(obj, cp)
    reason = unbindable_reason(cp)
    if reason is not None:
        mark = obj.mark(unbindable_path(cp))
        raise BindingError(reason, obj.file, mark.line, mark.column)
    return cp, canonical, warnings


def bind(obj: SourceObject) -> BoundCheckpoint:
    """Compute the binding of one DynamoCheckpoint exactly as the operator does."""
    sha256 = sha256_type()
    try:
        cp, canonical, warnings = _bind(obj)
    except BindingError:
        raise
    except InputError as exc:  # a field of the wrong type: no binding can come from it
        raise BindingError(exc.message, exc.file, exc.line, exc.column) from None
    digest = sha256(canonical.encode("utf-8")).hexdigest()
    # A snapshot without a phase (hand-written, or saved before the first status update)
    # is not warned about; `Checkpoint.ready` is still False for it.
    if cp.phase and not cp.ready:
        mark = obj.mark(("status", "phase"))
        warnings.append(
            f"{obj.file}:{mark.line}:{mark.column}: status.phase is {cp.phase}, not Ready"
            " (the operator restores only from a Ready checkpoint)"
        )
    return BoundCheckpoint(
        checkpoint=cp,
        binding=Binding(uid=cp.uid, generation=cp.generation, digest=digest),
        canonical=canonical,
        warnings=tuple(warnings),
    )


def canonical_projection(obj: SourceObject) -> str:
    """The exact JSON text the operator hashes for `obj` (same as `bind(obj).canonical`)."""
    return bind(obj).canonical


def verify_binding(value: str, bound: BoundCheckpoint) -> str | None:
    """None when `value` is exactly the binding of `bound`; else the operator's reason.

    A value the operator would also accept but that is not spelled as it writes it
    (`+1` or `01` generation, upper-case hex) is reported too: it is not what the operator
    or this tool produced, so something else edited it.
    """
    try:
        expected = parse_binding(value)
    except BindingFormatError as exc:
        return str(exc)
    reason = compare_bindings(expected, bound.binding)
    if reason is None and value != bound.value:
        return f"{NONCANONICAL} {go_quote(value)}; expected {go_quote(bound.value)}"
    return reason
