"""The operator's render of an admitted DGD: worker hash, checkpoints, PodCliqueSet and DCDs.

``render_operator`` follows the oracle's render step for a new DGD (no existing PodCliqueSet
or DCDs, no restart in progress):

1. the v2 worker hash (``ComputeDGDWorkersSpecHash``) from the placeholder-hashed worker DCDs;
2. in checkpoint mode, the controller's checkpoint resolution per component
   (``dgdCheckpointsReconciler.Reconcile``); a component it fails on stops the render with
   the controller's message, as the oracle refuses the DGD;
3. the Grove PodCliqueSet (graph_grove) with the worker-hash label on worker cliques;
4. the DCDs (``GenerateDynamoComponentsDeployments`` with the steady-state rolling-update
   context: the new worker hash, no old workers), then ``applyCheckpointStartupPolicy``.

Both the PodCliqueSet and the DCDs are rendered; ``provider`` says which one the operator
creates (the ``nvidia.com/workload-provider`` annotation the defaulting webhook set). When
only the path the operator would not take fails, that result is None and its error kept.
A caller that prints one set (``only``) skips the other when the operator does not create
it either: the provider's set is always rendered, since its refusal is the operator's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from renderer.constants import TARGET_DCD, TARGET_GROVE
from renderer.jsoncopy import deep_copy
from renderer.operator import consts as c
from renderer.operator.checkpoint_id import (
    CheckpointResolutionError,
    apply_checkpoint_startup_policy,
    dgd_uid_for,
    resolve_dgd_checkpoints,
)
from renderer.operator.errors import NotReproducedError, OperatorError
from renderer.operator.graph_dcd import (
    DCDGenerationError,
    RollingUpdateContext,
    generate_dynamo_components_deployments,
    printed_dcds,
)
from renderer.operator.graph_grove import GroveError, generate_grove_pod_clique_set
from renderer.operator.hash import WorkerHashError, compute_dgd_workers_spec_hash
from renderer.record import Record, field

if TYPE_CHECKING:
    from renderer.operator.checkpoint_id import CheckpointResolution
    from renderer.operator.config import OperatorConfig

JSON = dict[str, Any]

#: The controller's stage prefixes of a render refusal (the DGD controller's words).
GROVE_STAGE = "failed to reconcile Grove workloads: failed to generate the Grove GangSet: "
DCD_STAGE = "failed to generate the DynamoComponentsDeployments: "
WORKER_HASH_STAGE = "compute worker hash: "


class OperatorRenderError(OperatorError):
    """The pinned operator refuses to render this DGD (its message, with the stage prefix)."""

    def __init__(
        self, message: str, resolution: dict[str, CheckpointResolution] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.checkpoint_resolution = resolution or {}


class OperatorResult(Record):
    """What the operator renders for one admitted DGD."""

    pcs: JSON | None
    dcds: list[JSON]  # as printed, sorted by name
    worker_hash: str
    provider: str  # "grove" or "component"
    checkpoint_resolution: dict[str, CheckpointResolution] = field(default_factory=dict)
    dgd_uid: str = ""
    dgd_uid_source: str = ""
    pcs_error: str | None = None  # the Grove path failed (only allowed when not the provider)
    dcds_error: str | None = None


def workload_provider(dgd: JSON) -> str:
    """The provider the defaulting webhook stamped (grove unless Grove was disabled)."""
    annotations = (dgd.get("metadata") or {}).get("annotations") or {}
    return str(annotations.get(c.KUBE_ANNOTATION_WORKLOAD_PROVIDER) or c.WORKLOAD_PROVIDER_GROVE)


def render_operator(
    admitted_dgd: JSON,
    config: OperatorConfig,
    *,
    checkpoints: Sequence[JSON] = (),
    dgd_uid: str | None = None,
    worker_hash: str | None = None,
    only: str | None = None,
) -> OperatorResult:
    """Render ``admitted_dgd`` as the pinned operator does; OperatorRenderError if it refuses.

    ``checkpoints`` are DynamoCheckpoint objects (plain dicts) the controller can read in
    checkpoint mode (``config.checkpoint.enabled``); objects without a namespace are taken as
    the DGD's. ``dgd_uid`` is the live DGD's UID (see checkpoint_id.dgd_uid_for).
    ``worker_hash`` is ``compute_dgd_workers_spec_hash(admitted_dgd)`` when the caller has
    it already (it does not depend on the uid set here: the DCDs it hashes carry none), so
    the worker DCDs are not generated twice. ``only`` ("grove" or "dcd"): the caller prints
    that set alone, so the other is not generated unless it is the provider's (its result
    is then None or [], with no error).
    """
    dgd = deep_copy(admitted_dgd)
    namespace = (dgd.get("metadata") or {}).get("namespace", "")
    objects = [_with_namespace(o, namespace) for o in checkpoints]
    uid, uid_source = "", ""
    if config.checkpoint.enabled:
        uid, uid_source = dgd_uid_for(dgd, objects, dgd_uid)
        if uid and not (dgd.get("metadata") or {}).get("uid"):
            dgd.setdefault("metadata", {})["uid"] = uid
    if worker_hash is None:
        try:
            worker_hash = compute_dgd_workers_spec_hash(dgd)
        except (WorkerHashError, DCDGenerationError) as err:
            raise OperatorRenderError(WORKER_HASH_STAGE + str(err)) from None

    resolution: dict[str, CheckpointResolution] = {}
    infos: dict[str, JSON] = {}
    if config.checkpoint.enabled or _any_checkpoint(dgd):
        try:
            resolution = resolve_dgd_checkpoints(
                dgd,
                worker_hash,
                objects,
                uid,
                checkpoint_gate_enabled=config.gates.checkpoint,
                config=config,
            )
        except CheckpointResolutionError as err:
            raise OperatorRenderError(f"failed to reconcile checkpoints: {err}") from None
        for name, res in resolution.items():
            if not res.ok:
                raise OperatorRenderError(
                    f"failed to reconcile checkpoints: {res.reason}", resolution
                )
            infos[name] = res.info

    provider = workload_provider(dgd)
    pcs: JSON | None = None
    pcs_error: str | None = None
    grove = provider == c.WORKLOAD_PROVIDER_GROVE

    try:
        if grove or only != TARGET_DCD:
            pcs = generate_grove_pod_clique_set(dgd, config, worker_hash, checkpoint_info=infos)
    except GroveError as err:
        if grove:  # the created object: the controller's refusal, with its stage
            raise OperatorRenderError(GROVE_STAGE + str(err), resolution) from None
        pcs_error = GROVE_STAGE + str(err)  # the path the operator does not take
    except (OperatorError, NotReproducedError) as err:
        if grove:
            raise  # the created object: its refusal (or what is not reproduced) stands
        pcs_error = str(err)  # the path the operator does not take

    dcds: list[JSON] = []
    dcds_error: str | None = None
    if grove and only == TARGET_GROVE:
        return OperatorResult(
            pcs, [], worker_hash, provider, resolution, uid, uid_source, pcs_error
        )
    try:
        generated = generate_dynamo_components_deployments(
            dgd, None, None, RollingUpdateContext(new_worker_hash=worker_hash)
        )

        for name, dcd in generated.items():
            apply_checkpoint_startup_policy(dcd, infos.get(name))
        dcds = printed_dcds(generated)
    except DCDGenerationError as err:
        dcds_error = DCD_STAGE + str(err)
        if not grove:
            raise OperatorRenderError(DCD_STAGE + str(err), resolution) from None
    return OperatorResult(
        pcs=pcs,
        dcds=dcds,
        worker_hash=worker_hash,
        provider=provider,
        checkpoint_resolution=resolution,
        dgd_uid=uid,
        dgd_uid_source=uid_source,
        pcs_error=pcs_error,
        dcds_error=dcds_error,
    )


def _any_checkpoint(dgd: JSON) -> bool:
    return any(
        ((comp.get("experimental") or {}).get("checkpoint") or {}).get("enabled")
        for comp in (dgd.get("spec") or {}).get("components") or []
    )


def _with_namespace(obj: JSON, namespace: str) -> JSON:
    meta = obj.get("metadata") or {}
    if meta.get("namespace"):
        return obj
    out = dict(obj)
    out["metadata"] = {**meta, "namespace": namespace}
    return out
