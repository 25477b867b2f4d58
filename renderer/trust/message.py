"""The exact bytes a snapshot signature covers: what the bindings depend on, nothing else.

    DOMAIN_PREFIX + canonical JSON of
    {"objects":[{"canonical":<projection text>,"generation":<int>,"name":..,
                 "namespace":..,"uid":..}, ...], "v":1}

one entry per DynamoCheckpoint in file order (a `kind: List` counts item by item). The
canonical JSON is `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)`:
every value is a JSON string or integer, so the text is unambiguous and independent of how
the YAML was written. The prefix keeps a snapshot signature from ever being valid as any
other kind of signed message made with the same key.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from renderer.constants import CHECKPOINT_KIND
from renderer.errors import InputError
from renderer.source.model import SourceObject

DOMAIN_PREFIX = b"dynamo-render snapshot signature v1\n"
MESSAGE_VERSION = 1

# obj -> (uid, generation, namespace, name, canonical projection text); raises InputError.
Projector = Callable[[SourceObject], tuple[str, int, str, str, str]]


def _bound_fields(obj: SourceObject) -> tuple[str, int, str, str, str]:
    """The binding engine's view of one checkpoint: exactly what its binding hashes."""
    # Looked up at run time: this module must not depend on the engine's import graph
    # (and the engine is typed by its own module; here only four attributes are read).
    bound: Any = importlib.import_module("renderer.binding").bind(obj)
    cp = bound.checkpoint
    return cp.uid, cp.generation, cp.namespace, cp.name, bound.canonical


def signed_message(objects: Sequence[SourceObject], *, project: Projector | None = None) -> bytes:
    """The message a snapshot signature covers, for the objects of one snapshot file.

    Raises InputError when the file holds no checkpoint, holds another kind of object (a
    signature must not seem to vouch for objects it does not cover), or a checkpoint cannot
    be bound (then no binding can come from it, signed or not). `project` replaces the
    binding engine, for tests.
    """
    project = project or _bound_fields
    entries: list[dict[str, Any]] = []
    for obj in objects:
        if obj.kind != CHECKPOINT_KIND:
            raise InputError(
                f"a signed snapshot holds only {CHECKPOINT_KIND} objects, found {obj.kind!r}"
                f" {obj.name!r}",
                *_position(obj),
            )
        uid, generation, namespace, name, canonical = project(obj)
        entries.append(
            {
                "uid": uid,
                "generation": generation,
                "namespace": namespace,
                "name": name,
                "canonical": canonical,
            }
        )
    if not entries:
        raise InputError(f"no {CHECKPOINT_KIND} objects to sign or verify", "<input>", 1, 1)
    body = json.dumps(
        {"v": MESSAGE_VERSION, "objects": entries},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return DOMAIN_PREFIX + body.encode("ascii")


def _position(obj: SourceObject) -> tuple[str, int, int]:
    mark = obj.mark(("kind",))
    return obj.file, mark.line, mark.column
