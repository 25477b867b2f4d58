"""The JSON tables in renderer/data, each parsed once per process.

The operator emulation and the binding encoder read the same type tables (dgd-types.json
three ways, binding-types.json two): one parse each instead of one per reader. The parsed
value is shared, so readers treat it as read-only and copy what they change.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def data_json(file_name: str) -> Any:
    """renderer/data/<file_name>, parsed (shared: do not mutate)."""
    return json.loads(resources.files("renderer").joinpath("data", file_name).read_text("utf-8"))
