"""dynamo-render: render and lint Dynamo workloads pinned to verified checkpoints."""

__version__ = "0.1.0"
#: The operator whose rendering renderer.operator emulates (upstream main, pinned).
EMULATED_OPERATOR = "Dynamo operator 1.5.0 (main 2a6da14c)"
#: Where this tool lives (SARIF's `informationUri`): None until the project publishes a
#: repository address; never the operator's, which would send code-scanning users there.
PROJECT_URL: str | None = None
__all__ = ["EMULATED_OPERATOR", "PROJECT_URL", "__version__"]
