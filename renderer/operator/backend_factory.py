"""BackendFactory (internal/dynamo/graph.go): the backend of a framework.

Apart from backend.py so that the backends, which import the protocol and helpers from
there, are not imported back by it.
"""

from __future__ import annotations

from typing import Any

from renderer.operator.backend import (
    BACKEND_FRAMEWORK_NOOP,
    BACKEND_FRAMEWORK_SGLANG,
    BACKEND_FRAMEWORK_TRTLLM,
    BACKEND_FRAMEWORK_VLLM,
    Backend,
    NoopBackend,
)
from renderer.operator.backend_vllm import VLLMBackend


def backend_factory(
    backend_framework: str, operator_config: Any, parent_graph_deployment_name: str
) -> Backend | None:
    """BackendFactory: the backend for a framework, None for an unknown one.

    ``operator_config`` is an ``OperatorConfig``; only TRT-LLM reads it (the MPI SSH secret).
    """
    if backend_framework == BACKEND_FRAMEWORK_SGLANG:
        from renderer.operator.backend_sglang import SGLangBackend  # noqa: PLC0415 - each backend only for a DGD that uses it

        return SGLangBackend()
    if backend_framework == BACKEND_FRAMEWORK_VLLM:
        return VLLMBackend(parent_graph_deployment_name)
    if backend_framework == BACKEND_FRAMEWORK_TRTLLM:
        from renderer.operator.backend_trtllm import TRTLLMBackend  # noqa: PLC0415 - each backend only for a DGD that uses it

        return TRTLLMBackend(operator_config.mpi_ssh_secret_name)
    if backend_framework == BACKEND_FRAMEWORK_NOOP:
        return NoopBackend()
    return None
