"""ComponentDefaultsFactory (internal/dynamo/component_common.go): the defaults of a type.

Apart from component_common.py so that the per-type modules, which build on its base
defaults, are not imported back by it.
"""

from __future__ import annotations

from renderer.operator import consts
from renderer.operator.component_common import BaseComponentDefaults, ComponentDefaults
from renderer.operator.component_frontend import FrontendDefaults
from renderer.operator.component_worker import WorkerDefaults


def component_defaults_factory(component_type: str) -> ComponentDefaults:
    """ComponentDefaultsFactory."""
    if component_type == consts.COMPONENT_TYPE_FRONTEND:
        return FrontendDefaults()
    if component_type in {
        consts.COMPONENT_TYPE_WORKER,
        consts.COMPONENT_TYPE_PREFILL,
        consts.COMPONENT_TYPE_DECODE,
    }:
        return WorkerDefaults()
    if component_type == consts.COMPONENT_TYPE_PLANNER:
        from renderer.operator.component_planner import PlannerDefaults  # noqa: PLC0415 - planner defaults only for a DGD with a planner

        return PlannerDefaults()
    if component_type == consts.COMPONENT_TYPE_EPP:
        from renderer.operator.component_epp import EPPDefaults  # noqa: PLC0415 - EPP defaults only for a DGD with an EPP component

        return EPPDefaults()
    return BaseComponentDefaults()
