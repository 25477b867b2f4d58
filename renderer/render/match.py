"""Which captured checkpoint each checkpoint-enabled component restores from.

A component with `checkpointRef` names its checkpoint (same namespace as the DGD);
otherwise the operator's labels find it: `nvidia.com/dynamo-graph-deployment-name`,
`nvidia.com/dynamo-component` (as written) and the namespace. Exactly one candidate must
match and it must be bindable; anything else fails closed, naming the component and
the files that were searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from renderer.errors import BindingError, InputError
from renderer.model import Component, Graph
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.binding import BoundCheckpoint
    from renderer.checkpoint import Checkpoint


@dataclass(frozen=True)
class Match:
    """A component, its captured checkpoint, and the binding computed from it."""

    component: Component
    checkpoint: Checkpoint
    bound: BoundCheckpoint

    @property
    def binding(self) -> str:
        return self.bound.value

    @property
    def gated(self) -> bool:
        """WaitForCheckpoint with a checkpoint that is not Ready: start no engine pods."""
        config = self.component.checkpoint
        return (
            config is not None
            and config.startup_policy == "WaitForCheckpoint"
            and not self.checkpoint.ready
        )


def _where(obj: SourceObject) -> str:
    return obj.where(("metadata", "name"))


def _files(objects: Sequence[SourceObject]) -> str:
    files = sorted({o.file for o in objects})
    return f"searched {', '.join(files)}" if files else "no --checkpoint given"


def _component_error(graph: Graph, component: Component, message: str) -> InputError:
    mark = graph.source.mark(component.path)
    return InputError(
        f"component {component.name!r}: {message}", graph.source.file, mark.line, mark.column
    )


def _candidates(
    graph: Graph, component: Component, checkpoints: Sequence[Checkpoint]
) -> list[Checkpoint]:
    config = component.checkpoint
    assert config is not None
    if config.checkpoint_ref:
        return [
            c
            for c in checkpoints
            if c.name == config.checkpoint_ref and c.namespace == graph.namespace
        ]
    return [
        c
        for c in checkpoints
        if c.dgd_name == graph.name
        and c.component == component.name
        and c.namespace == graph.namespace
    ]


def _describe_search(graph: Graph, component: Component) -> str:
    config = component.checkpoint
    assert config is not None
    if config.checkpoint_ref:
        return f"checkpointRef {config.checkpoint_ref!r} in namespace {graph.namespace!r}"
    return (
        f"labels dynamo-graph-deployment-name={graph.name!r}, dynamo-component="
        f"{component.name!r} in namespace {graph.namespace!r}"
    )


def _bind(graph: Graph, component: Component, checkpoint: Checkpoint) -> BoundCheckpoint:
    from renderer.binding import bind
    from renderer.checkpoint import unbindable_path, unbindable_reason

    label = f"checkpoint {checkpoint.namespace}/{checkpoint.name}"
    reason = unbindable_reason(checkpoint)
    if reason is not None:
        obj = checkpoint.source
        mark = obj.mark(unbindable_path(checkpoint))
        raise BindingError(
            f"component {component.name!r}: {label} cannot be bound: {reason}",
            obj.file,
            mark.line,
            mark.column,
        )
    try:
        return bind(checkpoint.source)
    except BindingError as exc:
        raise BindingError(
            f"component {component.name!r}: {label} cannot be bound: {exc.message}",
            exc.file,
            exc.line,
            exc.column,
        ) from None


def match_checkpoints(
    graph: Graph, objects: Sequence[SourceObject], *, warn_unused: bool = True
) -> tuple[dict[str, Match], list[str]]:
    """Match every checkpointed component; returns matches by component name and warnings
    (with `warn_unused`, one for each snapshot no component matched)."""
    # The binding package first: renderer.checkpoint imports its helpers.
    import renderer.binding  # noqa: F401
    from renderer.checkpoint import checkpoint_from_object, is_checkpoint

    warnings: list[str] = []
    checkpoints: list[Checkpoint] = []
    for obj in objects:
        if is_checkpoint(obj):
            checkpoints.append(checkpoint_from_object(obj))
        else:
            warnings.append(
                f"{obj.where()}: ignoring {obj.kind or 'object'} {obj.name!r}: "
                "not a DynamoCheckpoint"
            )
    matches: dict[str, Match] = {}
    used: set[int] = set()
    for component in graph.components:
        if not component.checkpointed:
            continue
        candidates = _candidates(graph, component, checkpoints)
        if not candidates:
            raise _component_error(
                graph,
                component,
                f"no captured checkpoint found ({_describe_search(graph, component)}; "
                f"{_files(objects)}); pass its snapshot with --checkpoint",
            )
        if len(candidates) > 1:
            found = "; ".join(f"{c.name} at {_where(c.source)}" for c in candidates)
            raise _component_error(
                graph,
                component,
                f"{len(candidates)} captured checkpoints match "
                f"({_describe_search(graph, component)}): {found}; keep exactly one",
            )
        checkpoint = candidates[0]
        used.add(id(checkpoint))
        bound = _bind(graph, component, checkpoint)
        warnings.extend(bound.warnings)  # already located (file:line:column)
        if not checkpoint.phase:
            # The engine stays quiet about a missing phase; for a restore it matters.
            warnings.append(
                f"{_where(checkpoint.source)}: component {component.name!r}: checkpoint "
                f"{checkpoint.name} has no status.phase, so it is not Ready (the operator "
                "restores only from a Ready checkpoint)"
            )
        matches[component.name] = Match(component, checkpoint, bound)
    for checkpoint in checkpoints if warn_unused else ():
        if id(checkpoint) not in used:
            warnings.append(
                f"{_where(checkpoint.source)}: checkpoint {checkpoint.namespace}/{checkpoint.name} "
                f"matches no checkpoint-enabled component of DGD {graph.namespace}/{graph.name}"
            )
    return matches, warnings


def target_containers(checkpoint: Checkpoint, configured: str | None = None) -> str:
    """The containers a restore targets.

    The component's own `checkpoint.targetContainerName` when set (the operator's
    resolver lets it override the checkpoint), else as the capture recorded them: the
    capture pod template's `nvidia.com/snapshot-target-containers` annotation when
    present, else the job's targetContainerName, else `main`.
    """
    from renderer.keys import MAIN_CONTAINER, TARGET_CONTAINERS_KEY

    if configured:
        return configured

    def child(value: object, key: str) -> object:
        return value.get(key) if isinstance(value, dict) else None

    job = child(checkpoint.source.data.get("spec"), "job")
    recorded = child(child(child(job, "podTemplateSpec"), "metadata"), "annotations")
    listed = child(recorded, TARGET_CONTAINERS_KEY)
    if isinstance(listed, str) and listed:
        return listed
    target = child(job, "targetContainerName")
    return target if isinstance(target, str) and target else MAIN_CONTAINER


def restore_annotations(match: Match) -> dict[str, str]:
    """The pod annotations that make a pod a restore candidate of the matched checkpoint."""
    from renderer.keys import CHECKPOINT_NAME_KEY, RESTORE_CANDIDATE_KEY, TARGET_CONTAINERS_KEY

    config = match.component.checkpoint
    assert config is not None  # only checkpointed components are matched
    return {
        RESTORE_CANDIDATE_KEY: "true",
        CHECKPOINT_NAME_KEY: match.checkpoint.name,
        TARGET_CONTAINERS_KEY: target_containers(match.checkpoint, config.target_container),
    }
