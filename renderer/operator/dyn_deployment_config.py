"""applyDynDeploymentConfig (internal/dynamo/graph.go): the legacy DYN_DEPLOYMENT_CONFIG env.

When a DCD's main container carries ``DYN_DEPLOYMENT_CONFIG`` (JSON keyed by service name),
the operator rewrites the frontend entry's ``port`` to the Dynamo service port (a Go
``map[string]map[string]any`` round trip, so keys come out sorted and numbers as float64),
then reads that component's ``ServiceArgs``: ``workers`` fills unset replicas and
``resources`` overwrite the main container's requests and limits.

Inputs Go would reject with a decoder message this module cannot spell exactly, or where Go's
random map order would decide the result, raise :class:`NotReproducedError`.
"""

from __future__ import annotations

import json
from typing import Any

from renderer.gojson import marshal_any
from renderer.goruntime.encoding_json import unmarshal
from renderer.goruntime.quantity import QuantityError, marshal_quantity
from renderer.goruntime.strconv import quote as go_quote
from renderer.operator import consts as c
from renderer.operator.errors import NotReproducedError
from renderer.operator.graph_errors import DCDGenerationError
from renderer.operator.v1beta1_helpers import get_main_container

JSON = dict[str, Any]
_PATH = "DYN_DEPLOYMENT_CONFIG"


def _go_any(value: Any) -> str:
    """json.Marshal of the config decoded into ``any`` (objects sorted, numbers float64)."""

    try:
        return marshal_any(value, float64_numbers=True)
    except (ValueError, OverflowError):
        raise NotReproducedError("a number outside float64 range", _PATH) from None


def _loads(raw: str) -> Any:

    try:
        return unmarshal(raw, _PATH)
    except NotReproducedError:
        raise
    except ValueError:
        raise NotReproducedError(
            "the operator fails to decode this JSON (its decoder message is not reproduced)",
            _PATH,
        ) from None


def _fold_matches(config: JSON, name: str) -> list[str]:
    return [k for k in config if k.casefold() == name.casefold()]


def update_dyn_deployment_config_bytes(raw: str, service_name: str, new_port: int) -> str:
    """updateDynDeploymentConfigBytes: set the frontend entry's ``port``; re-marshal sorted."""
    config = _loads(raw)
    if config is not None and (
        not isinstance(config, dict)
        or any(v is not None and not isinstance(v, dict) for v in config.values())
    ):
        raise NotReproducedError(
            "the operator fails to decode a non-object service entry (message not reproduced)",
            _PATH,
        )
    config = config or {}
    if service_name in config:
        target = service_name
    else:
        matches = _fold_matches(config, c.COMPONENT_TYPE_FRONTEND)
        if len(matches) > 1:
            raise NotReproducedError(
                "several entries match 'frontend' case-insensitively; Go's map order picks one",
                _PATH,
            )
        target = matches[0] if matches else ""
    if target:
        if config[target] is None:
            raise NotReproducedError("a null frontend entry makes the operator panic", _PATH)
        config[target]["port"] = new_port
    return _go_any(config) if raw.strip() != "null" or target else "null"


def _field(obj: JSON, go_name: str) -> Any:
    """encoding/json's field match: the exact key, else a case-insensitive one."""
    if go_name in obj:
        return obj[go_name]
    matches = [k for k in obj if k.casefold() == go_name.casefold()]
    return obj[matches[-1]] if matches else None


