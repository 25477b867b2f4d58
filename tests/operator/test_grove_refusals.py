"""What the Grove emulation refuses instead of rendering it differently from the operator.

Each input starts from an oracle corpus case's admitted DGD and changes one thing the
operator would need the cluster (or a configuration the oracle does not run) for; the
operator's own error text is expected where it has one (graph.go, checkpoint storage.go).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from oracle_corpus import OracleCase, oracle_cases

from renderer.operator.config import FeatureGates
from renderer.operator.errors import NotReproducedError
from renderer.operator.graph_grove import GroveError, generate_grove_pod_clique_set

JSON = dict[str, Any]


def _case(name: str) -> OracleCase:
    return next(c for c in oracle_cases() if c.name == name)


def _render(case: OracleCase, dgd: JSON, **config_changes: Any) -> JSON:
    config = case.config()._replace(**config_changes)
    return generate_grove_pod_clique_set(
        dgd, config, case.worker_hash(), checkpoint_info=case.checkpoint_infos()
    )


def test_scheduler_integrations_both_on_are_refused() -> None:
    case = _case("beta-vllm-agg")
    gates = FeatureGates(kai_scheduler=True, volcano_scheduler=True)
    message = "kai-scheduler and volcano scheduler integrations cannot both be enabled for Grove"
    with pytest.raises(GroveError, match=message):
        _render(case, case.admitted_dgd(), gates=gates)


@pytest.mark.parametrize(
    "gates", [FeatureGates(kai_scheduler=True), FeatureGates(volcano_scheduler=True)]
)
def test_one_scheduler_integration_is_not_reproduced(gates: FeatureGates) -> None:
    case = _case("beta-vllm-agg")
    with pytest.raises(NotReproducedError, match="KAI/Volcano scheduler integrations"):
        _render(case, case.admitted_dgd(), gates=gates)


def test_cluster_topology_lookup_fails_as_in_an_empty_cluster() -> None:
    case = _case("beta-kvtransfer-discovery")
    dgd = case.admitted_dgd()
    dgd["spec"]["experimental"]["kvTransferPolicy"]["clusterTopologyName"] = "gpu-topology"
    with pytest.raises(GroveError) as info:
        _render(case, dgd)
    assert str(info.value) == (
        'spec.experimental.kvTransferPolicy.clusterTopologyName "gpu-topology" references a '
        "ClusterTopologyBinding resource that was not found"
    )


def test_unsupported_update_strategy_is_the_operators_error() -> None:
    case = _case("beta-vllm-agg")
    dgd = case.admitted_dgd()
    dgd["metadata"]["annotations"]["nvidia.com/grove-update-strategy"] = "Recreate"
    with pytest.raises(GroveError, match="unsupported Grove update strategy annotation"):
        _render(case, dgd)


def test_ready_wait_checkpoint_without_configured_storage_is_refused() -> None:
    """Storage discovery from the snapshot agent's DaemonSets needs the cluster."""
    case = _case("beta-checkpoint-wait-ready")
    config = case.config()
    checkpoint = config.checkpoint._replace(storage=type(config.checkpoint.storage)())
    with pytest.raises(GroveError, match="discovering the checkpoint storage"):
        _render(case, case.admitted_dgd(), checkpoint=checkpoint)


def test_ready_wait_checkpoint_without_id_is_the_operators_error() -> None:
    case = _case("beta-checkpoint-wait-ready")
    infos = copy.deepcopy(case.checkpoint_infos()) or {}
    infos["VllmDecodeWorker"]["Hash"] = ""
    with pytest.raises(GroveError, match="checkpoint is ready but hash is not set"):
        generate_grove_pod_clique_set(
            case.admitted_dgd(), case.config(), case.worker_hash(), checkpoint_info=infos
        )


def test_preserved_alpha_metadata_of_the_wrong_type_ignores_the_whole_record() -> None:
    """json.Unmarshal of the record fails, so the operator restores none of it (the oracle
    case beta-preserved-record-wrong-kind): no service labels or annotations on any clique."""
    case = _case("alpha-metadata-env")
    dgd = case.admitted_dgd()
    annotations = dgd["metadata"]["annotations"]
    payload = json.loads(annotations["nvidia.com/dgd-spec"])
    payload["spec"]["services"]["Frontend"]["labels"] = {"svc-label": 7}
    annotations["nvidia.com/dgd-spec"] = json.dumps(payload)
    pcs = _render(case, dgd)
    for clique in pcs["spec"]["template"]["cliques"]:
        assert "svc-label" not in (clique.get("labels") or {})
        assert "example.com/svc-annotation" not in (clique.get("annotations") or {})


def test_preserved_alpha_payload_with_an_unknown_key_is_not_reproduced() -> None:
    """Go's decoder would match ``Services`` case-insensitively; not reproduced."""
    case = _case("alpha-metadata-env")
    dgd = case.admitted_dgd()
    annotations = dgd["metadata"]["annotations"]
    payload = json.loads(annotations["nvidia.com/dgd-spec"])
    payload["spec"] = {"Services": payload["spec"]["services"]}
    annotations["nvidia.com/dgd-spec"] = json.dumps(payload)
    with pytest.raises(NotReproducedError, match="Services"):
        _render(case, dgd)
