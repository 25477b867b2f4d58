"""The one error the Go emulation raises on purpose: ``NotReproducedError``.

It says the emulation does not reproduce what Go (the pinned operator) does here: it
refuses rather than guess, naming the field as a path into the input document (a tuple)
or a dotted path of the admitted v1beta1 DGD (a string). The operator port raises the same
class (renderer.operator.errors re-exports it).
"""

from __future__ import annotations

PathTuple = tuple[str | int, ...]


class NotReproducedError(ValueError):
    """What the operator does here is not reproduced; ``path`` names the field."""

    def __init__(self, message: str, path: PathTuple | str = ()) -> None:
        where = path if isinstance(path, str) else dotted(path)
        self.message = f"{where}: {message}" if where else message
        super().__init__(self.message)
        self.detail = message
        self.path = path


def dotted(path: PathTuple) -> str:
    """``spec.components[2].name`` for ("spec", "components", 2, "name")."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
