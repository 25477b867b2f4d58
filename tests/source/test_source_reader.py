"""Objects, documents, `kind: List`, positions, spans and `kinds` filtering."""

from __future__ import annotations

import pytest

from renderer.errors import InputError
from renderer.source import Mark, load_bytes

STREAM = b"""\
# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    nvidia.com/dynamo-checkpoint-binding: "v1/u/1/abc"
data:
  mode: 0644
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: svc}
- apiVersion: grove.io/v1alpha1
  kind: PodCliqueSet
  metadata:
    name: pcs
  spec:
    template:
      cliques:
      - name: worker
        annotations:
          nvidia.com/dynamo-checkpoint-binding: v1/u/2/def
"""
BINDING = "nvidia.com/dynamo-checkpoint-binding"


def test_documents_and_list_items_become_objects() -> None:
    objects = load_bytes(STREAM, "s.yaml")
    assert [(o.kind, o.name, o.doc_index, o.item_index) for o in objects] == [
        ("ConfigMap", "cm", 0, None),
        ("Service", "svc", 1, 0),
        ("PodCliqueSet", "pcs", 1, 1),
    ]
    assert all(o.file == "s.yaml" for o in objects)
    assert objects[0].data["data"]["mode"] == 420


def test_marks_of_keys_and_values() -> None:
    cm = load_bytes(STREAM, "s.yaml")[0]
    path = ("metadata", "annotations", BINDING)
    assert cm.key_marks[path] == Mark(7, 5)
    assert cm.value_marks[path] == Mark(7, 43)
    assert cm.where(path) == "s.yaml:7:5"
    assert cm.value_marks[()] == Mark(2, 1)
    assert cm.mark(("metadata", "annotations", "absent")) == Mark(6, 3)  # nearest ancestor


def test_list_item_marks_are_relative_to_the_item() -> None:
    _, svc, pcs = load_bytes(STREAM, "s.yaml")
    assert svc.key_marks[("metadata", "name")] == Mark(16, 14)
    path = ("spec", "template", "cliques", 0, "annotations", BINDING)
    assert pcs.key_marks[path] == Mark(26, 11)
    assert pcs.value_marks[path] == Mark(26, 49)
    assert pcs.value_marks[()] == Mark(17, 3)
    assert not any(p and p[0] == "items" for p in pcs.key_marks)


def test_sequence_items_have_value_marks() -> None:
    pcs = load_bytes(STREAM, "s.yaml")[2]
    assert pcs.value_marks[("spec", "template", "cliques", 0)] == Mark(24, 9)
    assert pcs.key_marks[("spec", "template", "cliques", 0, "name")] == Mark(24, 9)


def test_value_spans_and_styles() -> None:
    assert load_bytes(STREAM, "s.yaml")[0].value_spans == {}
    cm, _, pcs = load_bytes(STREAM, "s.yaml", spans=True)
    text = STREAM.decode()
    start, end, style = cm.value_spans[("metadata", "annotations", BINDING)]
    assert (text[start:end], style) == ('"v1/u/1/abc"', '"')
    start, end, style = cm.value_spans[("data", "mode")]
    assert (text[start:end], style) == ("0644", "")
    start, end, style = pcs.value_spans[("spec", "template", "cliques", 0, "annotations", BINDING)]
    assert (text[start:end], style) == ("v1/u/2/def", "")


def test_kinds_filter_keeps_list_items_of_those_kinds() -> None:
    objects = load_bytes(STREAM, "s.yaml", kinds={"PodCliqueSet"})
    assert [(o.kind, o.item_index) for o in objects] == [("PodCliqueSet", 1)]
    path = ("spec", "template", "cliques", 0, "annotations", BINDING)
    assert objects[0].key_marks[path] == Mark(26, 11)


def test_kinds_filter_keeps_positions_and_indexes_after_skipped_documents() -> None:
    data = b"apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\n---\n" + (
        b"apiVersion: nvidia.com/v1alpha1\nkind: DynamoCheckpoint\nmetadata:\n  name: ck\n"
    )
    (obj,) = load_bytes(data, "s.yaml", kinds={"DynamoCheckpoint"})
    assert obj.doc_index == 2
    assert obj.key_marks[("metadata", "name")] == Mark(10, 3)
    full = load_bytes(data, "s.yaml", spans=True)[2]
    assert load_bytes(data, "s.yaml", kinds={"DynamoCheckpoint"}, spans=True)[0] == full


def test_kinds_filter_with_nothing_relevant_is_not_an_error() -> None:
    assert load_bytes(b"apiVersion: v1\nkind: ConfigMap\n", "s.yaml", kinds={"X"}) == []


@pytest.mark.parametrize(
    "document",
    [
        b'"kind": Target\napiVersion: v1\n',  # quoted key
        b"apiVersion: v1\nkind: Other\n---\napiVersion: v1\nkind:\n  Target\n",
        b"apiVersion: v1\nkind: Target # comment\n",
        b"apiVersion: v1\nbase: &b {kind: Target}\n<<: *b\n",
        b"{apiVersion: v1, kind: Target}\n",
        b"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Target}\n",
        b"---\n{apiVersion: v1, kind: Target}\n",
        b"apiVersion: v1\nkind: !!str Target\n",
        b"apiVersion: v1\nkind: ConfigMap\nitems:\n- {apiVersion: v1, kind: Target}\n",
    ],
)
def test_kinds_prescan_never_skips_a_relevant_document(document: bytes) -> None:
    data = b"apiVersion: v1\nkind: Other\n---\n" + document
    kept = load_bytes(data, "s.yaml", kinds={"Target"})
    assert [o.kind for o in kept] == ["Target"]


def test_a_node_on_the_separator_line_is_refused_as_kubectl_refuses_it() -> None:
    """kubectl's line reader accepts only a comment after `---` ("invalid Yaml document
    separator: {apiVersion: v1, kind: Target}" from the kubectl oracle)."""
    data = b"apiVersion: v1\nkind: Other\n---\n--- {apiVersion: v1, kind: Target}\n"
    with pytest.raises(InputError, match="invalid YAML document separator") as caught:
        load_bytes(data, "s.yaml", kinds={"Target"})
    assert (caught.value.line, caught.value.column) == (4, 4)


def test_merge_keys_and_anchors_in_objects() -> None:
    data = b"""\
apiVersion: v1
kind: ConfigMap
metadata:
  labels: &labels {app: web, tier: front}
  annotations:
    <<: *labels
    tier: back
"""
    (obj,) = load_bytes(data, "m.yaml")
    assert obj.metadata["annotations"] == {"app": "web", "tier": "back"}
    assert obj.key_marks[("metadata", "annotations", "app")] == Mark(6, 5)  # the `<<` key
    assert obj.key_marks[("metadata", "annotations", "tier")] == Mark(7, 5)


def test_values_are_plain_python() -> None:
    data = b"apiVersion: v1\nkind: X\nv: [1, 1.5, yes, ~, 2025-06-01, 18446744073709551615]\n"
    (obj,) = load_bytes(data, "p.yaml")
    values = obj.data["v"]
    # a uint64 to go-yaml, a float64 in the object kubectl sends (tests/fixtures/kubectl)
    assert [type(v) for v in values] == [int, float, bool, type(None), str, float]
    assert values[-1] == float(2**64 - 1)
