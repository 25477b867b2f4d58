"""dynamo-render: render and lint Dynamo workloads pinned to verified checkpoints."""

__version__ = "0.1.0"
#: The operator whose rendering renderer.operator emulates (upstream main, pinned).
EMULATED_OPERATOR = "Dynamo operator 1.5.0 (main 2a6da14c)"
__all__ = ["EMULATED_OPERATOR", "__version__"]
