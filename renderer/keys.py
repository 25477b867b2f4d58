"""Annotation and label keys the operator reads and writes (exact strings).

Every module that reads or writes one of these keys imports it from here, so a typo
cannot silently produce a manifest the operator ignores. The operator's own keys are
re-exported from renderer/operator/consts.py, their one home; the binding keys are the
tool's own contract.
"""

from __future__ import annotations

from renderer.operator import consts

# On DCDs, their pod templates, and Grove engine cliques: "v1/<uid>/<generation>/<sha256>".
BINDING_KEY = "nvidia.com/dynamo-checkpoint-binding"
# On the checkpoint: must be exactly "true" for an automatic checkpoint.
AUTO_MARKER_KEY = consts.CHECKPOINT_AUTO_ANNOTATION
# Label on the checkpoint: 32 lowercase hex for automatic ones.
CHECKPOINT_ID_LABEL = consts.CHECKPOINT_ID_LABEL
# Annotation on the checkpoint; the operator defaults it to "1".
ARTIFACT_VERSION_KEY = consts.CHECKPOINT_ARTIFACT_VERSION_ANNOTATION
# Annotation on the checkpoint: Delete/Retain. Lifecycle only, not in the digest.
DELETION_POLICY_KEY = consts.CHECKPOINT_DELETION_POLICY_ANNOTATION
DGD_NAME_LABEL = consts.KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME
COMPONENT_LABEL = consts.KUBE_LABEL_DYNAMO_COMPONENT
WORKER_HASH_LABEL = consts.KUBE_LABEL_DYNAMO_WORKER_HASH
DYNAMO_NAMESPACE_LABEL = consts.KUBE_LABEL_DYNAMO_NAMESPACE
COMPONENT_TYPE_LABEL = consts.KUBE_LABEL_DYNAMO_COMPONENT_TYPE
SELECTOR_LABEL = consts.KUBE_LABEL_DYNAMO_SELECTOR
# Pod template annotations that make a pod a restore candidate.
RESTORE_CANDIDATE_KEY = consts.CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION
CHECKPOINT_NAME_KEY = consts.CHECKPOINT_NAME_ANNOTATION
TARGET_CONTAINERS_KEY = consts.TARGET_CONTAINERS_ANNOTATION
# [our contract] PCS metadata annotation: compact JSON object, engine clique -> binding.
BINDINGS_MAP_KEY = "nvidia.com/dynamo-checkpoint-bindings"

MAIN_CONTAINER = consts.MAIN_CONTAINER_NAME

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
