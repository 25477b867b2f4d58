"""internal/consts/consts.go at the pinned operator commit (values the render path reads).

Names keep the Go spelling in UPPER_SNAKE form so a reader can grep one against the other.
Other helpers may append constants here in small commits.
"""

from __future__ import annotations

from typing import Final

DYNAMO_SERVICE_PORT: Final = 8000
DYNAMO_SERVICE_PORT_NAME: Final = "http"
DYNAMO_CONTAINER_PORT_NAME: Final = "http"

DYNAMO_PLANNER_METRICS_PORT: Final = 9085
DYNAMO_METRICS_PORT_NAME: Final = "metrics"

DYNAMO_SYSTEM_PORT: Final = 9090
DYNAMO_SYSTEM_PORT_NAME: Final = "system"

EPP_GRPC_PORT: Final = 9002
EPP_GRPC_PORT_NAME: Final = "grpc"

DYNAMO_NIXL_PORT: Final = 19090
DYNAMO_NIXL_PORT_NAME: Final = "nixl"

DYNAMO_FPM_BASE_PORT: Final = 20380

MPI_RUN_SSH_PORT: Final = 2222

DEFAULT_SECURITY_CONTEXT_FS_GROUP: Final = 1000

ENV_DYNAMO_SERVICE_PORT: Final = "DYNAMO_PORT"

KUBE_LABEL_DYNAMO_SELECTOR: Final = "nvidia.com/selector"
KUBE_ANNOTATION_ENABLE_GROVE: Final = "nvidia.com/enable-grove"
KUBE_ANNOTATION_WORKLOAD_PROVIDER: Final = "nvidia.com/workload-provider"
WORKLOAD_PROVIDER_COMPONENT: Final = "component"
WORKLOAD_PROVIDER_GROVE: Final = "grove"
KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY: Final = "nvidia.com/grove-update-strategy"
KUBE_ANNOTATION_ISTIO_SIDECAR_INJECT: Final = "sidecar.istio.io/inject"

KUBE_ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY: Final = (
    "nvidia.com/disable-image-pull-secret-discovery"
)
KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE: Final = "nvidia.com/dynamo-kube-discovery-mode"
KUBE_ANNOTATION_GPU_POWER_LIMIT: Final = "dynamo.nvidia.com/gpu-power-limit"

KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: Final = "nvidia.com/dynamo-graph-deployment-name"
KUBE_LABEL_DYNAMO_COMPONENT: Final = "nvidia.com/dynamo-component"
KUBE_LABEL_DYNAMO_NAMESPACE: Final = "nvidia.com/dynamo-namespace"
KUBE_LABEL_DYNAMO_COMPONENT_TYPE: Final = "nvidia.com/dynamo-component-type"
KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE: Final = "nvidia.com/dynamo-sub-component-type"
KUBE_LABEL_DYNAMO_COMPONENT_CLASS: Final = "nvidia.com/dynamo-component-class"
KUBE_LABEL_DYNAMO_BASE_MODEL: Final = "nvidia.com/dynamo-base-model"
KUBE_LABEL_DYNAMO_BASE_MODEL_HASH: Final = "nvidia.com/dynamo-base-model-hash"
KUBE_ANNOTATION_DYNAMO_BASE_MODEL: Final = "nvidia.com/dynamo-base-model"
KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED: Final = "nvidia.com/dynamo-discovery-enabled"
KUBE_LABEL_DYNAMO_WORKER_HASH: Final = "nvidia.com/dynamo-worker-hash"

CHECKPOINT_AUTO_ANNOTATION: Final = "nvidia.com/dynamo-auto-checkpoint"
CHECKPOINT_DELETION_POLICY_ANNOTATION: Final = "nvidia.com/dynamo-checkpoint-deletion-policy"
CHECKPOINT_RESTORE_CANDIDATE_ANNOTATION: Final = "nvidia.com/dynamo-checkpoint-restore-candidate"
CHECKPOINT_NAME_ANNOTATION: Final = "nvidia.com/dynamo-checkpoint-name"
CHECKPOINT_STARTUP_POLICY_ANNOTATION: Final = "nvidia.com/dynamo-checkpoint-startup-policy"
SNAPSHOT_OWNER_LABEL: Final = "nvidia.com/snapshot-owner"

KUBE_LABEL_VALUE_FALSE: Final = "false"
KUBE_LABEL_VALUE_TRUE: Final = "true"

KUBE_LABEL_DYNAMO_COMPONENT_POD: Final = "nvidia.com/dynamo-component-pod"
KUBE_RESOURCE_GPU_NVIDIA: Final = "nvidia.com/gpu"

