"""The files rendered objects are written to, and a last check of their label values.

Object names themselves are the operator's (renderer.operator: the PodCliqueSet name
shortened to Grove's budget, DCD names with the worker hash).
"""

from __future__ import annotations

import re

_FILE_NAME = re.compile(r"[a-z0-9][-a-z0-9.]*\.yaml\Z")


class UnsafeNameError(ValueError):
    """A name that cannot be made to fit (carries the component it is about, or "")."""

    def __init__(self, message: str, component: str = "") -> None:
        super().__init__(message)
        self.component = component


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
                            "alphanumeric at both ends): the API server would refuse the"
                            " object, though the operator renders it; shorten the DGD or"
                            " component name"
                        )
            else:
                check_label_values(value, where)
    elif isinstance(obj, list):
        for index, item in enumerate(obj):
            check_label_values(item, f"{path}[{index}]")
