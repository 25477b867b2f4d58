"""The `operator:` section of `.dynamo-render.yaml`: the operator settings that change what
it renders, with the pinned operator's defaults (its configuration defaults and Helm chart
values at main 2a6da14c, as the reference oracle runs it).

    operator:
      operatorVersion: 1.5.0          # stamped as nvidia.com/dynamo-operator-origin-version
      discoveryBackend: kubernetes    # or etcd
      groveTerminationDelay: 15m      # PodCliqueSet spec.template.terminationDelay
      infrastructure:                 # injected as env when set
        natsAddress: ""
        etcdAddress: ""
        modelExpressURL: ""
        prometheusEndpoint: ""
      mpiSshSecretName: ""            # TRT-LLM multinode SSH secret
      mpiSshSecretNamespace: ""
      checkpoint:                     # used when a DGD checkpoints a component
        pvcName: snapshot-pvc
        basePath: /checkpoints
        seccompProfile: profiles/block-iouring.json   # "" disables it

Checkpointing itself is on for a DGD that checkpoints a component (an operator that
restores it has it on) and off otherwise, as the oracle renders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from renderer.operator.config import (
    DEFAULT_SECCOMP_PROFILE,
    CheckpointConfig,
    CheckpointPVCConfig,
    CheckpointSeccompConfig,
    CheckpointStorageConfig,
    GroveConfig,
    InfrastructureConfig,
    OperatorConfig,
)

Fail = Callable[[tuple[str | int, ...], str], Exception]

KEYS = (
    "operatorVersion",
    "discoveryBackend",
    "groveTerminationDelay",
    "infrastructure",
    "mpiSshSecretName",
    "mpiSshSecretNamespace",
    "checkpoint",
    "imagePullSecrets",
)
INFRASTRUCTURE_KEYS = ("natsAddress", "etcdAddress", "modelExpressURL", "prometheusEndpoint")
CHECKPOINT_KEYS = ("pvcName", "basePath", "seccompProfile")
DISCOVERY_BACKENDS = ("kubernetes", "etcd")
DEFAULT_CHECKPOINT_PVC = "snapshot-pvc"
DEFAULT_CHECKPOINT_BASE_PATH = "/checkpoints"
DEFAULT_CLEANUP_IMAGE = "busybox:1.36"
_DURATION_PART = re.compile(r"([0-9]+)(h|m|s)")
_UNITS = {"h": 3600, "m": 60, "s": 1}


def default_operator_config(**changes: Any) -> OperatorConfig:
    """The pinned defaults (checkpoint storage as the oracle's checkpoint mode sets it)."""
    checkpoint = CheckpointConfig(
        enabled=False,
        seccomp=CheckpointSeccompConfig(profile=DEFAULT_SECCOMP_PROFILE),
        storage=CheckpointStorageConfig(
            type="pvc",
            pvc=CheckpointPVCConfig(
                pvc_name=DEFAULT_CHECKPOINT_PVC, base_path=DEFAULT_CHECKPOINT_BASE_PATH
            ),
        ),
        cleanup_image=DEFAULT_CLEANUP_IMAGE,
    )
    return OperatorConfig(checkpoint=checkpoint)._replace(**changes)


def parse_duration(text: str) -> int | None:
    """Seconds of a Go duration made of whole h/m/s parts (`15m`, `1h30m`, `90s`), or None."""
    if not text:
        return None
    pos, total = 0, 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            return None
        total += int(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    return total if pos == len(text) else None


def _string(section: dict[str, Any], key: str, path: tuple[str | int, ...], fail: Fail) -> str:
    value = section.get(key, "")
    if not isinstance(value, str):
        raise fail((*path, key), f"{'.'.join(map(str, (*path, key)))} must be a string")
    return value


def _registry_secrets(
    section: dict[str, Any], path: tuple[str | int, ...], fail: Fail
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`imagePullSecrets`: registry host -> the docker-registry secret names the namespace
    holds for it (what the operator's secret index would find there)."""
    where = (*path, "imagePullSecrets")
    value = section["imagePullSecrets"]
    if not isinstance(value, dict):
        raise fail(where, "operator.imagePullSecrets must map a registry host to secret names")
    pairs: list[tuple[str, tuple[str, ...]]] = []
    for host, names in value.items():
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise fail(
                (*where, str(host)),
                f"operator.imagePullSecrets.{host} must be a list of secret names",
            )
        pairs.append((str(host), tuple(names)))
    return tuple(sorted(pairs))


def _mapping(value: Any, path: tuple[str | int, ...], keys: tuple[str, ...], fail: Fail) -> Any:
    dotted = ".".join(map(str, path))
    if not isinstance(value, dict):
        raise fail(path, f"{dotted} must be a mapping")
    for key in value:
        if key not in keys:
            raise fail(
                (*path, key),
                f"unknown key {key!r} in {dotted} (expected one of: {', '.join(keys)})",
            )
    return value


def parse_operator_section(value: Any, fail: Fail) -> OperatorConfig:
    """The OperatorConfig the section describes; `fail(path, message)` builds the error."""
    path: tuple[str | int, ...] = ("operator",)
    section = _mapping(value, path, KEYS, fail)
    config = default_operator_config()
    changes: dict[str, Any] = {}
    if "operatorVersion" in section:
        version = _string(section, "operatorVersion", path, fail)
        if not version:
            raise fail((*path, "operatorVersion"), "operator.operatorVersion must not be empty")
        changes["operator_version"] = version
    if "discoveryBackend" in section:
        backend = _string(section, "discoveryBackend", path, fail)
        if backend not in DISCOVERY_BACKENDS:
            raise fail(
                (*path, "discoveryBackend"),
                f"operator.discoveryBackend must be one of: {', '.join(DISCOVERY_BACKENDS)}",
            )
        changes["discovery_backend"] = backend
    if "groveTerminationDelay" in section:
        seconds = parse_duration(_string(section, "groveTerminationDelay", path, fail))
        if not seconds:
            raise fail(
                (*path, "groveTerminationDelay"),
                "operator.groveTerminationDelay must be a positive duration such as 15m or 1h30m",
            )
        changes.update(grove=GroveConfig(termination_delay_seconds=seconds))
    if "infrastructure" in section:
        infra_path = (*path, "infrastructure")
        infra = _mapping(section["infrastructure"], infra_path, INFRASTRUCTURE_KEYS, fail)
        changes["infrastructure"] = InfrastructureConfig(
            nats_address=_string(infra, "natsAddress", infra_path, fail),
            etcd_address=_string(infra, "etcdAddress", infra_path, fail),
            model_express_url=_string(infra, "modelExpressURL", infra_path, fail),
            prometheus_endpoint=_string(infra, "prometheusEndpoint", infra_path, fail),
        )
    for key, attr in (
        ("mpiSshSecretName", "mpi_ssh_secret_name"),
        ("mpiSshSecretNamespace", "mpi_ssh_secret_namespace"),
    ):
        if key in section:
            changes[attr] = _string(section, key, path, fail)
    if "imagePullSecrets" in section:
        changes["docker_registry_secrets"] = _registry_secrets(section, path, fail)
    if "checkpoint" in section:
        cp_path = (*path, "checkpoint")
        cp = _mapping(section["checkpoint"], cp_path, CHECKPOINT_KEYS, fail)
        pvc = config.checkpoint.storage.pvc
        pvc = pvc._replace(
            pvc_name=_string(cp, "pvcName", cp_path, fail) if "pvcName" in cp else pvc.pvc_name,
            base_path=_string(cp, "basePath", cp_path, fail) if "basePath" in cp else pvc.base_path,
        )
        storage = config.checkpoint.storage._replace(pvc=pvc)
        seccomp = config.checkpoint.seccomp
        if "seccompProfile" in cp:
            profile = _string(cp, "seccompProfile", cp_path, fail)
            seccomp = (
                CheckpointSeccompConfig(profile=profile)
                if profile
                else CheckpointSeccompConfig(disabled=True)
            )
        changes["checkpoint"] = config.checkpoint._replace(storage=storage, seccomp=seccomp)
    return config._replace(**changes)
