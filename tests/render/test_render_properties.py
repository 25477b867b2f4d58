"""Properties over generated DGDs: deterministic bytes, exact read-back, Grove name budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from render_support import IMAGE, dgd

from renderer.errors import InputError
from renderer.render import render
from renderer.source import load_bytes
from renderer.yamlout import dump_stream

_names = st.from_regex(r"[A-Z][a-zA-Z0-9]{0,14}", fullmatch=True)
_component = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["frontend", "planner", "worker", "prefill", "decode"]),
        "replicas": st.one_of(st.none(), st.integers(0, 8)),
        "nodes": st.sampled_from([1, 1, 2, 3]),
        "gms": st.sampled_from(["", "", "IntraPod", "InterPod"]),
        "label": st.sampled_from(["x", "true", "010", "1e3", "a: b", "yes", ""]),
    }
)


def _text(name: str, components: dict[str, dict[str, object]]) -> str:
    lines = [
        "apiVersion: nvidia.com/v1beta1",
        "kind: DynamoGraphDeployment",
        "metadata:",
        f"  name: {name}",
        "  namespace: ns",
        "spec:",
        "  components:",
    ]
    for component_name, c in components.items():
        lines += [f'    - name: "{component_name}"', f"      type: {c['type']}"]
        if c["replicas"] is not None:
            lines.append(f"      replicas: {c['replicas']}")
        if c["nodes"] != 1:
            lines += ["      multinode:", f"        nodeCount: {c['nodes']}"]
        if c["gms"]:
            lines += [
                "      experimental:",
                "        gpuMemoryService:",
                f"          mode: {c['gms']}",
            ]
        lines += [
            "      podTemplate:",
            "        metadata:",
            "          annotations:",
            f"            example.com/note: {c['label']!r}",
            "        spec:",
            "          containers:",
            "            - name: main",
            f"              image: {IMAGE}",
        ]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.from_regex(r"[a-z][a-z0-9-]{0,30}[a-z0-9]", fullmatch=True),
    st.dictionaries(_names, _component, min_size=1, max_size=5),
    st.sampled_from(["dcd", "grove"]),
)
def test_generated_dgds(name: str, components: dict[str, dict[str, object]], target: str) -> None:
    lowered = {n.lower() for n in components}
    if len(lowered) != len(components):
        return  # duplicate names after lower-casing are refused (tested elsewhere)
    source = dgd(_text(name, components))
    try:
        first = render(source, [], target=target)
    except InputError as exc:
        # The only refusals possible here: names that do not fit (the validating webhook's
        # Grove name budget, Kubernetes label values) and the operator's own Grove refusals.
        assert (
            "combined resource name length" in exc.message
            or "label value" in exc.message
            or "is invalid" in exc.message
        ), exc.message
        return
    text = dump_stream([("dgd.yaml", o) for o in first.objects])
    again = dump_stream([("dgd.yaml", o) for o in render(source, [], target=target).objects])
    assert text == again
    assert [o.data for o in load_bytes(text.encode(), "out.yaml")] == first.objects
    if target == "grove":
        (pcs,) = first.objects
        groups = {g["name"]: g for g in pcs["spec"]["template"].get("podCliqueScalingGroups", [])}
        for clique in pcs["spec"]["template"]["cliques"]:
            group = next((g for g in groups.values() if clique["name"] in g["cliqueNames"]), None)
            total = len(pcs["metadata"]["name"]) + len(clique["name"])
            total += len(group["name"]) if group else 0
            assert total <= 45
