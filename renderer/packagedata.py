"""The JSON tables in renderer/data, each parsed once per process.

The operator emulation and the binding encoder read the same type tables (dgd-types.json
three ways, the binding type table two): one parse each instead of one per reader. The parsed
value is shared, so readers treat it as read-only and copy what they change.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

# The package is installed as plain files (setuptools, never a zip), so its data is read
# with the built-in open: importlib.resources costs a cold start about 5 ms of imports
# (tempfile, shutil, zipfile, random) that a one-file lint would pay for one read.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))  # noqa: PTH100, PTH120


def package_text(folder: str, file_name: str) -> str:
    """The text of renderer/<folder>/<file_name>, a file shipped with the package."""
    path = os.path.join(_PACKAGE_DIR, folder, file_name)  # noqa: PTH118
    with open(path, encoding="utf-8") as handle:  # noqa: PTH123
        return handle.read()


@cache
def data_json(file_name: str) -> Any:
    """renderer/data/<file_name>, parsed (shared: do not mutate)."""
    return json.loads(package_text("data", file_name))
