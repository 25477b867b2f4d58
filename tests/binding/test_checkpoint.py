"""checkpoint_from_object, unbindable_reason and is_checkpoint."""

from __future__ import annotations

import pytest
from paths import VECTORS

from renderer.binding.checkpoint import checkpoint_from_object, is_checkpoint, unbindable_reason
from renderer.errors import InputError
from renderer.source import SourceObject, load_bytes

BASELINE = (VECTORS / "02-worker-baseline.input.yaml").read_text("utf-8")
NAME = "checkpoint-9f1e2d3c4b5a6978"


def _obj(text: str) -> SourceObject:
    (obj,) = load_bytes(text.encode("utf-8"), "snap.yaml")
    return obj


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_fields_of_a_kubectl_snapshot() -> None:
    cp = checkpoint_from_object(_obj(BASELINE))
    assert (cp.name, cp.namespace) == (NAME, "dynamo-prod")
    assert cp.uid == "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    assert cp.generation == 1
    assert cp.checkpoint_id == "9f1e2d3c4b5a6978"
    assert cp.dgd_name == "llama-disagg"
    assert cp.component == "VllmDecodeWorker"
    assert cp.worker_hash == "5f8d2c1a9b"
    assert unbindable_reason(cp) is None


def test_absent_fields_read_as_empty() -> None:
    cp = checkpoint_from_object(
        _obj("apiVersion: nvidia.com/v1alpha1\nkind: DynamoCheckpoint\nmetadata: {name: x}\n")
    )
    assert (cp.uid, cp.generation, cp.checkpoint_id, cp.phase) == ("", 0, "", "")
    assert not cp.ready


@pytest.mark.parametrize(
    ("old", "new", "field", "column"),
    [
        (
            "  labels:\n",
            '  labels: ["nvidia.com/snapshot-checkpoint-id"]\n  labelz:\n',
            "metadata.labels must be an object, not array",
            11,
        ),
        ("  generation: 1", '  generation: "1"', "metadata.generation must be an int64", 15),
        ("  generation: 1", "  generation: true", "metadata.generation must be an int64", 15),
        ("  generation: 1", "  generation: 1.5", "metadata.generation must be an int64", 15),
        (
            '  uid: "7c9e6679-7425-40de-944b-e07fc1f90ae7"',
            "  uid: 12345",
            "metadata.uid must be a string, not number 12345",
            8,
        ),
        (
            '    "nvidia.com/dynamo-worker-hash": "5f8d2c1a9b"',
            '    "nvidia.com/dynamo-worker-hash": 5',
            'metadata.labels["nvidia.com/dynamo-worker-hash"] must be a string',
            38,
        ),
    ],
)
def test_wrong_types_are_located_input_errors(old: str, new: str, field: str, column: int) -> None:
    assert old in BASELINE
    text = BASELINE.replace(old, new, 1)
    with pytest.raises(InputError) as info:
        checkpoint_from_object(_obj(text))
    assert info.value.message.startswith(field), info.value.message
    assert info.value.file == "snap.yaml"
    assert info.value.line == _line_of(text, new.splitlines()[0].strip())
    assert info.value.column == column


def test_generation_written_as_an_integral_float_is_accepted() -> None:
    cp = checkpoint_from_object(_obj(BASELINE.replace("  generation: 1", "  generation: 2.0")))
    assert cp.generation == 2


def test_other_kinds_are_rejected() -> None:
    obj = _obj("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert not is_checkpoint(obj)
    with pytest.raises(InputError) as info:
        checkpoint_from_object(obj)
    assert "expected a DynamoCheckpoint" in info.value.message
    assert info.value.line == 2
    other_group = _obj("apiVersion: example.com/v1\nkind: DynamoCheckpoint\nmetadata: {}\n")
    assert not is_checkpoint(other_group)


def _reason(text: str) -> str | None:
    return unbindable_reason(checkpoint_from_object(_obj(text)))


def test_preconditions_in_the_operator_order() -> None:
    no_uid = BASELINE.replace('  uid: "7c9e6679-7425-40de-944b-e07fc1f90ae7"\n', "")
    # every precondition fails at once: the UID wins
    everything = no_uid.replace("  generation: 1\n", "").replace(
        '"nvidia.com/dynamo-auto-checkpoint": "true"', '"nvidia.com/dynamo-auto-checkpoint": "yes"'
    )
    assert _reason(everything) == "automatic checkpoint UID is missing"
    no_generation = BASELINE.replace("  generation: 1\n", "  generation: 0\n")
    assert _reason(no_generation) == "automatic checkpoint generation is missing"
    marker = BASELINE.replace(
        '"nvidia.com/dynamo-auto-checkpoint": "true"', '"nvidia.com/dynamo-auto-checkpoint": "True"'
    ).replace('"nvidia.com/snapshot-checkpoint-id": "9f1e2d3c4b5a6978"', '"x": "y"')
    assert _reason(marker) == (
        f"automatic checkpoint provenance is invalid: checkpoint {NAME} is not marked automatic"
    )
    no_id = BASELINE.replace(
        '"nvidia.com/snapshot-checkpoint-id": "9f1e2d3c4b5a6978"',
        '"nvidia.com/snapshot-checkpoint-id": ""',
    )
    assert _reason(no_id) == (
        f"automatic checkpoint provenance is invalid: automatic checkpoint {NAME} ID label"
        " is missing"
    )
