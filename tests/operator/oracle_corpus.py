"""Reading the operator oracle golden corpus (tests/operator/goldens/oracle/<case>/).

Every expected value here is the oracle's output (the pinned operator compiled unchanged),
never this project's: the admitted DGD it printed, its PodCliqueSet/DCDs, its worker hash
and, in checkpoint mode, its checkpoint resolution report. See the corpus README.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from renderer.operator.config import OperatorConfig

HERE = Path(__file__).parent
CORPUS = HERE / "goldens" / "oracle"
UPSTREAM = HERE / "goldens" / "upstream"
#: The namespace scripts/regen-oracle-goldens passes (a DGD's own namespace wins).
NAMESPACE = "dynamo"

JSON = dict[str, Any]


def load_yaml_documents(path: Path) -> list[Any]:
    """All Kubernetes objects of a YAML file, read as the operator's YAML library reads them.

    The oracle writes with sigs.k8s.io/yaml (go-yaml v2), which leaves a string such as
    ``901e2075`` unquoted because its own resolver reads it back as a string; a YAML 1.2
    loader would read a float. The project's reader follows go-yaml v2.
    """
    from renderer.source import load_bytes

    return [o.data for o in load_bytes(path.read_bytes(), str(path), allow_empty=True)]


def load_yaml(path: Path) -> Any:
    """The single object of a YAML file."""
    docs = load_yaml_documents(path)
    assert len(docs) == 1, f"{path}: expected one document, found {len(docs)}"
    return docs[0]


def load_report(path: Path) -> JSON:
    """A YAML report that is not a Kubernetes object (checkpoint resolution), go-yaml v2 style."""
    from renderer.source import load_bytes

    text = "apiVersion: oracle/v1\nkind: Report\n" + path.read_text(encoding="utf-8")
    (obj,) = load_bytes(text.encode("utf-8"), str(path))
    data = dict(obj.data)
    del data["apiVersion"], data["kind"]
    return data


@dataclass(frozen=True)
class OracleCase:
    """One corpus directory."""

    name: str
    path: Path

    @property
    def refused(self) -> bool:
        """The oracle refused the DGD (expected-error.txt instead of the objects)."""
        return (self.path / "expected-error.txt").exists()

    @property
    def oracle_args(self) -> list[str]:
        """The extra oracle flags the case was rendered with."""
        args = self.path / "oracle-args"
        return shlex.split(args.read_text(encoding="utf-8")) if args.exists() else []

    @property
    def checkpoint_mode(self) -> bool:
        """Rendered with --checkpoint or --checkpoint-enabled."""
        return any(a in ("--checkpoint", "--checkpoint-enabled") for a in self.oracle_args)

    def admitted_dgd(self) -> JSON:
        """The admitted v1beta1 DGD the oracle printed (--emit-rendered-dgd)."""
        dgd: JSON = load_yaml(self.path / "admitted-dgd.yaml")
        return dgd

    def namespace(self) -> str:
        """The namespace the DGD was rendered in."""
        return str(self.admitted_dgd()["metadata"]["namespace"])

    def config(self) -> OperatorConfig:
        """The operator configuration the oracle used for this case."""
        args = self.oracle_args
        version = (
            args[args.index("--operator-version") + 1] if "--operator-version" in args else None
        )
        extra = {"operator_version": version} if version else {}
        return OperatorConfig.for_oracle(
            self.namespace(), checkpoint_enabled=self.checkpoint_mode, **extra
        )

    def expected_pcs(self) -> JSON:
        """The oracle's PodCliqueSet."""
        pcs: JSON = load_yaml(self.path / "expected-pcs.yaml")
        return pcs

    def expected_dcds(self) -> list[JSON]:
        """The oracle's DCDs, sorted by name."""
        return load_yaml_documents(self.path / "expected-dcds.yaml")

    def expected_error(self) -> str:
        """The oracle's refusal message (refused cases)."""
        return (self.path / "expected-error.txt").read_text(encoding="utf-8").strip()

    def worker_hash(self) -> str:
        """The oracle's v2 worker hash."""
        return (self.path / "worker-hash.txt").read_text(encoding="utf-8").strip()

    def checkpoint_resolution(self) -> JSON | None:
        """The oracle's checkpoint resolution report (checkpoint mode only)."""
        report = self.path / "checkpoint-resolution.yaml"
        if not report.exists():
            return None
        return load_report(report)

    def input_checkpoints(self) -> list[JSON]:
        """The DynamoCheckpoint objects given with --checkpoint (a file in the case)."""
        args = self.oracle_args
        if "--checkpoint" not in args:
            return []
        return load_yaml_documents(self.path / args[args.index("--checkpoint") + 1])

    def checkpoint_infos(self) -> dict[str, JSON] | None:
        """checkpoint.CheckpointInfo per component, from the oracle's resolution report.

        Exists: the controller found the object or creates it (it always has one after
        reconcile); Hash: the resolved checkpoint ID; GPUMemoryService and ArtifactVersion:
        from the input DynamoCheckpoint, as checkpointInfoFromObject reads them, the GMS
        settings overlaid with the component's (OverlayClients, the port's function: the
        oracle's report does not print them; the CLI tests check the result end to end).
        """
        report = self.checkpoint_resolution()
        if report is None:
            return None
        from renderer.operator.gms import overlay_clients

        loaded = {o["metadata"]["name"]: o for o in self.input_checkpoints()}
        components = {
            c.get("name"): c
            for c in (self.admitted_dgd().get("spec") or {}).get("components") or []
        }
        infos: dict[str, JSON] = {}
        for name, entry in (report.get("components") or {}).items():
            found = loaded.get(entry.get("checkpointName", ""), {})
            annotations = found.get("metadata", {}).get("annotations") or {}
            service_gms = (components.get(name, {}).get("experimental") or {}).get(
                "gpuMemoryService"
            )
            infos[name] = {
                # checkpointInfoFromObject: the input DynamoCheckpoint's GMS spec and version,
                # then the controller's OverlayClients with the component's GMS settings.
                "GPUMemoryService": overlay_clients(
                    (found.get("spec") or {}).get("gpuMemoryService"),
                    entry.get("checkpointName", ""),
                    True,
                    service_gms,
                ),
                "ArtifactVersion": annotations.get("nvidia.com/snapshot-artifact-version", ""),
                "Enabled": True,
                "Exists": True,
                "Ready": bool(entry.get("ready")),
                "CheckpointName": entry.get("checkpointName", ""),
                "Hash": entry.get("checkpointID", ""),
                "StartupPolicy": entry.get("startupPolicy", ""),
                "RestoreTargetContainers": list(entry.get("restoreTargetContainers") or []),
            }
        return infos