ENV_KV_TRANSFER_DOMAIN: Final = "DYN_KV_TRANSFER_DOMAIN"
ENV_KV_TRANSFER_ENFORCEMENT: Final = "DYN_KV_TRANSFER_ENFORCEMENT"
ENV_KV_TRANSFER_PREFERRED_WEIGHT: Final = "DYN_KV_TRANSFER_PREFERRED_WEIGHT"
ENV_TOPOLOGY_ENABLED: Final = "DYN_TOPOLOGY_ENABLED"
ENV_TOPOLOGY_MOUNT_PATH: Final = "DYN_TOPOLOGY_MOUNT_PATH"

KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY: Final = "nvidia.com/topology-label-key"
KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME: Final = "nvidia.com/topology-cluster-topology-name"
KUBE_LABEL_DYNAMO_TOPOLOGY_PREFIX: Final = "nvidia.com/dynamo-topology."

DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR: Final = "DYN_DEPLOYMENT_CONFIG"
DYNAMO_NAMESPACE_ENV_VAR: Final = "DYN_NAMESPACE"
DYNAMO_NAMESPACE_PREFIX_ENV_VAR: Final = "DYN_NAMESPACE_PREFIX"
DYNAMO_NAMESPACE_WORKER_SUFFIX_ENV_VAR: Final = "DYN_NAMESPACE_WORKER_SUFFIX"
DYNAMO_COMPONENT_ENV_VAR: Final = "DYN_COMPONENT"
DYNAMO_DISCOVERY_BACKEND_ENV_VAR: Final = "DYN_DISCOVERY_BACKEND"

GLOBAL_DYNAMO_NAMESPACE: Final = "dynamo"

COMPONENT_TYPE_PLANNER: Final = "planner"
COMPONENT_TYPE_FRONTEND: Final = "frontend"
COMPONENT_TYPE_WORKER: Final = "worker"
COMPONENT_TYPE_PREFILL: Final = "prefill"
COMPONENT_TYPE_DECODE: Final = "decode"
COMPONENT_TYPE_EPP: Final = "epp"
COMPONENT_TYPE_DEFAULT: Final = "default"

COMPONENT_CLASS_WORKER: Final = "worker"
PLANNER_SERVICE_ACCOUNT_NAME: Final = "planner-serviceaccount"
EPP_SERVICE_ACCOUNT_NAME: Final = "epp-serviceaccount"
EPP_CLUSTER_ROLE_NAME: Final = "epp-cluster-role"

DEFAULT_INGRESS_SUFFIX: Final = "local"

#: DefaultGroveTerminationDelay (15 * time.Minute), in seconds.
DEFAULT_GROVE_TERMINATION_DELAY_SECONDS: Final = 15 * 60

KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION: Final = "nvidia.com/dynamo-operator-origin-version"
KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND: Final = (
    "nvidia.com/vllm-distributed-executor-backend"
)
VLLM_MP_MASTER_PORT: Final = "29500"
VLLM_NIXL_SIDE_CHANNEL_HOST_ENV_VAR: Final = "VLLM_NIXL_SIDE_CHANNEL_HOST"
VLLM_DP_MASTER_IP_ENV_VAR: Final = "VLLM_DP_MASTER_IP"
POD_IP_ENV_VAR: Final = "POD_IP"

KUBE_ANNOTATION_ENABLE_METRICS: Final = "nvidia.com/enable-metrics"
KUBE_LABEL_METRICS_ENABLED: Final = "nvidia.com/metrics-enabled"
KUBE_VALUE_NAME_SHARED_MEMORY: Final = "shared-memory"
DEFAULT_SHARED_MEMORY_MOUNT_PATH: Final = "/dev/shm"
DEFAULT_SHARED_MEMORY_SIZE: Final = "8Gi"

DEFAULT_VLLM_CACHE_MOUNT_POINT: Final = "/root/.cache/vllm"

KUBE_ANNOTATION_KAI_SCHEDULER_QUEUE: Final = "nvidia.com/kai-scheduler-queue"
KUBE_LABEL_KAI_SCHEDULER_QUEUE: Final = "kai.scheduler/queue"
KAI_SCHEDULER_NAME: Final = "kai-scheduler"
DEFAULT_KAI_SCHEDULER_QUEUE: Final = "dynamo"

KUBE_ANNOTATION_VOLCANO_QUEUE: Final = "nvidia.com/volcano-queue"
GROVE_ANNOTATION_VOLCANO_QUEUE: Final = "scheduling.grove.io/volcano-queue"
VOLCANO_SCHEDULER_NAME: Final = "volcano"

GROVE_ROLE_SUFFIX_LEADER: Final = "ldr"
GROVE_ROLE_SUFFIX_WORKER: Final = "wkr"
GROVE_ROLE_SUFFIX_GMS: Final = "gms"

MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH: Final = 45

KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER: Final = (
    "nvidia.com/dynamo-failover-engine-group-member"
)

