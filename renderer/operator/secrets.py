"""internal/secrets/docker.go and internal/common/url.go: image pull secret discovery.

The operator indexes the docker-registry secrets (type kubernetes.io/dockerconfigjson) of a
namespace by the registry hosts of their `auths`, and gives a pod every secret indexed under
the host of a container's image. Offline there is no cluster to list: the `operator:`
section of the config says which secrets the namespace holds for which registry host
(`imagePullSecrets`), and this index answers as the operator's would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from renderer.goruntime.strconv import quote as go_quote
from renderer.operator.errors import OperatorError

_PORT = re.compile(r":[0-9]*\Z")


def get_host(some_url: str) -> str:
    """common.GetHost: url.Parse's Host of the URL (a scheme added when there is none).

    ValueError where Go's url.Parse fails or finds no host: an image such as `busybox:1.36`
    (its "port" is not a number) has none, so the operator discovers no secret for it.
    """
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in some_url):
        raise OperatorError(f"invalid control character in URL {go_quote(some_url)}")
    if "://" not in some_url:
        some_url = "dummy://" + some_url
    rest = some_url.split("://", 1)[1]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            raise OperatorError(f"missing ']' in host of {go_quote(some_url)}")
        port = host[end + 1 :]
        if port and not _PORT.match(port):
            raise OperatorError(f"invalid port {go_quote(port)} after host of {go_quote(some_url)}")
    elif ":" in host:
        port = host[host.rindex(":") :]
        if not _PORT.match(port):
            raise OperatorError(f"invalid port {go_quote(port)} after host of {go_quote(some_url)}")
    if host == "":
        raise OperatorError(f"no host found in URL {go_quote(some_url)}")
    return host


class DockerSecretIndex:
    """DockerSecretIndexer for one namespace: registry host -> sorted, unique secret names."""

    def __init__(self, namespace: str, secrets: Mapping[str, Sequence[str]]) -> None:
        # RefreshIndex: each `auths` key counts by its host (a key it cannot read is
        # skipped, as the operator logs it and goes on); names sorted and unique.
        self._namespace = namespace
        index: dict[str, set[str]] = {}
        for auth, names in secrets.items():
            try:
                host = get_host(auth)
            except ValueError:
                continue
            index.setdefault(host, set()).update(names)
        self._secrets = {host: sorted(names) for host, names in index.items()}

    def get_secrets(self, namespace: str, registry: str) -> list[str]:
        """GetSecrets: the secrets indexed under the host of `registry` (an image)."""
        host = get_host(registry)
        if namespace != self._namespace:
            return []
        return list(self._secrets.get(host, ()))


def secrets_retriever_for(config: object, namespace: str) -> DockerSecretIndex | None:
    """The index of the config's `docker_registry_secrets` (None when it lists none, as the
    oracle's empty cluster)."""
    secrets = getattr(config, "docker_registry_secrets", ())
    if not secrets:
        return None
    return DockerSecretIndex(namespace, dict(secrets))
