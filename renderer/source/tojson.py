"""Plain YAML-read values as Go `encoding/json` text (what YAMLToJSON would produce): the
Go runtime's json.Marshal of an unstructured value."""

from __future__ import annotations

from renderer.gojson import marshal_any as to_go_json

__all__ = ["to_go_json"]
