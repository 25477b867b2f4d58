"""The input layer: YAML files, directories and stdin to located Kubernetes objects.

Public surface:

- `load_bytes(data, name, *, max_bytes=DEFAULT_MAX_BYTES, kinds=None, spans=False,
  allow_empty=False) -> list[SourceObject]` (module `reader`)
- `load_paths(paths, *, max_bytes=DEFAULT_MAX_BYTES, kinds=None, stdin=None, spans=False,
  allow_empty=False) -> list[SourceObject]` (module `files`; `-` is stdin)
- `iter_yaml_files(directory)`: the `*.json`/`*.yaml`/`*.yml` files a directory contributes,
  sorted (what `kubectl apply -R -f` reads)
- `to_go_json(value)`: a read value as Go's JSON text (what YAMLToJSON gives)
- `SourceObject`, `Mark`, `Path` (see `model`)

Values are read exactly as Kubernetes reads them (sigs.k8s.io/yaml on go-yaml v2): ints
are exact Python ints, floats Python floats, strings str. Every failure is an
`InputError` naming file:line:column. See `reader` for the choices on duplicate keys,
merges, empty documents and `kind: List`.

Files are read exactly as `kubectl apply -f` reads them (JSON or YAML per file, the
split at `---` lines, any object with `items` flattened): `files.read_objects` gives
the objects lint reads, as JSON values, for the differential tests against kubectl.

Limits (keyword arguments of `load_bytes`): `max_bytes` 16 MiB per file,
`max_alias_nodes` 100,000 nodes produced by aliases per file (and 4 MiB of scalar
text, `limits.DEFAULT_MAX_ALIAS_CHARS`), `max_depth` 256 levels.

Importing the package loads the YAML parser (ruamel.yaml and its C extension) with the
reader: the commands that import it read YAML, and a cold lint takes fewer instructions
with the parser imported here than on the first read.
"""

from renderer.gojson import marshal_any as to_go_json
from renderer.source.files import iter_yaml_files, load_paths
from renderer.source.model import Mark, Path, SourceObject
from renderer.source.reader import DEFAULT_MAX_BYTES, load_bytes

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Mark",
    "Path",
    "SourceObject",
    "iter_yaml_files",
    "load_bytes",
    "load_paths",
    "to_go_json",
]
