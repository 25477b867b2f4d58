"""The two errors the operator port raises on purpose; anything else is a defect of the port.

- ``OperatorError``: the pinned operator returns an error here, and the message is its text.
  Each stage's class (``AdmissionError``, ``GroveError``, ``PodSpecError``, ``BackendError``,
  ...) derives from it, so a caller tells a refusal from a bug by class, never by luck.
- ``NotReproducedError``: the port does not reproduce what the operator does here (it refuses
  rather than guess); it names the field: a path into the input document (a tuple) or a
  dotted path of the admitted v1beta1 DGD (a string).

A KeyError, TypeError or a plain ValueError escaping the port is neither: the command reports
it as an internal error with its own exit code, not as something wrong with the input.
"""

from __future__ import annotations

# The Go runtime (renderer/goruntime) raises the same not-reproduced error; its home is there.
from renderer.goruntime.errors import NotReproducedError, PathTuple, dotted

__all__ = ["NotReproducedError", "OperatorError", "PathTuple", "dotted"]


class OperatorError(ValueError):
    """The operator refuses: ``message`` is what it returns at this stage."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message
