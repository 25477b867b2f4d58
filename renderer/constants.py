"""Facts every layer shares, defined once: exit codes, kind names, render targets, limits.

Standard library only (no parser, no click): the CLI imports it before any command runs.
Closed vocabularies are `Literal` types, so mypy catches a misspelt value.
"""

from __future__ import annotations

from typing import Final, Literal

from renderer.operator import consts

# Exit codes of every command (the CLI epilog and docs/ci.md say the same).
EXIT_OK: Final = 0
EXIT_FINDINGS: Final = 1  # lint errors, files --fix changed, --check out of date, no match
EXIT_ERROR: Final = 2  # usage or input error: one message, no output
EXIT_INTERNAL: Final = 70  # a defect of the tool (EX_SOFTWARE), never the input's fault
EXIT_INTERRUPTED: Final = 130  # Ctrl-C, as shells report SIGINT

# Size cap of one input file, unless --max-bytes says otherwise.
DEFAULT_MAX_BYTES: Final = 16 * 1024 * 1024

# Kinds the tool reads or writes (exact strings, as the API server spells them).
DGD_KIND: Final = consts.DGD_KIND
DCD_KIND: Final = consts.DCD_KIND
PCS_KIND: Final = consts.PCS_KIND
CHECKPOINT_KIND: Final = consts.CHECKPOINT_KIND

# What `render` produces: one DCD per component, or one Grove PodCliqueSet.
Target = Literal["dcd", "grove"]
TARGET_DCD: Final = "dcd"
TARGET_GROVE: Final = consts.WORKLOAD_PROVIDER_GROVE
TARGETS: Final[tuple[Target, ...]] = (TARGET_DCD, TARGET_GROVE)
NAMESPACE_OPTION: Final = "-n/--namespace"  # how messages name the command line's namespace
DGD_UID_OPTION: Final = "--dgd-uid"  # how messages name the command line's DGD uid

# spec.gpuMemoryService.mode of a component, as the operator spells it after defaulting.
GmsMode = Literal["intraPod", "interPod"]
GMS_INTRA_POD: Final = consts.GMS_MODE_INTRA_POD_V1ALPHA1
GMS_INTER_POD: Final = consts.GMS_MODE_INTER_POD_V1ALPHA1
