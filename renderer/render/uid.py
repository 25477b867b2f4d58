"""The DGD uid given by hand (`--dgd-uid`, a config entry's `dgdUID:`).

Automatic checkpoint names hash the live DGD's `metadata.uid`, which the API server assigns
(a lower-case RFC 4122 UUID). A uid one character off names a checkpoint that never
exists, and nothing would say so, so anything but that form is refused. Pure: no I/O.
"""

from __future__ import annotations

import re

from renderer.constants import DGD_UID_OPTION
from renderer.errors import UsageError

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def check_dgd_uid(uid: str, option: str = DGD_UID_OPTION) -> str:
    """`uid` when it has the form the API server gives uids, else a UsageError."""
    if not _UUID.match(uid):
        raise UsageError(
            f"{option} {uid[:80]!r} is not a DGD uid (the API server's form: 8-4-4-4-12"
            " lower-case hex digits, as `kubectl get dynamographdeployment NAME -n NS -o"
            " jsonpath='{.metadata.uid}'` prints it)"
        )
    return uid
