"""Names of rendered objects and of the files they are written to.

Grove requires len(pcs) + len(scaling group) + len(clique) <= 45 for every clique; the
operator shortens a long DGD name to fit and keeps it unique with 4 hex digits of the
FNV-1a 32 hash of the full name. Anything still over budget fails closed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

GROVE_NAME_BUDGET = 45
MIN_PCS_NAME_LENGTH = 8  # the operator never shortens below this
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
_FILE_NAME = re.compile(r"[a-z0-9][-a-z0-9.]*\.yaml\Z")


def fnv1a_32(data: bytes) -> int:
    """FNV-1a, 32 bits (Go's hash/fnv New32a)."""
    h = _FNV32_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def name_suffix(name: str) -> str:
    """The 4 hex digits the operator appends to a shortened name."""
    return f"{fnv1a_32(name.encode('utf-8')) & 0xFFFF:04x}"


class UnsafeNameError(ValueError):
    """A name that cannot be made to fit (carries the component it is about, or "")."""

    def __init__(self, message: str, component: str = "") -> None:
        super().__init__(message)
        self.component = component


@dataclass(frozen=True)
class CliqueBudget:
    """One component's share of the Grove budget: its scaling group (or "") and cliques."""

    component: str
    scaling_group: str
    cliques: tuple[str, ...]

    @property
    def length(self) -> int:
        longest = max((len(c) for c in self.cliques), default=0)
        return len(self.scaling_group) + longest


def pcs_name(dgd_name: str, budgets: Iterable[CliqueBudget]) -> str:
    """The PodCliqueSet name: the DGD name, shortened with a hash suffix when over budget."""
    budget_list = list(budgets)
    widest = max((b.length for b in budget_list), default=0)
    pcs_budget = max(GROVE_NAME_BUDGET - widest, MIN_PCS_NAME_LENGTH)
    name = (
        dgd_name
        if len(dgd_name) <= pcs_budget
        else (dgd_name[: pcs_budget - 5] + "-" + name_suffix(dgd_name))
    )
    for budget in budget_list:
        total = len(name) + budget.length
        if total > GROVE_NAME_BUDGET:
            raise UnsafeNameError(
                f"component {budget.component!r}: Grove names too long even after shortening "
                f"the PodCliqueSet name to {name!r}: {name!r} + "
                f"{budget.scaling_group or '(no scaling group)'!r} + longest clique is {total} "
                f"characters, Grove allows {GROVE_NAME_BUDGET}; shorten the component name",
                budget.component,
            )
    return name


def dcd_name(dgd_name: str, component_name: str, worker_hash: str) -> str:
    """`<dgd>-<lower component>`, plus `-<worker hash>` when known (worker-class only)."""
    base = f"{dgd_name}-{component_name.lower()}"
    return f"{base}-{worker_hash}" if worker_hash else base


def output_file_name(kind: str, name: str) -> str:
    """`<kind-lowercase>-<name>.yaml`, refusing anything that is not a plain file name.

    Object names are validated as Kubernetes names before rendering; this is the second
    fence: no `/`, no `..`, no NUL, no leading dot, so a write can never leave DIR.
    """
    file_name = f"{kind.lower()}-{name}.yaml"
    if (
        "/" in file_name
        or "\\" in file_name
        or "\0" in file_name
        or ".." in file_name
        or not _FILE_NAME.match(file_name)
    ):
        raise UnsafeNameError(f"refusing to write {kind} {name!r}: not a safe file name")
    return file_name


_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")
MAX_LABEL_VALUE = 63


def check_label_values(obj: object, path: str = "") -> None:
    """Every `labels` map in a rendered object holds valid label values (else UnsafeNameError).

    Long DGD and component names can push the operator's derived labels (the selector
    `<dgd>-<component>`, the Dynamo namespace `<ns>-<dgd>`) past 63 characters; the API
    server would reject the object, so refuse to render it.
    """
    if isinstance(obj, dict):
        for key, value in obj.items():
            where = f"{path}.{key}" if path else str(key)
            if key == "labels" and isinstance(value, dict):
                for label, text in value.items():
                    if isinstance(text, str) and (
                        len(text) > MAX_LABEL_VALUE or not _LABEL_VALUE.match(text)
                    ):
                        raise UnsafeNameError(
                            f"label {label} = {text!r} ({len(text)} characters) is not a valid "
                            f"Kubernetes label value (at most {MAX_LABEL_VALUE} characters, "
                            "alphanumeric at both ends); shorten the DGD or component name"
                        )
            else:
                check_label_values(value, where)
    elif isinstance(obj, list):
        for index, item in enumerate(obj):
            check_label_values(item, f"{path}[{index}]")
