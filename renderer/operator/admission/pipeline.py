"""What happens to a DGD before the controller renders it, in the reference oracle's order.

``admit(dgd, namespace=..., config=...)`` takes the DGD as read from YAML (v1alpha1 or
v1beta1) and returns the *admitted DGD*: the v1beta1 object as Go's ``json.Marshal`` writes it
(the ``--emit-rendered-dgd`` output of the oracle), after

1. ``metadata.namespace`` = ``namespace`` when the DGD has none;
2. the DGD CRD's defaults for the input's version (crd_defaults), then ``json.Unmarshal``
   into that version's Go type (goruntime.encoding_json: unknown fields dropped);
3. for v1alpha1, the conversion webhook (conversion.convert_to);
4. the mutating webhook (defaulting.default);
5. the v1beta1 CRD defaults again, on the marshalled object, and a fresh decode;
6. the validating webhook (validation.validate, request kind = the input's version);
7. the controller's checkpoint compatibility preflight.

A refusal raises ``AdmissionError`` with the operator's text; what is not reproduced raises
``NotReproducedError`` naming the field.
"""

from __future__ import annotations

from typing import Any

from renderer.goruntime.encoding_json import DecodeError, decode, encode
from renderer.goruntime.typetable import dgd_roots, struct_type
from renderer.jsoncopy import deep_copy
from renderer.operator import consts
from renderer.operator.admission import defaulting, validation
from renderer.operator.admission.conversion import convert_to
from renderer.operator.admission.crd_defaults import apply_crd_defaults
from renderer.operator.admission.errors import AdmissionError
from renderer.operator.config import OperatorConfig
from renderer.operator.v1beta1_marshal import normalize_v1beta1_json

GROUP = "nvidia.com"
KIND = consts.DGD_KIND
VERSIONS = ("v1alpha1", "v1beta1")
#: The oracle's prefix for a document Go's decoder refuses.
DECODE_PREFIX = "decode DGD: "


def input_version(dgd: dict[str, Any]) -> str:
    """``v1alpha1`` or ``v1beta1`` from apiVersion; AdmissionError for anything else."""
    api_version = dgd.get("apiVersion")
    kind = dgd.get("kind")
    if kind != KIND:
        raise AdmissionError(f"not a {KIND}: kind is {kind!r}", ("kind",))
    for version in VERSIONS:
        if api_version == f"{GROUP}/{version}":
            return version
    raise AdmissionError(
        f"unsupported apiVersion {api_version!r} (want {GROUP}/v1alpha1 or {GROUP}/v1beta1)",
        ("apiVersion",),
    )


def admit(
    dgd: dict[str, Any],
    *,
    namespace: str,
    config: OperatorConfig | None = None,
    allow_checkpoint_with_interpod_gms: bool = True,
) -> dict[str, Any]:
    """The admitted v1beta1 DGD (wire form), or AdmissionError / NotReproducedError."""
    admitted, _warnings = admit_with_warnings(
        dgd,
        namespace=namespace,
        config=config,
        allow_checkpoint_with_interpod_gms=allow_checkpoint_with_interpod_gms,
    )
    return admitted


def admit_with_warnings(
    dgd: dict[str, Any],
    *,
    namespace: str,
    config: OperatorConfig | None = None,
    allow_checkpoint_with_interpod_gms: bool = True,
) -> tuple[dict[str, Any], list[str]]:
    """``admit`` plus the validating webhook's admission warnings, in its order.

    ``allow_checkpoint_with_interpod_gms`` is the validation module's deliberate
    difference (on by default); False gives the pinned operator's refusal.
    """

    cfg = config if config is not None else OperatorConfig()
    version = input_version(dgd)
    root = struct_type(dgd_roots()[version])
    hub_root = struct_type(dgd_roots()["v1beta1"])

    raw = deep_copy(dgd)
    metadata = raw.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {} if metadata is None else metadata
    if isinstance(metadata, dict) and not metadata.get("namespace"):
        metadata["namespace"] = namespace
        raw["metadata"] = metadata

    try:
        typed = decode(apply_crd_defaults(raw, version), root) or {}
    except DecodeError as err:
        raise AdmissionError(DECODE_PREFIX + err.message, err.path) from err
    alpha_source = None
    if version == "v1alpha1":
        alpha_source = typed
        hub = convert_to(typed)
    else:
        hub = typed
    hub = defaulting.default(hub, cfg)

    wire = normalize_v1beta1_json(encode(hub, hub_root), hub_root)
    hub = decode(apply_crd_defaults(wire, "v1beta1"), hub_root) or {}
    admitted: dict[str, Any] = normalize_v1beta1_json(encode(hub, hub_root), hub_root)
    if "metadata" not in admitted:
        admitted["metadata"] = {}  # marshal.go keeps the object envelope

    warnings = validation.validate(
        admitted,
        cfg,
        request_version=version,
        alpha_source=alpha_source,
        input_doc=dgd,
        allow_checkpoint_with_interpod_gms=allow_checkpoint_with_interpod_gms,
    )
    validation.check_controller_preflight(
        admitted, allow_checkpoint_with_interpod_gms=allow_checkpoint_with_interpod_gms
    )
    return admitted, list(warnings)