@cache
def oracle_cases() -> tuple[OracleCase, ...]:
    """Every corpus case, sorted by name."""
    return tuple(
        OracleCase(p.name, p)
        for p in sorted(CORPUS.iterdir())
        if p.is_dir() and (p / "dgd.yaml").exists()
    )


def rendered_cases() -> list[OracleCase]:
    """The cases the oracle rendered (not refused)."""
    return [c for c in oracle_cases() if not c.refused]


def diff_paths(actual: Any, expected: Any, path: str = "") -> list[str]:
    """Where two JSON-like values differ, both ways (missing, extra, changed), by path."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        out: list[str] = []
        for key in sorted(set(actual) | set(expected), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(f"missing {sub} = {expected[key]!r}"[:300])
            elif key not in expected:
                out.append(f"extra {sub} = {actual[key]!r}"[:300])
            else:
                out += diff_paths(actual[key], expected[key], sub)
        return out
    if isinstance(actual, list) and isinstance(expected, list):
        if len(actual) != len(expected):
            return [
                f"{path}: length {len(actual)} != {len(expected)}: {actual!r} vs {expected!r}"[:400]
            ]
        out = []
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            out += diff_paths(a, e, f"{path}[{i}]")
        return out
    if type(actual) is not type(expected) or actual != expected:
        return [f"{path}: {actual!r} != {expected!r}"[:300]]
    return []


#: Corpus cases the tool refuses for --target grove on purpose, where the oracle renders:
#: the cluster would refuse the PodCliqueSet or its pods (the message names who refuses).
GROVE_REFUSES = {
    # `Decode_Worker` -> clique `decode_worker`: not a DNS-1123 subdomain
    "alpha-clique-name-underscore": "Grove's PodCliqueSet webhook refuses any other clique",
    # `decoder.v2`: a subdomain, but the pods' hostname `<PodClique>-<index>` is no label
    "alpha-clique-name-dot": "the API server refuses a hostname that is not a DNS-1123 label",
}
