"""Moved to `renderer.binding.checkpoint`; this name is kept for the render package only.

New code imports `renderer.binding.checkpoint`. Remove this module once nothing under
renderer/ imports `renderer.checkpoint`.
"""

from __future__ import annotations

from renderer.binding.checkpoint import (
    CHECKPOINT_KIND,
    READY_PHASE,
    Checkpoint,
    checkpoint_from_object,
    is_checkpoint,
    unbindable_path,
    unbindable_reason,
)

__all__ = [
    "CHECKPOINT_KIND",
    "READY_PHASE",
    "Checkpoint",
    "checkpoint_from_object",
    "is_checkpoint",
    "unbindable_path",
    "unbindable_reason",
]
