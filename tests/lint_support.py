"""What the binding rules' fixture tests share.

The lint fixtures are built on reference vector 02, whose snapshot name
(`checkpoint-9f1e2d3c4b5a6978`) comes from the Go vector set, not from the operator's
`checkpoint-<DGDCheckpointID>` for the fixture workloads: rule checkpoint-outdated rightly
reports every one of them. Renaming the snapshot would change its binding, which the
vectors fix, so these tests leave that one rule out; its own tests are in
test_lint_checkpoint_outdated.py.
"""

from __future__ import annotations

VECTOR_FIXTURES = ("--disable", "checkpoint-outdated")
OUTDATED_RULE = "checkpoint-outdated"
