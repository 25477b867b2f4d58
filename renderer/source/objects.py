"""A read YAML or JSON document to the Kubernetes objects kubectl would send from it.

A document must be a mapping with a string `kind` (and `apiVersion`), as kubectl's
unstructured decoder requires. Any object with an `items` key is a list: kubectl applies
its items, not the object (`_list_items`), one level deep, each item an object with
`item_index` set and its marks keyed by paths relative to the item (positions still point
into the file).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from renderer.errors import InputError
from renderer.source.model import Mark, Path, SourceObject

if TYPE_CHECKING:
    from renderer.source.build import Document


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string"


def _require_identity(
    data: dict[str, Any], name: str, root: Mark, keys: dict[Path, Mark], values: dict[Path, Mark]
) -> None:
    for field_name in ("kind", "apiVersion"):  # kubectl refuses no kind, not no apiVersion
        if field_name not in data:
            raise InputError(
                f"object has no {field_name} (every Kubernetes object needs apiVersion and kind)",
                name,
                root.line,
                root.column,
            )
        value = data[field_name]
        if not isinstance(value, str) or not value:
            where = values.get((field_name,), root)
            shown = "an empty string" if value == "" else _type_name(value)
            raise InputError(
                f"{field_name} must be a non-empty string, not {shown}",
                name,
                where.line,
                where.column,
            )


def _split_marks(marks: dict[Path, Mark], count: int) -> list[dict[Path, Mark]]:
    groups: list[dict[Path, Mark]] = [{} for _ in range(count)]
    for path, mark in marks.items():
        if len(path) >= 2 and path[0] == "items" and type(path[1]) is int and path[1] < count:
            groups[path[1]][path[2:]] = mark
    return groups


def _split_spans(
    spans: dict[Path, tuple[int, int, str]], count: int
) -> list[dict[Path, tuple[int, int, str]]]:
    groups: list[dict[Path, tuple[int, int, str]]] = [{} for _ in range(count)]
    for path, span in spans.items():
        if len(path) >= 2 and path[0] == "items" and type(path[1]) is int and path[1] < count:
            groups[path[1]][path[2:]] = span
    return groups


def _identity(value: Any) -> str:
    """A kind or apiVersion as kubectl's unstructured reader sees it ("" unless a string)."""
    return value if isinstance(value, str) else ""


def document_objects(doc: Document, name: str, kinds: Collection[str] | None) -> list[SourceObject]:
    """The objects of one read document (a list's items, or the document itself), those
    of `kinds` only when it is given; InputError at the position kubectl would refuse."""
    data = doc.value
    if not isinstance(data, dict):
        raise InputError(
            f"document {doc.index + 1} is {_type_name(data)}, not a Kubernetes object"
            " (a mapping with apiVersion and kind)",
            name,
            doc.root.line,
            doc.root.column,
        )
    if "items" not in data:
        _require_identity(data, name, doc.root, doc.key_marks, doc.value_marks)
        if kinds is not None and data["kind"] not in kinds:
            return []
        return [
            SourceObject(
                data, name, doc.index, None, doc.key_marks, doc.value_marks, doc.value_spans
            )
        ]
    return _list_items(doc, data, name, kinds)


def _list_items(
    doc: Document, data: dict[str, Any], name: str, kinds: Collection[str] | None
) -> list[SourceObject]:
    """kubectl reads any object with an `items` key as a list (unstructured's decoder) and
    applies its items, not the object: `items` must be a list (null: none), each item a
    mapping; an item with neither kind nor apiVersion takes the list's kind without its
    `List` suffix and the list's apiVersion; an item that is itself a list (an `items`
    list) is refused, as kubectl refuses it."""
    kind = data.get("kind")
    if not isinstance(kind, str) or not kind:
        _require_identity(data, name, doc.root, doc.key_marks, doc.value_marks)
        kind = ""  # (not reached: the identity check raised)
    items = data["items"]
    if items is None:
        items = []
    if not isinstance(items, list):
        where = doc.value_marks.get(("items",), doc.root)
        raise InputError(
            f"{kind} has items that are {_type_name(items)}, not a list (kubectl reads any"
            " object with items as a list of objects)",
            name,
            where.line,
            where.column,
        )
    item_kind = kind.removesuffix("List")
    list_api = _identity(data.get("apiVersion"))
    key_groups = _split_marks(doc.key_marks, len(items))
    value_groups = _split_marks(doc.value_marks, len(items))
    span_groups = _split_spans(doc.value_spans, len(items))
    result = []
    for number, item in enumerate(items):
        root = doc.value_marks.get(("items", number), doc.root)
        if not isinstance(item, dict):
            raise InputError(
                f"item {number} of kind: {kind} is {_type_name(item)}, not a Kubernetes object",
                name,
                root.line,
                root.column,
            )
        if not _identity(item.get("kind")) and not _identity(item.get("apiVersion")):
            item["kind"], item["apiVersion"] = item_kind, list_api
        _require_identity(item, name, root, key_groups[number], value_groups[number])
        if isinstance(item.get("items"), list):
            where = value_groups[number].get(("items",), root)
            raise InputError(
                f"item {number} of kind: {kind} is itself a list (it has items): kubectl refuses"
                " a list inside a list",
                name,
                where.line,
                where.column,
            )
        if kinds is not None and item["kind"] not in kinds:
            continue
        result.append(
            SourceObject(
                item,
                name,
                doc.index,
                number,
                key_groups[number],
                value_groups[number],
                span_groups[number],
            )
        )
    return result