def _string_ptr(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise NotReproducedError(f"{what} is not a string (decoder message not reproduced)", _PATH)
    return value


def parse_service_args(entry: Any) -> tuple[int | None, JSON | None]:
    """The ServiceArgs of one DynDeploymentServiceConfig: (workers, resources)."""
    if entry is None:
        return None, None
    if not isinstance(entry, dict):
        raise NotReproducedError("a service entry is not an object", _PATH)
    args = _field(entry, "ServiceArgs")
    if args is None:
        return None, None
    if not isinstance(args, dict):
        raise NotReproducedError("ServiceArgs is not an object", _PATH)
    workers = _field(args, "workers")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or not -(2**31) <= workers < 2**31
    ):
        raise NotReproducedError("workers is not an int32 (decoder message not reproduced)", _PATH)
    resources = _field(args, "resources")
    if resources is not None and not isinstance(resources, dict):
        raise NotReproducedError("resources is not an object", _PATH)
    if resources is not None:
        custom = _field(resources, "custom")
        if custom is not None and (
            not isinstance(custom, dict) or not all(isinstance(v, str) for v in custom.values())
        ):
            raise NotReproducedError("resources.custom is not a string map", _PATH)
        resources = {
            "cpu": _string_ptr(_field(resources, "cpu"), "cpu"),
            "memory": _string_ptr(_field(resources, "memory"), "memory"),
            "gpu": _string_ptr(_field(resources, "gpu"), "gpu"),
            "custom": custom,
        }
    return workers, resources


def _quantity(value: str, name: str) -> str:

    try:
        text = marshal_quantity(value)
    except QuantityError as exc:  # resource.ParseQuantity's own error text
        raise DCDGenerationError(
            f"parse resource {name} quantity {go_quote(value)}: {exc}"
        ) from None
    out: str = json.loads(text) if text.startswith('"') else text
    return out


def apply_dyn_deployment_resources(container: JSON, resources: JSON | None) -> None:
    """applyDynDeploymentResources: each given quantity becomes request and limit."""
    if resources is None:
        return
    reqs = container.setdefault("resources", {})
    requests = reqs.get("requests")
    if requests is None:
        requests = reqs["requests"] = {}
    limits = reqs.get("limits")
    if limits is None:
        limits = reqs["limits"] = {}

    def put(name: str, value: str | None) -> None:
        if not value:
            return
        q = _quantity(value, name)
        requests[name] = q
        limits[name] = q

    put("cpu", resources.get("cpu"))
    put("memory", resources.get("memory"))
    put(c.KUBE_RESOURCE_GPU_NVIDIA, resources.get("gpu"))
    for name, value in (resources.get("custom") or {}).items():
        q = _quantity(value, name)
        requests[name] = q
        limits[name] = q


def apply_dyn_deployment_config(dcd: JSON, frontend_port: int) -> None:
    """applyDynDeploymentConfig on a generated DCD (in place)."""
    spec = dcd["spec"]
    main = get_main_container(spec)
    if main is None:
        return
    env = next(
        (e for e in main.get("env") or [] if e.get("name") == c.DYNAMO_DEPLOYMENT_CONFIG_ENV_VAR),
        None,
    )
    if env is None:
        return
    raw = env.get("value", "")
    if env.get("valueFrom") is not None and not raw:
        raise NotReproducedError("a DYN_DEPLOYMENT_CONFIG from valueFrom is not reproduced", _PATH)
    name = spec.get("name", "")
    is_frontend = spec.get("type") == c.COMPONENT_TYPE_FRONTEND
    if is_frontend:
        raw = update_dyn_deployment_config_bytes(raw, name, frontend_port)
        env["value"] = raw
    config = _loads(raw)
    if config is None:
        return
    if not isinstance(config, dict):
        raise NotReproducedError("the config is not a JSON object", _PATH)
    for value in config.values():  # ParseDynDeploymentConfig decodes every entry
        parse_service_args(value)
    entry = config.get(name)
    if entry is None and is_frontend:
        matches = _fold_matches(config, c.COMPONENT_TYPE_FRONTEND)
        if len(matches) > 1:
            raise NotReproducedError("several 'frontend' entries; Go's map order picks one", _PATH)
        entry = config[matches[0]] if matches else None
    workers, resources = parse_service_args(entry)
    if spec.get("replicas") is None and workers is not None:
        spec["replicas"] = workers
    apply_dyn_deployment_resources(main, resources)
