"""Emulation of the Dynamo operator's pure rendering path (DGD -> PCS / DCDs).

Pinned to upstream ai-dynamo/dynamo main at 2a6da14c83617f5412caba5777dbf0e2399e9c5f
(2026-08-21), module deploy/operator. Each module here follows one operator file so it can
be read beside its Go counterpart; a function keeps the Go name in snake_case and the Go
parameters in the Go order (``GenerateBasePodSpec`` -> ``generate_base_pod_spec``).

Layout (Go file -> module; ``PORT.tsv`` maps each Go function of those files to its Python
counterpart, checked against the pinned source, and ``scripts/operator_port.py changed``
lists what an upstream bump touches):

- ``errors.py``: the port's two expected errors, ``OperatorError`` (the operator's own
  text; every stage's error class derives from it) and ``NotReproducedError`` (names the
  field). Anything else escaping the port is a defect (an internal error, exit 70).
- Go's own semantics (strconv.Quote, strings.ToLower/TrimSpace/Fields, int64 wrap-around)
  come from ``renderer/goruntime/``, checked against values the Go toolchain printed.

- ``admission/``: what happens before the controller sees a DGD (``pipeline.admit``).
  - ``pipeline.py``: ``admit(dgd_json, ...)`` in the oracle's order.
  - ``crd_defaults.py``: the DGD CRD's structural ``default:`` values (API server).
  - ``conversion.py`` + ``conversion_spec.py``: api/v1alpha1 dynamographdeployment_conversion.go,
    preservation.go and shared_spec_conversion.go (v1alpha1 -> v1beta1 hub).
  - ``defaulting.py``: internal/webhook/defaulting/dynamographdeployment_handler.go.
  - ``validation.py`` (+ ``validation_shared.py``, ``validation_helpers.py``,
    ``validation_topology.py``, ``validation_v1alpha1.py``, ``validation_paths.py``):
    internal/webhook/validation/dynamographdeployment*.go, shared_v1beta1.go, shared_helpers.go.
  - ``provideroverride.py`` + ``grove_shape.py``: internal/provideroverride.
  - ``runtimeversion.py``: internal/runtimeversion.
  - ``fielderrors.py``: apimachinery util/validation/field; ``errors.py``: AdmissionError.
- ``config.py``: api/config/v1alpha1 (OperatorConfiguration defaults as pinned).
- ``consts.py``: internal/consts, and every other constant of the operator (snapshot
  protocol keys, kinds, API versions): their one home; ``renderer/keys.py`` re-exports.
- ``compatibility.py``: internal/features/compatibility (origin-version gates, loose semver).
- ``graph_podspec.py`` (+ ``graph_env.py``, ``podspec_volumes.py``): the pod-spec half of
  internal/dynamo/graph.go (GenerateBasePodSpec, generatePodSpecForComponent, env, volumes).
- ``v1beta1_helpers.py``: internal/dynamo/v1beta1_helpers.go.
- ``component_common.py``, ``component_frontend.py``, ``component_worker.py``,
  ``component_planner.py``, ``component_epp.py``, ``shared_memory.py``, ``utils.py``.
- ``backend.py`` (Backend protocol, NoopBackend, BackendFactory), ``backend_vllm.py``,
  ``backend_sglang.py``, ``backend_trtllm.py``; ``multinode.py`` (grove.go's
  GroveMultinodeDeployer, lws.go).
- ``gms.py``: internal/gms; ``failover.py``: failover.go + failover_vllm.go;
  ``dra.py``: internal/dra.
- ``graph_grove.py`` (+ ``graph_grove_roles.py``, ``graph_grove_spec.py``,
  ``graph_grove_meta.py``): GenerateGrovePodCliqueSet, buildCliqueForRole, role expansion,
  startup dependencies, scaling groups, PCS naming, clique labels/annotations.
- ``graph_dcd.py``: GenerateDynamoComponentsDeployments, generateSingleDCD, labels;
  ``dcd_alpha.py`` + ``dcd_alpha_restore.py``: the v1alpha1 round trip behind the
  nvidia.com/dcd-spec annotation; ``dyn_deployment_config.py``: DYN_DEPLOYMENT_CONFIG.
- ``hash.py``: internal/dynamo/hash.go (the v2 worker hash).
- ``checkpoint_id.py``: internal/checkpoint/hash.go + resolve.go and the controller's
  checkpoint resolution; ``checkpoint_restore.py``: internal/checkpoint podspec.go (restore).
- ``render.py``: ``render_operator``, the controller's render step (hash, checkpoints, PCS, DCDs).
- ``v1beta1_marshal.py``: api/v1beta1/marshal.go (the empty value-struct strip).
- Go's encoding/json, mergo and equality.Semantic over the pinned types (one type table,
  one value model for admission and the controller) are ``renderer/goruntime/``:
  ``typetable.py``, ``encoding_json.py``, ``mergo.py``, ``equality.py``.

Data: every object is a plain JSON-like value (dict/list/str/int/bool/None) keyed by the Go
json tags, exactly what ``json.Unmarshal`` would fill; an absent key is Go's zero/nil value.
Pure: no I/O, no click, nothing imported at package import time.
"""
