"""The parameter editor's subgraph and function-parameter parts (seed 000 "Subgraphs", "Local Functions").

- A GRAPH / GRAPHS attribute shows its subgraphs as links that open them in a child designer, a "+" that creates one
  (name, optional duplicate, optional open) and, for lists, "−" per graph.
- In a local function document an attribute may reference a function parameter (`ref_attr_name`): the row shows a
  drop-down of the compatible parameters and an X that removes the reference; "Set Reference Parameter" binds one;
  with no node selected, "Edit Local Function Parameters" opens Local Function Settings.
`decorate` adds these to the view parameters.view built; `handle` applies their messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from dld_jupyter.document import Document, DocumentError, FunctionDocument

from .edit_error import EditError, as_edit_error

KINDS = ("open_subgraph", "create_subgraph", "remove_subgraph", "set_ref", "clear_ref", "function_settings")
GRAPH_TYPES = ("GRAPH", "GRAPHS")


def is_function_document(doc: Document) -> TypeGuard[FunctionDocument]:
    return isinstance(doc, FunctionDocument)


def parameter_type(doc: Document, function: str, name: str) -> str | None:
    """The type of parameter `name` of the function `domain::name` an instance calls (None: no such parameter);
    an undefined one is typed by what the user writes: "INT" here, the literal decides below."""
    domain, _, fname = function.partition("::")
    info = next((f for f in doc.functions.list() if (f.domain, f.name) == (domain, fname)), None)
    found = next((p for p in info.parameters if p.name == name), None) if info is not None else None
    if found is None:
        return None
    return found.type if found.type != "UNDEFINED" else "LITERAL"


def _slots(doc: Document, node_id: str) -> list[Any]:
    return list(doc.subgraphs.slots(node_id))


def decorate(doc: Document, view: dict[str, Any]) -> dict[str, Any]:
    """Add subgraph links and function-parameter references to a parameter-editor view (in place; returned).
    ``view["function"]`` (function_view.py) describes the function; ``in_function`` says the document is one."""
    function = doc if is_function_document(doc) else None
    view["in_function"] = function is not None
    kind = doc.kind
    if view.get("mode") == "model" and kind in ("subgraph", "function"):  # a part of a model, not a model
        outer = doc.outer_references() if hasattr(doc, "outer_references") else []
        view["child"] = {
            "kind": kind,
            "title": str(getattr(doc, "title", "")),
            "outer": list(outer),
            "confirm": str(getattr(doc, "confirm_label", "")),
        }
    if view.get("mode") != "nodes" or len(view.get("ids", [])) != 1:
        return view
    node_id = view["ids"][0]
    rows = [*view.get("attributes", []), *view.get("defaults", [])]
    if any(r["type"] in GRAPH_TYPES for r in rows):
        slots = _slots(doc, node_id)
        # "slot": the position in subgraph_slots(node), what create_subgraph's duplicate_of names.
        every = [
            {"slot": k, "label": f"{s.attribute}" + (f"[{s.index}]" if s.index is not None else "") + f" {s.name}"}
            for k, s in enumerate(slots)
        ]
        for row in rows:
            if row["type"] in GRAPH_TYPES:
                row["subgraphs"] = [
                    {"index": s.index, "name": s.name, "node_count": s.node_count}
                    for s in slots
                    if s.attribute == row["name"]
                ]
                row["duplicates"] = every
    if function is not None:
        node = function.ir_node(node_id)
        for row in rows:
            attr = node.attributes.get(row["name"]) if node is not None else None
            row["ref"] = attr.ref_attr_name if attr is not None and attr.is_ref() else None
            if row["type"] not in GRAPH_TYPES:
                choices = function.reference_choices(node_id, row["name"])
                row["ref_choices"] = [[c.parameter, c.compatible] for c in choices]
    return view


def _one(doc: Document, selection: Sequence[str], key: str) -> str:
    ids = [n for n in selection if doc.ir_node(n) is not None]
    if len(ids) != 1:
        raise EditError(key, "Select one node.")
    return ids[0]


def handle(doc: Document, host: Any, selection: Sequence[str], msg: dict[str, Any]) -> None:
    """Apply one message; raises EditError (document unchanged) when refused."""
    kind = str(msg.get("kind"))
    attribute = str(msg.get("attribute") or "")
    key = str(msg.get("key") or f"attr:{attribute}")
    try:
        if kind == "function_settings":
            _need(host, key).child_panel("function_settings")
            return
        node = _one(doc, selection, key)
        index = msg.get("index")
        index = None if index is None else int(index)
        if kind == "open_subgraph":
            _need(host, key).open_subgraph(node, attribute, index)
        elif kind == "create_subgraph":
            dup = msg.get("duplicate_of")
            created = doc.subgraphs.create(
                node, attribute, str(msg.get("name") or "") or None, None if dup in (None, "") else int(dup)
            )
            if msg.get("open"):
                _need(host, key).open_subgraph(node, attribute, created)
        elif kind == "remove_subgraph":
            doc.subgraphs.remove(node, attribute, int(index or 0))
        elif kind == "set_ref":
            _function(doc, key).set_reference_attribute(node, attribute, str(msg.get("parameter") or ""))
        elif kind == "clear_ref":
            _function(doc, key).clear_reference_attribute(node, attribute)
    except (EditError, DocumentError, ValueError, AttributeError) as exc:
        if isinstance(exc, AttributeError) and not isinstance(exc, DocumentError):
            raise EditError(key, f"This document cannot do that: {exc}.") from exc
        raise as_edit_error(key, exc) from exc


def _need(host: Any, key: str) -> Any:
    if host is None:
        raise EditError(key, "Opening a subgraph or a window needs a designer (dld.open).")
    return host


def _function(doc: Document, key: str) -> FunctionDocument:
    if not is_function_document(doc):
        raise EditError(key, "Only an attribute in a local function's body can reference a function parameter "
                             "(open the function from Model Local Functions).")
    return doc
