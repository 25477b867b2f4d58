"""The emulation's refusals land at the field's file:line:column in the user's DGD.

Positions are read off the test's own input text; the exceptions are the operator
package's (an admission refusal with its input path, a not-reproduced value with the
admitted DGD's dotted field).
"""

from __future__ import annotations

from render_support import dgd

from renderer.operator.admission.errors import AdmissionError, NotReproducedError
from renderer.render.locate import admission_error, dotted_to_path, not_reproduced

BETA = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: g
  namespace: ns
spec:
  components:
    - name: Frontend
      type: frontend
    - name: Decode
      type: decode
      experimental:
        checkpoint:
          targetContainerName: engine
"""
ALPHA = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: g
  namespace: ns
spec:
  services:
    Decode:
      componentType: decode
"""


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_dotted_field_of_a_named_component() -> None:
    source = dgd(BETA)
    path = dotted_to_path(source, "spec.components[Decode].experimental.checkpoint")
    assert path == ("spec", "components", 1, "experimental", "checkpoint")
    assert dotted_to_path(source, "spec.components[1].type") == ("spec", "components", 1, "type")


def test_v1alpha1_component_is_located_at_its_service() -> None:
    path = dotted_to_path(dgd(ALPHA), "spec.components[Decode].experimental.checkpoint")
    assert path == ("spec", "services", "Decode")


def test_not_reproduced_is_exit_2_at_the_field() -> None:
    source = dgd(BETA)
    exc = NotReproducedError(
        "not reproduced here",
        "spec.components[Decode].experimental.checkpoint.targetContainerName",
    )
    error = not_reproduced(source, exc)
    assert error.exit_code == 2
    assert (error.line, error.column) == (_line(BETA, "targetContainerName"), 11)
    assert "not reproduced" in error.message and "targetContainerName" in error.message


def test_admission_refusal_at_its_input_path() -> None:
    source = dgd(BETA)
    error = admission_error(source, AdmissionError("denied", ("spec", "components", 1, "type")))
    assert (error.line, error.column, error.message) == (_line(BETA, "type: decode"), 7, "denied")
    # the one NotReproducedError, with an input path (admission) as with a dotted one
    unknown = not_reproduced(source, NotReproducedError("a rule", ("spec", "components", 1)))
    assert unknown.message == (
        "not reproduced (the operator's result is not known here): spec.components[1]: a rule"
    )
    assert unknown.line == _line(BETA, "- name: Decode")
