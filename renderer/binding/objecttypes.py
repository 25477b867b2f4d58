"""The rest of the DynamoCheckpoint object, for type checking only (nothing here is hashed).

The operator decodes the whole object, not just what it hashes: a wrong JSON type in
`spec.identity` or `status` fails Go's decoding as surely as one in the pod template, and
no binding comes out of it. These entries use the format of `binding-types.json` and are
merged into the compiled table under their own roots. They are transcribed from the
v1alpha1 DynamoCheckpoint Go types (`dynamocheckpoint_types.go`) and from
`metav1.Condition` (k8s.io/apimachinery v0.34.3).
"""

from __future__ import annotations

from typing import Any

_V1ALPHA1 = "github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1"
_META = "k8s.io/apimachinery/pkg/apis/meta/v1"
_TIME = {"kind": "struct", "name": f"{_META}.Time", "marshaler": "json"}
_STRING = {"kind": "string"}
_INT32 = {"kind": "int32"}
_INT64 = {"kind": "int64"}


def _field(name: str, desc: dict[str, Any], *, omitempty: bool = True) -> dict[str, Any]:
    return {"json": name, "omitempty": omitempty, "type": desc}


IDENTITY = f"{_V1ALPHA1}.DynamoCheckpointIdentity"
STATUS = f"{_V1ALPHA1}.DynamoCheckpointStatus"
CONDITION = f"{_META}.Condition"

EXTRA_TYPES: dict[str, Any] = {
    IDENTITY: {
        "fields": [
            _field("model", _STRING, omitempty=False),
            _field("backendFramework", _STRING, omitempty=False),
            _field("dynamoVersion", _STRING),
            _field("tensorParallelSize", _INT32),
            _field("pipelineParallelSize", _INT32),
            _field("dtype", _STRING),
            _field("maxModelLen", _INT32),
            _field("extraParameters", {"kind": "map", "key": _STRING, "elem": _STRING}),
        ]
    },
    STATUS: {
        "fields": [
            _field("phase", _STRING),
            _field("checkpointID", _STRING),
            _field("identityHash", _STRING),
            _field("location", _STRING),
            _field("storageType", _STRING),
            _field("jobName", _STRING),
            _field("createdAt", {"kind": "ptr", "elem": _TIME}),
            _field("message", _STRING),
            _field(
                "conditions",
                {"kind": "slice", "elem": {"kind": "struct", "name": CONDITION}},
            ),
        ]
    },
    CONDITION: {
        "fields": [
            _field("type", _STRING, omitempty=False),
            _field("status", _STRING, omitempty=False),
            _field("observedGeneration", _INT64),
            _field("lastTransitionTime", _TIME, omitempty=False),
            _field("reason", _STRING, omitempty=False),
            _field("message", _STRING, omitempty=False),
        ]
    },
}

EXTRA_ROOTS = {"checkpointIdentity": IDENTITY, "checkpointStatus": STATUS}

# Go field names of the object and of its spec (DynamoCheckpoint, DynamoCheckpointSpec).
OBJECT_FIELDS = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
SPEC_FIELDS = frozenset({"identity", "gpuMemoryService", "job"})
