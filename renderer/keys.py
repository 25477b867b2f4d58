"""Annotation and label keys the operator reads and writes (exact strings).

Every module that reads or writes one of these keys imports it from here, so a typo
cannot silently produce a manifest the operator ignores.
"""

from __future__ import annotations

# On DCDs, their pod templates, and Grove engine cliques: "v1/<uid>/<generation>/<sha256>".
BINDING_KEY = "nvidia.com/dynamo-checkpoint-binding"
# On the checkpoint: must be exactly "true" for an automatic checkpoint.
AUTO_MARKER_KEY = "nvidia.com/dynamo-auto-checkpoint"
# Label on the checkpoint: 32 lowercase hex for automatic ones.
CHECKPOINT_ID_LABEL = "nvidia.com/snapshot-checkpoint-id"
# Annotation on the checkpoint; the operator defaults it to "1".
ARTIFACT_VERSION_KEY = "nvidia.com/snapshot-artifact-version"
# Annotation on the checkpoint: Delete/Retain. Lifecycle only, not in the digest.
DELETION_POLICY_KEY = "nvidia.com/dynamo-checkpoint-deletion-policy"
DGD_NAME_LABEL = "nvidia.com/dynamo-graph-deployment-name"
COMPONENT_LABEL = "nvidia.com/dynamo-component"
WORKER_HASH_LABEL = "nvidia.com/dynamo-worker-hash"
DYNAMO_NAMESPACE_LABEL = "nvidia.com/dynamo-namespace"
COMPONENT_TYPE_LABEL = "nvidia.com/dynamo-component-type"
SELECTOR_LABEL = "nvidia.com/selector"
# Pod template annotations that make a pod a restore candidate.
RESTORE_CANDIDATE_KEY = "nvidia.com/dynamo-checkpoint-restore-candidate"
CHECKPOINT_NAME_KEY = "nvidia.com/dynamo-checkpoint-name"
TARGET_CONTAINERS_KEY = "nvidia.com/snapshot-target-containers"
# [our contract] PCS metadata annotation: compact JSON object, engine clique -> binding.
BINDINGS_MAP_KEY = "nvidia.com/dynamo-checkpoint-bindings"

MAIN_CONTAINER = "main"

__all__ = [
    "ARTIFACT_VERSION_KEY",
    "AUTO_MARKER_KEY",
    "BINDINGS_MAP_KEY",
    "BINDING_KEY",
    "CHECKPOINT_ID_LABEL",
    "CHECKPOINT_NAME_KEY",
    "COMPONENT_LABEL",
    "COMPONENT_TYPE_LABEL",
    "DELETION_POLICY_KEY",
    "DGD_NAME_LABEL",
    "DYNAMO_NAMESPACE_LABEL",
    "MAIN_CONTAINER",
    "RESTORE_CANDIDATE_KEY",
    "SELECTOR_LABEL",
    "TARGET_CONTAINERS_KEY",
    "WORKER_HASH_LABEL",
]
