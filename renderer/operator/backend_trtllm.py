"""internal/dynamo/backend_trtllm.go: the TensorRT-LLM backend (MPI over SSH for multinode).

Single node: nothing. Multinode: every pod mounts the SSH key secret at ``/ssh-pk`` (the
pod spec gets the secret volume, mode 0644) and keeps FQDN host names for OpenMPI. The
leader installs the key and runs the engine through ``mpirun`` across all nodes' host
names (with a DNS wait first where the deployer needs one); workers install the key, make
host keys and run ``sshd`` on port 2222, their readiness being that port.
"""

from __future__ import annotations

from typing import Any, Final

from renderer.goruntime.arith import wrap_int64 as _wrap_int64
from renderer.operator import consts
from renderer.operator.backend import (
    ROLE_LEADER,
    ROLE_WORKER,
    BackendError,
    ContainerGPUCount,
    MultinodeDeployer,
)
from renderer.operator.utils import is_python_command, shell_quote_for_bash_c

JSON = dict[str, Any]

SSH_MOUNT_PATH: Final = "/ssh-pk"

#: getCommonTRTLLMEnvVars: always forwarded to the ranks by mpirun -x.
COMMON_TRTLLM_ENV_VARS: Final = frozenset(
    {
        "CPATH",
        "CUDA_VISIBLE_DEVICES",
        "MODEL_PATH",
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "HF_ENDPOINT",
        "TOKENIZERS_PARALLELISM",
        "NCCL_DEBUG",
        "NCCL_IB_DISABLE",
        "NCCL_P2P_DISABLE",
        "TENSORRT_LLM_CACHE_DIR",
        "HF_HOME",
        "TRANSFORMERS_CACHE",
        "HF_DATASETS_CACHE",
        "PATH",
        "LD_LIBRARY_PATH",
        "PYTHONPATH",
        "HOME",
        "USER",
        "TRITON_PTXAS_PATH",
        "TRTLLM_USE_UCX_KVCACHE",
    }
)


def _ssh_key_setup() -> list[str]:
    port = consts.MPI_RUN_SSH_PORT
    return [
        "ls -la /ssh-pk/",
        "cp /ssh-pk/private.key $HOME/.ssh/id_rsa",
        "cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub",
        "cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys",
        "chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys",
        "chmod 644 $HOME/.ssh/id_rsa.pub",
        "printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\n"
        f"Port {port}\\n' > $HOME/.ssh/config",
    ]