DISCOVERY_BACKEND_KUBERNETES: Final = "kubernetes"
MAIN_CONTAINER_NAME: Final = "main"
FRONTEND_SIDECAR_CONTAINER_NAME: Final = "sidecar-frontend"

RESTART_ANNOTATION: Final = "nvidia.com/restartAt"

ANNOTATION_CURRENT_WORKER_HASH: Final = "nvidia.com/current-worker-hash"
ANNOTATION_CURRENT_WORKER_HASH_V2: Final = "nvidia.com/current-worker-hash-v2"
LEGACY_WORKER_HASH: Final = "legacy"

MULTINODE_DEPLOYMENT_TYPE_GROVE: Final = "grove"
MULTINODE_DEPLOYMENT_TYPE_LWS: Final = "lws"


def dynamo_topology_label_key(domain: str) -> str:
    """DynamoTopologyLabelKey: the pod label exposing one ClusterTopology domain."""
    return KUBE_LABEL_DYNAMO_TOPOLOGY_PREFIX + domain


def kube_topology_source_annotation_keys() -> list[str]:
    """KubeTopologySourceAnnotationKeys: annotations the topology label controller reads."""
    return [KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY, KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME]


# --- constants of other operator packages, kept here so each has one home -----------------

# Kinds and API versions (api/v1alpha1, api/v1beta1, Grove's API; provideroverride.GroveAPIVersion).
DGD_KIND: Final = "DynamoGraphDeployment"
DCD_KIND: Final = "DynamoComponentDeployment"
PCS_KIND: Final = "PodCliqueSet"
CHECKPOINT_KIND: Final = "DynamoCheckpoint"
API_VERSION_V1BETA1: Final = "nvidia.com/v1beta1"
GROVE_API_VERSION: Final = "grove.io/v1alpha1"

# api/v1alpha1 common.go: the checkpoint CRD's (and v1alpha1 DGD's) GPU memory service modes.
GMS_MODE_INTRA_POD_V1ALPHA1: Final = "intraPod"
GMS_MODE_INTER_POD_V1ALPHA1: Final = "interPod"

# api/v1alpha1 conversion: dgdConversionAnnotationPrefix (+ "spec" / "status"), annDCDSpec.
DGD_CONVERSION_ANNOTATION_PREFIX: Final = "nvidia.com/dgd-"
DGD_SPEC_ANNOTATION: Final = "nvidia.com/dgd-spec"
DGD_STATUS_ANNOTATION: Final = "nvidia.com/dgd-status"
DCD_SPEC_ANNOTATION: Final = "nvidia.com/dcd-spec"

# internal/controller_common finalizer.go: finalizerName.
FINALIZER: Final = "nvidia.com/finalizer"
# The finalizer Grove's controller adds to a PodCliqueSet (ai-dynamo/grove).
GROVE_PCS_FINALIZER: Final = "grove.io/podcliqueset.grove.io"

# github.com/ai-dynamo/snapshot api/v1alpha1 constants.go (the snapshot protocol).
CHECKPOINT_ID_LABEL: Final = "nvidia.com/snapshot-checkpoint-id"
RESTORE_TARGET_LABEL: Final = "nvidia.com/snapshot-is-restore-target"
CHECKPOINT_SOURCE_LABEL: Final = "nvidia.com/snapshot-is-checkpoint-source"
CHECKPOINT_ARTIFACT_VERSION_ANNOTATION: Final = "nvidia.com/snapshot-artifact-version"
CHECKPOINT_STORAGE_TYPE_ANNOTATION: Final = "nvidia.com/snapshot-storage-type"
CHECKPOINT_STORAGE_BASE_PATH_ANNOTATION: Final = "nvidia.com/snapshot-storage-base-path"
TARGET_CONTAINERS_ANNOTATION: Final = "nvidia.com/snapshot-target-containers"
RESTORE_STATUS_ANNOTATION: Final = "nvidia.com/snapshot-restore-status"
RESTORE_CONTAINER_ID_ANNOTATION: Final = "nvidia.com/snapshot-restore-container-id"

# The API groups as apiVersion prefixes (what a kind's apiVersion starts with).
API_GROUP_NVIDIA_PREFIX: Final = "nvidia.com/"
API_GROUP_GROVE_PREFIX: Final = "grove.io/"
API_VERSION_V1ALPHA1: Final = "nvidia.com/v1alpha1"

# internal/controller_common resource.go: what the operator's sync step stamps.
NVIDIA_ANNOTATION_HASH_KEY: Final = "nvidia.com/last-applied-hash"
NVIDIA_ANNOTATION_GENERATION_KEY: Final = "nvidia.com/last-applied-generation"
# api/v1alpha1 dynamocomponentdeployment_conversion.go: annDCDStatus.
DCD_STATUS_ANNOTATION: Final = "nvidia.com/dcd-status"
