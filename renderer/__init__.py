"""dynamo-render: render and lint Dynamo workloads pinned to verified checkpoints."""

__version__ = "0.1.0"
__all__ = ["__version__"]