class TRTLLMBackend:
    """TRTLLMBackend; ``mpi_run_secret_name`` is the operator's ``mpi.sshSecretName``."""

    def __init__(self, mpi_run_secret_name: str = "") -> None:
        self.mpi_run_secret_name = mpi_run_secret_name

    def update_container(  # noqa: PLR0917 - Go parameter order
        self,
        container: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
        container_gpus: ContainerGPUCount,
    ) -> None:
        """UpdateContainer: SSH wiring and the leader/worker launch commands."""
        if number_of_nodes <= 1:
            return
        if role == ROLE_WORKER:
            container.pop("livenessProbe", None)
            container.pop("startupProbe", None)
            container["readinessProbe"] = {
                "tcpSocket": {"port": consts.MPI_RUN_SSH_PORT},
                "initialDelaySeconds": 20,
                "periodSeconds": 20,
                "timeoutSeconds": 5,
                "failureThreshold": 10,
            }
        self.add_ssh_volume_mount(container)
        container["env"] = [
            *(container.get("env") or []),
            {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "1"},
        ]
        if role == ROLE_LEADER:
            try:
                gpus = container_gpus()
            except BackendError as err:
                raise BackendError(f"failed to resolve container GPUs: {err.message}") from None
            self.setup_leader_container(
                container, number_of_nodes, service_name, multinode_deployer, gpus
            )
        elif role == ROLE_WORKER:
            self.setup_worker_container(container)

    def update_pod_spec(  # noqa: PLR0917 - Go parameter order
        self,
        pod_spec: JSON,
        number_of_nodes: int,
        role: str,
        component: JSON,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
    ) -> None:
        """UpdatePodSpec: the SSH key secret volume for multinode pods."""
        if number_of_nodes <= 1:
            return
        volume: JSON = {
            "name": self.mpi_run_secret_name,
            "secret": {"secretName": self.mpi_run_secret_name, "defaultMode": 0o644},
        }
        pod_spec["volumes"] = [*(pod_spec.get("volumes") or []), volume]

    def add_ssh_volume_mount(self, container: JSON) -> None:
        """addSSHVolumeMount."""
        mount = {"name": self.mpi_run_secret_name, "mountPath": SSH_MOUNT_PATH, "readOnly": True}
        container["volumeMounts"] = [*(container.get("volumeMounts") or []), mount]

    def setup_leader_container(
        self,
        container: JSON,
        number_of_nodes: int,
        service_name: str,
        multinode_deployer: MultinodeDeployer,
        container_gpus: int,
    ) -> None:
        """setupLeaderContainer: install the key, then mpirun the engine on every node."""
        host_names = multinode_deployer.get_host_names(service_name, number_of_nodes)
        command: list[str] = list(container.get("command") or [])
        args: list[str] = list(container.get("args") or [])
        original = ""
        if command and is_python_command(command[0]):
            original = " ".join(shell_quote_for_bash_c(part) for part in [*command, *args])
        elif args:
            original = " ".join(args)  # a shell command: args hold the whole command
        elif command:
            original = " ".join(command)

        total_gpus = _wrap_int64(number_of_nodes * container_gpus)
        wrapped = f"bash -c 'trtllm-llmapi-launch {original}'"
        env_flags = generate_env_var_flags(container.get("env") or [])
        port = consts.MPI_RUN_SSH_PORT
        mpirun = (
            'mpirun $([ "$(id -u)" = "0" ] && echo --allow-run-as-root) --oversubscribe'
            f" -n {total_gpus} -H {','.join(host_names)} --mca pml ob1 --mca plm_rsh_args"
            f' "-p {port} -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa" {env_flags} {wrapped}'
        )
        commands = ["mkdir -p $HOME/.ssh", *_ssh_key_setup()]
        if multinode_deployer.needs_dns_wait():
            workers = " ".join(host_names[1:])
            commands.append(
                "TIMEOUT=300; START_TIME=$(date +%s); "
                f'for worker in {workers}; do echo "Waiting for DNS: $worker"; '
                "until getent hosts $worker >/dev/null 2>&1; do CURRENT_TIME=$(date +%s); "
                "if [ $((CURRENT_TIME - START_TIME)) -gt $TIMEOUT ]; then "
                'echo "ERROR: Timeout waiting for DNS: $worker"; exit 1; fi; '
                'echo "DNS not ready for $worker, retrying..."; sleep 2; done; '
                'echo "✓ DNS resolved: $worker"; done; echo "All workers DNS ready"'
            )
        commands.append(mpirun)
        container["command"] = ["/bin/sh", "-c"]
        container["args"] = [" && ".join(commands)]

    def setup_worker_container(self, container: JSON) -> None:
        """setupWorkerContainer: install the key, make host keys, run sshd."""
        port = consts.MPI_RUN_SSH_PORT
        home_key = "'$HOME'/.ssh/host_keys/ssh_host_"
        commands = [
            "mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run",
            *_ssh_key_setup(),
            "ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N ''",
            "ssh-keygen -t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N ''",
            "ssh-keygen -t ed25519 -f $HOME/.ssh/host_keys/ssh_host_ed25519_key -N ''",
            # $HOME breaks out of the single quotes: sshd would expand ~ from /etc/passwd.
            f"printf 'Port {port}\\nHostKey {home_key}rsa_key\\nHostKey {home_key}ecdsa_key"
            f"\\nHostKey {home_key}ed25519_key\\nPidFile '$HOME'/.ssh/run/sshd.pid"
            "\\nStrictModes no\\nPermitRootLogin yes\\nPasswordAuthentication no"
            "\\nPubkeyAuthentication yes\\nAuthorizedKeysFile '$HOME'/.ssh/authorized_keys"
            "\\n' > $HOME/.ssh/sshd_config",
            "/usr/sbin/sshd -D -f $HOME/.ssh/sshd_config",
        ]
        container["command"] = ["/bin/sh", "-c"]
        container["args"] = [" && ".join(commands)]


def collect_all_env_vars(container_env_vars: list[JSON]) -> list[str]:
    """collectAllEnvVars: the common names plus the container's, sorted (byte order)."""
    names = set(COMMON_TRTLLM_ENV_VARS)
    names.update(env.get("name", "") for env in container_env_vars)
    return sorted(names, key=lambda name: name.encode("utf-8", "surrogatepass"))


def generate_env_var_flags(container_env_vars: list[JSON]) -> str:
    """generateEnvVarFlags: ``-x NAME`` for every forwarded variable."""
    return " ".join(f"-x {name}" for name in collect_all_env_vars(container_env_vars))
