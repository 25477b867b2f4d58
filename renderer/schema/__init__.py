"""JSON Schema validation of the objects this tool reads and writes.

Public surface:

- `validate(obj, *, extra_schemas=None) -> list[Violation]`: check one `SourceObject` against
  the schema for its apiVersion and kind (the bundled one, or one from `extra_schemas`);
  objects of other kinds are not checked.
- `validate_data(data, name, *, extra_schemas=None) -> list[Violation]`: the same for a plain
  object with no file behind it (rendered output); violations are located by rendering it to
  YAML and reading that back, so line and column refer to the rendered document.
- `schemas_from_crd(crd_objects) -> dict[(apiVersion, kind), schema]`: draft 2020-12 schemas
  from the served versions of CustomResourceDefinitions; `load_crd_schemas(paths, *,
  max_bytes)` reads the files first (`--crd FILE`).
- `bundled_schema(api_version, kind)`, `BUNDLED`: the schemas shipped in `schemas/`.
- `Violation`, `violations_error(violations)` (one `InputError` for the CLI, exit 2).
- `check_inputs(objects, extra)`, `check_outputs(documents, extra)`: raise that error for the
  first input or rendered object that breaks its schema (the render command's guard).

jsonschema is slow to import, so it is imported only when a validation actually runs.
"""

from renderer.schema.bundled import BUNDLED, SchemaKey, bundled_schema
from renderer.schema.check import validate, validate_data, violations_error
from renderer.schema.crd import load_crd_schemas, schemas_from_crd
from renderer.schema.guard import check_inputs, check_outputs
from renderer.schema.violation import Violation, json_path

__all__ = [
    "BUNDLED",
    "SchemaKey",
    "Violation",
    "bundled_schema",
    "check_inputs",
    "check_outputs",
    "json_path",
    "load_crd_schemas",
    "schemas_from_crd",
    "validate",
    "validate_data",
    "violations_error",
]
