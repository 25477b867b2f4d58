"""Render a DGD and its captured checkpoints into the objects the operator creates.

The objects come from the operator emulation (renderer.operator, pinned): the DGD is
admitted as the API server and the operator's webhooks admit it (CRD defaults, v1alpha1 ->
v1beta1 conversion, defaulting, validation), then rendered as the controller renders it
(worker hash, checkpoint resolution, the Grove PodCliqueSet and the DCDs). On top, and
only there, render places the checkpoint binding annotations (renderer.render.place).

Public surface:

- `render(dgd, checkpoints, *, target=None, namespace=None, config=None, warn_unused=True)
  -> RenderResult`:
  `target` "grove" or "dcd" picks the object set; None takes the operator's workload
  provider (the `nvidia.com/workload-provider` the defaulting webhook sets: grove unless
  the DGD says `nvidia.com/enable-grove: "false"`). `namespace` is used when the DGD has
  none. `config` is the operator configuration (None: the pinned defaults).
- `RenderResult(objects, warnings, target, checkpoint_files, worker_hash)`: the
  PodCliqueSet, or the DCDs sorted by name (as the operator lists them).
- `admit(dgd, *, namespace=None, config=None) -> Admission`: the DGD as the API server
  and the operator's webhooks admit it (what `render` renders), with the operator
  configuration it is rendered with; `worker_hash(admitted)`: the operator's worker hash
  of an admitted DGD. For lint --dgd, which must agree with what render renders.
- `checkpoint_names(dgd, dgd_uid, ...)`: the DynamoCheckpoint each component restores from.
- `TARGETS`, `EMULATED_OPERATOR`.

Raises InputError / BindingError (file:line:column) on bad input or an operator refusal;
nothing partial. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from renderer import EMULATED_OPERATOR
from renderer.errors import InputError
from renderer.operator import consts
from renderer.source.model import SourceObject

if TYPE_CHECKING:
    from renderer.operator.config import OperatorConfig
    from renderer.render.snapshots import Pending

from renderer.binding.checkpoint import is_checkpoint
from renderer.constants import TARGET_DCD, TARGET_GROVE, TARGETS
from renderer.keys import CHECKPOINT_NAME_KEY, RESTORE_CANDIDATE_KEY
from renderer.operator.admission.errors import AdmissionError
from renderer.operator.admission.pipeline import admit_with_warnings
from renderer.operator.checkpoint_hash import checkpoint_name, dgd_checkpoint_id
from renderer.operator.config import FeatureGates
from renderer.operator.consts import WORKLOAD_PROVIDER_COMPONENT, WORKLOAD_PROVIDER_GROVE
from renderer.operator.errors import NotReproducedError, OperatorError
from renderer.operator.graph_dcd import DCDGenerationError
from renderer.operator.hash import WorkerHashError, compute_dgd_workers_spec_hash
from renderer.operator.render import (
    WORKER_HASH_STAGE,
    OperatorRenderError,
    render_operator,
    workload_provider,
)
from renderer.operator_settings import default_operator_config
from renderer.record import FrozenRecord, Record, field
from renderer.render.locate import (
    admission_error,
    component_path,
    internal_error,
    not_reproduced,
    render_refusal,
)
from renderer.render.names import UnsafeNameError, check_label_values
from renderer.render.place import (
    place_on_dcds,
    place_on_pcs,
    stray_restore_candidates,
    strip_binding_keys,
)
from renderer.render.snapshots import Lookups, MissingCheckpointRef, resolve_snapshots
from renderer.workloads import is_worker_type

# the operator's workload provider -> the object set it creates
_PROVIDER_TARGET = {WORKLOAD_PROVIDER_GROVE: TARGET_GROVE, WORKLOAD_PROVIDER_COMPONENT: TARGET_DCD}

__all__ = [
    "EMULATED_OPERATOR",
    "TARGETS",
    "Admission",
    "RenderResult",
    "admit",
    "checkpoint_names",
    "render",
    "worker_hash",
]

JSON = dict[str, Any]


class RenderResult(Record):
    """The rendered objects in output order, and warnings for stderr."""

    objects: list[JSON]
    warnings: list[str] = field(default_factory=list)
    target: str = ""
    # Files of the snapshots some component restores from (for --trusted-key checks).
    checkpoint_files: tuple[str, ...] = ()
    worker_hash: str = ""
    # The snapshot objects some component restores from, in component order.
    checkpoints: tuple[SourceObject, ...] = ()
    # The checkpointed components whose checkpoint is not among the snapshots: rendered as
    # the operator renders them before the capture, without a binding.
    pending: tuple[Pending, ...] = ()
    # The snapshots of a checkpointed component the operator no longer reads (a warning
    # says so): not "unused".
    outdated: tuple[SourceObject, ...] = ()


def _namespace(dgd: SourceObject, namespace: str | None) -> str:
    own = dgd.namespace
    if own:
        return own
    if namespace:
        return namespace
    # at the metadata mapping itself (its value): that is where the namespace goes
    mark = dgd.mark(("metadata",), key=False)
    raise InputError(
        "the DGD has no metadata.namespace (rendered objects need one): pass"
        " -n/--namespace NS, as with kubectl apply -n, or set it in the DGD",
        dgd.file,
        mark.line,
        mark.column,
    )


def _checkpointing(config: OperatorConfig) -> OperatorConfig:
    """The configuration with checkpointing on (a DGD that checkpoints needs it on)."""
    if config.checkpoint.enabled and config.gates.checkpoint:
        return config
    gates: FeatureGates = config.gates._replace(checkpoint=True)
    checkpoint = config.checkpoint._replace(enabled=True)
    return config._replace(gates=gates, checkpoint=checkpoint)


def _checkpoints_anything(admitted: JSON) -> bool:
    return any(
        ((c.get("experimental") or {}).get("checkpoint") or {}).get("enabled")
        for c in (admitted.get("spec") or {}).get("components") or []
    )


class Admission(FrozenRecord):
    """A DGD as the API server and the operator's webhooks admit it (CRD defaults, the
    v1alpha1 -> v1beta1 conversion, defaulting, validation)."""

    data: JSON  # the admitted DGD (v1beta1)
    namespace: str  # the one it is rendered in
    config: OperatorConfig  # the operator configuration it is rendered with
    warnings: tuple[str, ...] = ()  # the admission warnings, each at the DGD's name


def admit(
    dgd: SourceObject, *, namespace: str | None = None, config: OperatorConfig | None = None
) -> Admission:
    """Admit `dgd` as `render` does: in its own namespace, else `namespace`; `config` the
    operator configuration (None: the pinned defaults). The checkpoint gate is on for the
    admission (a DGD that checkpoints is meant for an operator with checkpointing enabled,
    and the gate changes nothing for the others), and on in the configuration returned
    when a component checkpoints. Raises InputError at the DGD's field when the operator
    refuses it, or when it has no namespace."""
    ns = _namespace(dgd, namespace)
    base = config if config is not None else default_operator_config(namespace_restricted=ns)
    try:
        admitted, warnings = admit_with_warnings(
            dgd.data, namespace=ns, config=_checkpointing(base)
        )
    except NotReproducedError as exc:
        raise not_reproduced(dgd, exc) from None
    except AdmissionError as exc:
        raise admission_error(dgd, exc) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        raise internal_error(dgd, exc) from exc
    where = dgd.where(("metadata", "name"))
    return Admission(
        admitted,
        ns,
        _checkpointing(base) if _checkpoints_anything(admitted) else base,
        tuple(f"{where}: admission warning: {w}" for w in warnings),
    )


def render(
    dgd: SourceObject,
    checkpoints: Sequence[SourceObject],
    *,
    target: str | None = None,
    namespace: str | None = None,
    config: OperatorConfig | None = None,
    warn_unused: bool = True,
    dgd_uid: str | None = None,
    dgd_uid_source: str = "--dgd-uid",
    snapshot_dir: str | None = None,
) -> RenderResult:
    """Render `dgd` bound to the snapshots the operator resolves (see the module docstring).
    `warn_unused=False`: no warning for a snapshot none of its components restores from.
    `dgd_uid`: the live DGD's uid (how messages name it: `dgd_uid_source`), which automatic
    checkpoint names need; `snapshot_dir`: where the capture advice saves a snapshot."""
    if target is not None and target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    admission = admit(dgd, namespace=namespace, config=config)
    return _render_admitted(
        dgd,
        admission.data,
        checkpoints,
        target,
        admission.namespace,
        admission.config,
        list(admission.warnings),
        warn_unused,
        Lookups(dgd_uid or None, dgd_uid_source, snapshot_dir),
    )


def checkpoint_names(
    dgd: SourceObject,
    dgd_uid: str,
    *,
    namespace: str | None = None,
    config: OperatorConfig | None = None,
) -> dict[str, str]:
    """The DynamoCheckpoint each checkpoint-enabled component restores from, by component:
    its checkpointRef, else `checkpoint-<DGDCheckpointID>` for the DGD uid `dgd_uid` (what
    the operator reads; the snapshot to capture and commit)."""
    admission = admit(dgd, namespace=namespace, config=config)
    admitted_hash = worker_hash(admission.data)
    names: dict[str, str] = {}
    for component in (admission.data.get("spec") or {}).get("components") or []:
        cfg = (component.get("experimental") or {}).get("checkpoint") or {}
        if not cfg.get("enabled"):
            continue
        name = str(component.get("name", ""))
        hash_for_id = admitted_hash if is_worker_type(component.get("type")) else ""
        names[name] = str(cfg.get("checkpointRef") or "") or checkpoint_name(
            dgd_checkpoint_id(admission.namespace, dgd.name, dgd_uid, name, hash_for_id)
        )
    return names


def _earlier_checkpoint_refusal(
    admitted: JSON,
    cfg: OperatorConfig,
    checkpoints: Sequence[SourceObject],
    lookups: Lookups,
    missing: Any,
) -> None:
    """Raise the operator's checkpoint refusal when it fails on a component before the one
    whose checkpointRef is missing (it stops at its first failure); return otherwise."""

    try:  # the checkpoint reconcile runs before anything is generated, and fails here
        render_operator(
            admitted,
            cfg,
            checkpoints=[o.data for o in checkpoints if is_checkpoint(o)],
            dgd_uid=lookups.dgd_uid or None,
            only=TARGET_DCD,
        )
    except OperatorRenderError as exc:
        failed = [r for r in exc.checkpoint_resolution.values() if not r.ok]
        if failed and failed[0].component != missing.component:
            raise
    # otherwise the missing reference is the first failure: render names the snapshot


def _render_admitted(  # noqa: PLR0917 - the steps of one function, split for length
    dgd: SourceObject,
    admitted: JSON,
    checkpoints: Sequence[SourceObject],
    target: str | None,
    namespace: str,
    cfg: OperatorConfig,
    warnings: list[str],
    warn_unused: bool,
    lookups: Lookups,
) -> RenderResult:

    chosen = target or _PROVIDER_TARGET.get(workload_provider(admitted), TARGET_GROVE)
    try:
        admitted_hash = worker_hash(admitted)
        try:
            resolution = resolve_snapshots(
                dgd,
                admitted,
                checkpoints,
                admitted_hash,
                namespace,
                lookups.dgd_uid,
                warn_unused=warn_unused,
                dgd_uid_source=lookups.dgd_uid_source,
                snapshot_dir=lookups.snapshot_dir,
            )
        except MissingCheckpointRef as missing:
            _earlier_checkpoint_refusal(admitted, cfg, checkpoints, lookups, missing)
            raise
        result = render_operator(
            admitted,
            cfg,
            checkpoints=resolution.operator_inputs,
            dgd_uid=resolution.dgd_uid or None,
            worker_hash=admitted_hash,
            only=chosen,
        )
    except NotReproducedError as exc:
        raise not_reproduced(dgd, exc) from None
    except AdmissionError as exc:
        raise admission_error(dgd, exc) from None
    except OperatorRenderError as exc:
        raise render_refusal(dgd, exc.message) from None
    except OperatorError as exc:
        raise render_refusal(dgd, f"{type(exc).__name__}: {exc}") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # Neither of the port's two expected errors: a defect of the port, not a refusal.
        raise internal_error(dgd, exc) from exc
    objects = [_kubernetes_order(o) for o in _chosen_objects(dgd, result, chosen)]
    if resolution.renames:
        objects = [_renamed(obj, resolution.renames) for obj in objects]
    if resolution.unnamed:
        for obj in objects:
            _drop_unnamed(obj, resolution.unnamed)
    bindings = {
        name: r.binding for name, r in resolution.components.items() if r.binding is not None
    }

    for key in sorted(strip_binding_keys(objects)):
        warnings.append(
            f"{dgd.where(('metadata', 'name'))}: annotation {key} is written only by the"
            " renderer (the binding on a checkpointed component's DCD and engine cliques, the"
            " binding map on the PodCliqueSet); the value in the DGD is dropped"
        )
    names = {
        name: r.snapshot.name
        for name, r in resolution.components.items()
        if r.binding is not None and r.snapshot is not None
    }
    if chosen == TARGET_GROVE:
        place_on_pcs(objects[0], bindings, names)
    else:
        place_on_dcds(objects, bindings, names)
    _check_labels(dgd, objects)
    _check_unique_names(dgd, objects)
    _check_restore_candidates(dgd, objects, set(resolution.components))
    return RenderResult(
        objects,
        [*warnings, *resolution.warnings],
        chosen,
        resolution.files,
        result.worker_hash,
        tuple(r.snapshot.source for r in resolution.components.values() if r.snapshot),
        tuple(resolution.pending),
        tuple(cp.source for cp in resolution.outdated),
    )


def worker_hash(admitted: JSON) -> str:
    """The operator's worker hash of an admitted DGD (`Admission.data`); OperatorRenderError
    when the operator cannot compute it."""
    try:
        return compute_dgd_workers_spec_hash(admitted)
    except (WorkerHashError, DCDGenerationError) as err:
        raise OperatorRenderError(WORKER_HASH_STAGE + str(err)) from None


def _chosen_objects(dgd: SourceObject, result: Any, chosen: str) -> list[JSON]:
    if chosen == TARGET_GROVE:
        if result.pcs is None:
            raise render_refusal(dgd, result.pcs_error or "no PodCliqueSet")
        return [result.pcs]
    if result.dcds_error is not None:
        raise render_refusal(dgd, result.dcds_error)
    return list(result.dcds)


_TOP_ORDER = ("apiVersion", "kind", "metadata", "spec", "status")


def _kubernetes_order(obj: JSON) -> JSON:
    """apiVersion, kind, metadata, spec, status first, as Kubernetes writes an object."""
    first = {k: obj[k] for k in _TOP_ORDER if k in obj}
    return {**first, **{k: v for k, v in obj.items() if k not in first}}


def _renamed(node: Any, renames: dict[str, str]) -> Any:
    """`node` with the placeholder checkpoint name and ID the operator was given replaced."""
    if isinstance(node, dict):
        return {k: _renamed(v, renames) for k, v in node.items()}
    if isinstance(node, list):
        return [_renamed(v, renames) for v in node]
    if isinstance(node, str):
        for old, new in renames.items():
            if old in node:
                node = node.replace(old, new)
    return node


def _drop_unnamed(node: Any, unnamed: set[str]) -> None:
    """Remove, in place, every mapping entry whose string value holds one of `unnamed`: the
    checkpoint name and ID the operator computes without the DGD uid are not the live
    ones (state 0), so the restore-candidate name and the DCD's checkpointRef are left out
    rather than rendered wrong."""
    if isinstance(node, list):
        for item in node:
            _drop_unnamed(item, unnamed)
    elif isinstance(node, dict):
        for key in list(node):
            value = node[key]
            if isinstance(value, str) and any(u in value for u in unnamed):
                del node[key]
            else:
                _drop_unnamed(value, unnamed)


def _check_unique_names(dgd: SourceObject, objects: list[JSON]) -> None:
    """Two DCDs, or two cliques, of one name: the operator would write one over the other
    (components whose names differ only in case), so refuse rather than render both."""

    def fail(what: str, name: str, component: str, consequence: str) -> InputError:
        path = component_path(dgd, component) or ("metadata", "name")
        mark = dgd.mark(path)
        return InputError(
            f"component {component!r}: the operator would create two {what} named {name!r}"
            " (component names that differ only in case, or one shaped like another's role)"
            f" and {consequence}; rename one",
            dgd.file,
            mark.line,
            mark.column,
        )

    seen: set[str] = set()
    for obj in objects:
        meta = obj.get("metadata") or {}
        name = str(meta.get("name", ""))
        component = str((meta.get("labels") or {}).get(consts.KUBE_LABEL_DYNAMO_COMPONENT, ""))
        if name in seen:
            raise fail(
                f"{obj.get('kind')}s", name, component, "the second would overwrite the first"
            )
        seen.add(name)
        seen_cliques: set[str] = set()
        for clique in (obj.get("spec") or {}).get("template", {}).get("cliques") or []:
            clique_name = str(clique.get("name", ""))
            owner = str((clique.get("labels") or {}).get(consts.KUBE_LABEL_DYNAMO_COMPONENT, ""))
            if clique_name in seen_cliques:
                raise fail(
                    "Grove cliques",
                    clique_name,
                    owner,
                    "Grove's PodCliqueSet webhook refuses duplicate clique names",
                )
            seen_cliques.add(clique_name)


def _check_restore_candidates(
    dgd: SourceObject, objects: list[JSON], checkpointed: set[str]
) -> None:
    for component in stray_restore_candidates(objects, checkpointed):
        mark = dgd.mark(component_path(dgd, component) or ("metadata", "name"))
        raise InputError(
            f"component {component!r} is not checkpointed, but the DGD gives its pods"
            f" {RESTORE_CANDIDATE_KEY} or {CHECKPOINT_NAME_KEY}: the operator keeps them, so"
            " its pods are restore candidates the pod webhook refuses without a binding;"
            " remove them (only the operator writes them)",
            dgd.file,
            mark.line,
            mark.column,
        )


def _check_labels(dgd: SourceObject, objects: list[JSON]) -> None:
    try:
        for obj in objects:
            check_label_values(obj)
    except UnsafeNameError as exc:
        mark = dgd.mark(("metadata", "name"))
        raise InputError(str(exc), dgd.file, mark.line, mark.column) from None
