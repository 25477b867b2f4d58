"""The admission stages' refusal: the operator's text and its field (an OperatorError).

``message`` is exactly what the operator returns (what the reference oracle prints after
``refused: ``), for example ``admission webhook denied the request: DynamoGraphDeployment.nvidia.com
"x" is invalid: spec.components[2].experimental.checkpoint: Forbidden: ...``.

``path`` locates the first field the message names as JSON keys and list indexes into the
*input* document where that is possible (a v1alpha1 input gets ``spec.services.<name>...``
rather than the v1beta1 ``spec.components[i]...``), so a caller can print file:line:column.
``causes`` lists every field error of the message with its own path, in the operator's order.
"""

from __future__ import annotations

from renderer.operator.errors import NotReproducedError, OperatorError, PathTuple

# The port's one not-reproduced error is re-exported for the admission modules.
__all__ = ["AdmissionError", "NotReproducedError", "PathTuple"]


class AdmissionError(OperatorError):
    """The operator refused the DGD (validating webhook, conversion or controller preflight)."""

    def __init__(
        self,
        message: str,
        path: PathTuple = (),
        causes: tuple[tuple[str, PathTuple], ...] = (),
        warnings: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.path = path
        #: (one field error's text, its path) for every error the message aggregates.
        self.causes = causes
        #: Admission warnings the webhook returned together with the refusal.
        self.warnings = warnings

    def __repr__(self) -> str:
        return f"AdmissionError({self.message!r}, path={self.path!r})"
