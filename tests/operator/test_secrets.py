"""Image pull secret discovery (internal/secrets/docker.go, internal/common/url.go at the pin).

Expected values are the operator's own tests, transcribed: TestGetHost (url_test.go) and
TestDockerSecretIndexer* (docker_test.go), then the setting through render: a clique's pod
spec gets the secrets the namespace holds for its image's registry, as GenerateBasePodSpec
appends them, unless the DGD disables discovery.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.operator.secrets import DockerSecretIndex, get_host

GET_HOST = [  # url_test.go TestGetHost
    ("docker.io", "docker.io"),
    ("gitlab-master.nvidia.com:5005", "gitlab-master.nvidia.com:5005"),
    ("gitlab-master.nvidia.com:5005/registry", "gitlab-master.nvidia.com:5005"),
    ("https://gitlab-master.nvidia.com", "gitlab-master.nvidia.com"),
    ("https://gitlab-master.nvidia.com:5005/registry", "gitlab-master.nvidia.com:5005"),
    ("", None),
]


@pytest.mark.parametrize(("url", "want"), GET_HOST)
def test_get_host(url: str, want: str | None) -> None:
    if want is None:
        with pytest.raises(ValueError):
            get_host(url)
    else:
        assert get_host(url) == want


def test_an_image_tag_is_no_port() -> None:
    # url.Parse("dummy://busybox:1.36") fails on the port: no secret is discovered for it
    with pytest.raises(ValueError):
        get_host("busybox:1.36")
    assert get_host("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1") == "nvcr.io"


def test_docker_secret_index() -> None:
    # TestDockerSecretIndexer (the default namespace's secrets): secret1 has docker.io and
    # my-registry.com:5005/registry1, secret2 my-registry.com:5005/registry2
    index = DockerSecretIndex(
        "default",
        {
            "docker.io": ["secret1"],
            "my-registry.com:5005/registry1": ["secret1"],
            "my-registry.com:5005/registry2": ["secret2"],
        },
    )
    assert index.get_secrets("default", "docker.io") == ["secret1"]
    assert index.get_secrets("default", "my-registry.com:5005") == ["secret1", "secret2"]
    assert index.get_secrets("another-namespace", "my-registry.com:5005") == []


def test_docker_secret_index_sorts_and_merges_paths_of_one_host() -> None:
    # TestDockerSecretIndexerSortsAndCopies: team-a and team-b paths are one host
    index = DockerSecretIndex(
        "default",
        {
            "my-registry.com/team-a": ["secret-b", "secret-a"],
            "my-registry.com/team-b": ["secret-b"],
        },
    )
    got = index.get_secrets("default", "my-registry.com")
    assert got == ["secret-a", "secret-b"]
    got.append("mutated")
    assert index.get_secrets("default", "my-registry.com") == ["secret-a", "secret-b"]


DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: pulls, namespace: team-a}
spec:
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        metadata: {annotations: {%s}}
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
"""


def _pod_spec(annotations: str, section: dict[str, Any] | None) -> dict[str, Any]:
    from renderer.operator_settings import parse_operator_section
    from renderer.render import render
    from renderer.source import load_bytes

    def fail(path: tuple[str | int, ...], message: str) -> Exception:
        return ValueError(message)

    config = parse_operator_section(section, fail) if section is not None else None
    (dgd,) = load_bytes((DGD % annotations).encode(), "dgd.yaml")
    (pcs,) = render(dgd, [], target="grove", config=config).objects
    spec: dict[str, Any] = pcs["spec"]["template"]["cliques"][0]["spec"]["podSpec"]
    return spec


def test_the_setting_gives_the_pods_the_namespaces_secrets_for_their_registry() -> None:
    section = {"imagePullSecrets": {"nvcr.io": ["ngc-pull"], "docker.io": ["hub"]}}
    assert _pod_spec("", section)["imagePullSecrets"] == [{"name": "ngc-pull"}]
    assert "imagePullSecrets" not in _pod_spec("", None)  # the oracle's empty cluster


def test_a_dgd_can_turn_discovery_off() -> None:
    section = {"imagePullSecrets": {"nvcr.io": ["ngc-pull"]}}
    # GenerateBasePodSpec reads it from the component's pod template annotations
    off = '"nvidia.com/disable-image-pull-secret-discovery": "true"'
    assert "imagePullSecrets" not in _pod_spec(off, section)
