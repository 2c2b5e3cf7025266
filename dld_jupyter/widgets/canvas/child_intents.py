"""Canvas intents of subgraphs and local functions (seed 000 "Subgraphs", "Local Functions"; issue 19): the glyph's
subgraph button lists a node's subgraphs and opens one; a function instance opens its definition; the context menu
creates a function from the selection and inlines an instance.

Opening goes through the registered operations on the designer that hosts the canvas (`canvas.host`, set by the
Designer): the child designer appears in its document tabs. Self-contained (no import of intents.py, which
registers these) so that the two modules form no import circle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dld_jupyter.activities.model_ref import document_of
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.subgraphs.child_document import ChildDocument
from dld_jupyter.frontdoor.children import (
    CREATE_FUNCTION_FROM_SELECTION,
    INLINE_FUNCTION,
    OPEN_FUNCTION,
    OPEN_SUBGRAPH,
)
from dld_jupyter.frontdoor.operations import OperationUnavailable

Reply = dict[str, object] | None


class ChildCanvas(Protocol):
    host: Any

    @property
    def document(self) -> Document: ...


def _string(args: dict[str, Any], key: str, action: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise DocumentError(f"Intent {action}", f"argument {key!r} must be a string.", "This is a view bug.")
    return value


def _host(c: ChildCanvas, what: str) -> Any:
    if getattr(c, "host", None) is None:
        raise DocumentError(
            what,
            "this canvas stands alone, without a designer to open it in.",
            "Open the model with dld.open(path) and use its designer.",
        )
    return c.host


def _run(operation: Any, target: Any, what: str, **args: Any) -> object:
    try:
        return operation(target, **args)
    except OperationUnavailable as error:
        raise DocumentError(what, str(error), "") from error


def subgraph_slots(c: ChildCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    node = _string(a, "node", "subgraph_slots")
    slots = c.document.subgraphs.slots(node)
    return {
        "slots": [
            {"attribute": s.attribute, "index": s.index, "name": s.name, "node_count": s.node_count} for s in slots
        ]
    }


def open_subgraph(c: ChildCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    index = a.get("index")
    child = _run(
        OPEN_SUBGRAPH,
        _host(c, "Open subgraph"),
        "Open subgraph",
        node=_string(a, "node", "open_subgraph"),
        attribute=_string(a, "attribute", "open_subgraph"),
        index=None if index is None else int(index),
    )
    return {"title": _title(child)}


def _title(child: object) -> str:
    """The title of the document a child designer opened on ("" when the operation gave none)."""
    document = document_of(child)
    return document.title if isinstance(document, ChildDocument) else ""


def open_function(c: ChildCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    child = _run(
        OPEN_FUNCTION, _host(c, "Open local function"), "Open local function", node=_string(a, "node", "open_function")
    )
    return {"title": _title(child)}


class _BareTarget:
    """A canvas without a designer as an operation's target (its edits need no designer)."""

    def __init__(self, canvas: ChildCanvas) -> None:
        self.canvas = canvas

    @property
    def document(self) -> Document:
        return self.canvas.document


def _target(c: ChildCanvas) -> Any:
    return c.host if getattr(c, "host", None) is not None else _BareTarget(c)


def create_function_from_selection(c: ChildCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    nodes = a.get("nodes")
    if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
        raise DocumentError(
            "Intent create_function_from_selection", "argument 'nodes' must be a list of ids.", "This is a view bug."
        )
    instance = _run(
        CREATE_FUNCTION_FROM_SELECTION,
        _target(c),
        "Create function from selection",
        nodes=nodes,
        name=_string(a, "name", "create_function_from_selection").strip(),
        domain=str(a.get("domain") or "").strip(),
    )
    return {"node": instance}


def inline_function(c: ChildCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    nodes = _run(INLINE_FUNCTION, _target(c), "Inline function", node=_string(a, "node", "inline_function"))
    return {"nodes": nodes}


CHILD_HANDLERS: dict[str, Callable[[Any, dict[str, Any], list[bytes]], Reply]] = {
    "subgraph_slots": subgraph_slots,
    "open_subgraph": open_subgraph,
    "open_function": open_function,
    "create_function_from_selection": create_function_from_selection,
    "inline_function": inline_function,
}
