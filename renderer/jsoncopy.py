"""A deep copy of the plain JSON-like values the renderer passes around, without copy's cost.

`copy.deepcopy` walks a tree in Python with a memo of every object it has seen; the
operator emulation copies a DGD, its components and pod templates hundreds of times per
render, as the operator's Go code copies its structs. marshal (format 2, which writes no
back-references) makes the same copy in C, several times faster: dicts keep their key
order, and str, int, float, bool and None come back equal and of the same type.

One difference: a subtree shared by two places of the value comes out as two separate
copies (deepcopy would share it in the copy too), which is how Go's DeepCopy copies a
struct; the values here are trees (the input layer copies what an alias names).
"""

from __future__ import annotations

import copy
import marshal
from typing import Any, TypeVar

T = TypeVar("T")

_SCALARS = frozenset({str, int, float, bool, type(None)})


def deep_copy(value: T) -> T:
    """`copy.deepcopy(value)` for JSON-like values (anything else is handed to it)."""
    kind = type(value)
    if kind is dict or kind is list:
        tree: Any = value
        try:
            copied: T = marshal.loads(marshal.dumps(tree, 2))
        except ValueError:  # something marshal cannot write (an object, a dict subclass)
            return copy.deepcopy(value)
        return copied
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)
