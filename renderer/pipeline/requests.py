"""The pipelines' requests and outcomes, apart from the pipelines themselves.

A command's module extends its request class when it is imported, which happens for its
--help and for shell completion too; here, the request does not bring the lint engine or
the operator emulation with it. `renderer.pipeline.lint` and `renderer.pipeline.render`
name these too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.constants import DEFAULT_MAX_BYTES, DGD_UID_OPTION, NAMESPACE_OPTION, Target
from renderer.record import FrozenRecord, field

if TYPE_CHECKING:
    from renderer.fix import FixReport
    from renderer.lint.engine import LintResult
    from renderer.lint.finding import Finding
    from renderer.operator.config import OperatorConfig

Document = tuple[str, dict[str, Any]]  # (source name for `# Source:`, rendered object)


class LintRequest(FrozenRecord):
    """What to lint and how (paths as given; `-` is stdin)."""

    paths: Sequence[str]
    checkpoints: Sequence[str] = ()
    dgd: str | None = None  # also compare with a fresh render of this DGD (render-drift)
    fix: bool = False
    strict: bool = False  # warnings count as errors
    trusted_keys: Sequence[str] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: Sequence[str] = ()  # rule `schema`: these CRDs instead of the bundled schemas
    namespace: str | None = None  # --dgd without metadata.namespace: render it here
    # --fix writes only inside these (resolved) folders or files; empty: the working directory
    write_roots: Sequence[str] = ()
    operator: Any = None  # OperatorConfig of the config's `operator:` section, for --dgd
    disabled_rules: Sequence[str] = ()  # --disable: rules not run
    jobs: int | None = None  # worker processes for a large input; None: the CPUs available
    baseline: str | None = None  # --baseline: findings it lists are suppressed


class LintOutcome(NamedTuple):
    """The findings left, the --fix report, and whether the run fails."""

    result: LintResult  # after --fix: of the files as they are now, with the fix counts
    fix: FixReport | None  # None: --fix not asked, or nothing was fixable
    strict: bool = False

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings

    @property
    def summary(self) -> dict[str, Any]:
        return self.result.summary()

    @property
    def failed(self) -> bool:
        """Exit 1: errors (warnings too with --strict), or --fix changed a file."""
        result = self.result
        return bool(result.changed_files or result.errors or (self.strict and result.warnings))


class RenderRequest(FrozenRecord):
    """What to render and how (paths as given; `-` is stdin)."""

    dgd_file: str  # a file of one or more DGDs, or a folder of such files
    checkpoints: Sequence[str] = ()
    target: Target | None = None  # None: what the operator creates for each DGD
    output_dir: str | None = None  # plan one file per object in this folder
    trusted_keys: Sequence[str] = ()  # matched snapshots must be signed by one of these
    max_bytes: int = DEFAULT_MAX_BYTES
    crds: Sequence[str] = ()  # validate against these CRDs instead of the bundled schemas
    source_name: str | None = None  # for `# Source:` (default: dgd_file as given)
    namespace: str | None = None  # for DGDs without metadata.namespace (kubectl apply -n)
    namespace_option: str = NAMESPACE_OPTION  # how messages name where it came from
    operator: OperatorConfig | None = None  # the config's `operator:` section
    # output_dir must be inside one of these (symlinks resolved); empty: anywhere
    write_roots: Sequence[str] = ()
    # the live DGD's metadata.uid, which automatic checkpoint names need (one DGD only)
    dgd_uid: str | None = None
    dgd_uid_option: str = DGD_UID_OPTION  # how messages name where it came from
    kustomization: bool = False  # with output_dir: keep output_dir/kustomization.yaml listing it


class OutputPlan(FrozenRecord):
    """What `-o DIR` changes: the files whose content changes, and the owned files that no
    object renders to any more. Unchanged files are in neither."""

    folder: str
    writes: list[tuple[str, bytes]] = field(default_factory=list)  # (path, content)
    removals: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.writes or self.removals)


class RenderOutcome(FrozenRecord):
    """The rendered documents in output order, the warnings, and with `output_dir` the
    plan of the folder."""

    documents: list[Document]
    warnings: list[str] = field(default_factory=list)
    output: OutputPlan | None = None
    # one line per checkpointed component rendered without a binding because its
    # checkpoint is not captured or not committed (what --require-bound refuses)
    unbound: list[str] = field(default_factory=list)
