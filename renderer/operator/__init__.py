"""Emulation of the Dynamo operator's pure rendering path (DGD -> PCS / DCDs).

Pinned to upstream ai-dynamo/dynamo main at 2a6da14c83617f5412caba5777dbf0e2399e9c5f
(2026-08-21), module deploy/operator. Each module here follows one operator file so it can
be read beside its Go counterpart; a function keeps the Go name in snake_case and the Go
parameters in the Go order (``GenerateBasePodSpec`` -> ``generate_base_pod_spec``).

Layout (Go file -> module):

- ``admission/``: what happens before the controller sees a DGD.
  - ``crd_defaults.py``: the DGD CRD's structural ``default:`` values (API server).
  - ``conversion.py``: api/v1alpha1/*_conversion.go (v1alpha1 -> v1beta1 hub).
  - ``defaulting.py``: internal/webhook/defaulting/dynamographdeployment_handler.go.
  - ``validation.py`` (+ helpers): internal/webhook/validation/dynamographdeployment*.go.
  - ``pipeline.py``: ``admit(dgd_json, ...) -> AdmittedDGD`` in the oracle's order.
- ``config.py``: api/config/v1alpha1 (OperatorConfiguration defaults as pinned).
- ``consts.py``: internal/consts.
- ``graph_podspec.py`` (+ ``graph_env.py`` etc.): the pod-spec half of internal/dynamo/graph.go
  (GenerateBasePodSpec, generatePodSpecForComponent, labels, annotations).
- ``component_common.py``, ``component_frontend.py``, ``component_worker.py``,
  ``component_planner.py``, ``component_epp.py``, ``shared_memory.py``, ``utils.py``.
- ``backend_vllm.py``, ``backend_sglang.py``, ``backend_trtllm.py``, ``backend.py``
  (Backend protocol, NoopBackend, BackendFactory), ``multinode.py`` (grove.go's
  GroveMultinodeDeployer).
- ``gms.py``: internal/gms.
- ``graph_grove.py``: GenerateGrovePodCliqueSet, buildCliqueForRole, role expansion,
  startup dependencies, scaling groups.
- ``graph_dcd.py``: GenerateDynamoComponentsDeployments, generateSingleDCD,
  the nvidia.com/dcd-spec annotation, DYN_DEPLOYMENT_CONFIG.
- ``hash.py``: internal/dynamo/hash.go (the v2 worker hash).
- ``checkpoint_id.py``: internal/checkpoint/hash.go + resolve.go (DGDCheckpointID, name).
- ``gomarshal.py``: what Go's encoding/json writes for a typed value (omitempty, zero
  structs), so dicts built here come out as the operator's objects do.

Data: every object is a plain JSON-like value (dict/list/str/int/bool/None) keyed by the Go
json tags, exactly what ``json.Unmarshal`` would fill; an absent key is Go's zero/nil value.
Pure: no I/O, no click, nothing imported at package import time.
"""
