"""The DGD as one component model, whatever its API version.

Public surface:

- `normalise(obj: SourceObject) -> Graph` (InputError, located, on malformed input)
- `Graph`, `Component`, `CheckpointConfig`, `is_worker_type(type)`, `WORKER_TYPES`
- clique expansion in `renderer.model.cliques`: `expand_roles(component) -> list[Role]`,
  `engine_cliques(component) -> list[str]`, `uses_scaling_group(component)`
- pod template helpers in `renderer.model.pod`: `pod_labels`, `pod_annotations`,
  `main_container`, `merge_env`, `backend_framework(graph)`, `grove_pod_spec`

Pure: no I/O, no heavy imports.
"""

from renderer.model.dgd import (
    ENABLE_GROVE_ANNOTATION,
    V1ALPHA1,
    V1BETA1,
    WORKER_TYPES,
    CheckpointConfig,
    Component,
    Graph,
    is_worker_type,
    normalise,
)

__all__ = [
    "ENABLE_GROVE_ANNOTATION",
    "V1ALPHA1",
    "V1BETA1",
    "WORKER_TYPES",
    "CheckpointConfig",
    "Component",
    "Graph",
    "is_worker_type",
    "normalise",
]
