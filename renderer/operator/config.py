"""The operator configuration the render path reads (api/config/v1alpha1, pinned).

``OperatorConfig`` mirrors ``OperatorConfiguration`` after ``SetDefaultsOperatorConfiguration``
(defaults.go) plus what the reference oracle sets on top: ``namespace.restricted`` = the DGD
namespace, ``gpu.discoveryEnabled = false``, feature gates Grove and LWS on, KAI scheduler,
Volcano, DRA, Istio and GPU discovery off, Checkpoint on only in checkpoint mode, operator
version 1.5.0 (the chart appVersion the defaulting webhook stamps) and no docker-registry
secrets in the cluster (so image pull secret discovery finds nothing).

Only the fields a rendering function reads are carried; a field keeps its Go json tag in the
attribute docstring. Everything is immutable: derive variants with ``_replace``. The
records are NamedTuples, not frozen dataclasses: every render builds this configuration,
and creating eight frozen dataclass types cost 5 to 10 ms of each cold start (their
methods are compiled from source at import), a NamedTuple type almost nothing.
"""

from __future__ import annotations

from typing import NamedTuple

#: v1alpha1.DefaultSeccompProfile
DEFAULT_SECCOMP_PROFILE = "profiles/block-iouring.json"
#: The chart appVersion at the pinned commit (oracle --operator-version default).
DEFAULT_OPERATOR_VERSION = "1.5.0"


class InfrastructureConfig(NamedTuple):
    """``infrastructure``: addresses injected as env (empty = not injected)."""

    nats_address: str = ""  # natsAddress
    etcd_address: str = ""  # etcdAddress
    model_express_url: str = ""  # modelExpressURL
    prometheus_endpoint: str = ""  # prometheusEndpoint


class GroveConfig(NamedTuple):
    """``orchestrators.grove``."""

    enabled: bool | None = None  # enabled (nil = auto-detect)
    #: terminationDelay as seconds (defaults.go: 15m when zero).
    termination_delay_seconds: int = 15 * 60


class CheckpointSeccompConfig(NamedTuple):
    """``checkpoint.seccomp``."""

    disabled: bool = False
    profile: str = ""


class CheckpointPVCConfig(NamedTuple):
    """``checkpoint.storage.pvc``."""

    pvc_name: str = ""  # pvcName
    base_path: str = ""  # basePath
    create: bool = False
    size: str = ""
    storage_class_name: str = ""  # storageClassName
    access_mode: str = ""  # accessMode


class CheckpointStorageConfig(NamedTuple):
    """``checkpoint.storage``."""

    type: str = ""
    pvc: CheckpointPVCConfig = CheckpointPVCConfig()


class CheckpointConfig(NamedTuple):
    """``checkpoint``; ``seccomp`` None is Go's nil pointer."""

    enabled: bool = False
    seccomp: CheckpointSeccompConfig | None = None
    storage: CheckpointStorageConfig = CheckpointStorageConfig()
    cleanup_image: str = ""  # cleanupImage

    def effective_seccomp_profile(self) -> str:
        """EffectiveSeccompProfile: the profile to use, or "" when disabled."""
        if self.seccomp is None:
            return DEFAULT_SECCOMP_PROFILE
        if self.seccomp.disabled:
            return ""
        return self.seccomp.profile or DEFAULT_SECCOMP_PROFILE


class FeatureGates(NamedTuple):
    """internal/features Gates as the oracle fixes them (no cluster discovery)."""

    checkpoint: bool = False
    grove: bool = True
    lws: bool = True
    kai_scheduler: bool = False
    volcano_scheduler: bool = False
    dra: bool = False
    istio: bool = False
    gpu_discovery: bool = False


class OperatorConfig(NamedTuple):
    """OperatorConfiguration (+ gates and version) as the oracle renders with it."""

    #: namespace.restricted (the oracle sets the DGD namespace).
    namespace_restricted: str = ""
    #: discovery.backend ("kubernetes" by default, or "etcd").
    discovery_backend: str = "kubernetes"
    #: gpu.discoveryEnabled (defaults.go: true; the oracle: false).
    gpu_discovery_enabled: bool = False
    infrastructure: InfrastructureConfig = InfrastructureConfig()
    grove: GroveConfig = GroveConfig()
    #: mpi.sshSecretName / mpi.sshSecretNamespace (empty by default).
    mpi_ssh_secret_name: str = ""
    mpi_ssh_secret_namespace: str = ""
    checkpoint: CheckpointConfig = CheckpointConfig()
    #: ingress.hostSuffix etc. are not on the pod-spec path; add when needed.
    gates: FeatureGates = FeatureGates()
    #: The version the defaulting webhook stamps as the origin-version annotation.
    operator_version: str = DEFAULT_OPERATOR_VERSION
    #: False: the cluster holds no docker-registry secrets, so discovery adds none.
    image_pull_secrets_discovered: bool = False
    #: The docker-registry secrets the DGD's namespace holds, as (registry host, secret
    #: names) pairs (internal/secrets: what the operator's index would find); none by default.
    docker_registry_secrets: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def for_oracle(
        cls,
        namespace: str,
        *,
        checkpoint_enabled: bool = False,
        checkpoint_pvc: str = "snapshot-pvc",
        checkpoint_base_path: str = "/checkpoints",
        checkpoint_seccomp_profile: str = DEFAULT_SECCOMP_PROFILE,
        operator_version: str = DEFAULT_OPERATOR_VERSION,
    ) -> OperatorConfig:
        """The configuration ``oracle render --namespace NS`` uses (checkpoint flags mirrored)."""
        checkpoint = CheckpointConfig()
        if checkpoint_enabled:
            seccomp = (
                CheckpointSeccompConfig(profile=checkpoint_seccomp_profile)
                if checkpoint_seccomp_profile
                else CheckpointSeccompConfig(disabled=True)
            )
            checkpoint = CheckpointConfig(
                enabled=True,
                seccomp=seccomp,
                storage=CheckpointStorageConfig(
                    type="pvc",
                    pvc=CheckpointPVCConfig(
                        pvc_name=checkpoint_pvc, base_path=checkpoint_base_path, create=False
                    ),
                ),
                cleanup_image="busybox:1.36",
            )
        return cls(
            namespace_restricted=namespace,
            checkpoint=checkpoint,
            gates=FeatureGates(checkpoint=checkpoint_enabled),
            operator_version=operator_version,
        )
