"""The error GenerateDynamoComponentsDeployments returns (internal/dynamo/graph.go).

Its own module so that graph_dcd.py and the DYN_DEPLOYMENT_CONFIG handling it calls can
both raise it without importing each other.
"""

from __future__ import annotations

from renderer.operator.errors import OperatorError


class DCDGenerationError(OperatorError):
    """GenerateDynamoComponentsDeployments returned an error (the operator's message)."""
