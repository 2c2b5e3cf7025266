"""Browser intents -> document commands. Each handler validates its arguments, runs one undo step (or none for
view-only intents), and returns reply data; a refused edit raises DocumentError and leaves the document unchanged.
"""

from __future__ import annotations

import array
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.ids import kind_of, parse_edge_id
from dld_jupyter.frontdoor.operation_target import LiveCanvas
from dld_jupyter.frontdoor.operations import ARRANGE, CHECK, REDO, SAVE, UNDO
from dld_jupyter.widgets.canvas.analysis_intents import ANALYSIS_HANDLERS
from dld_jupyter.widgets.canvas.canvas_view import CanvasView
from dld_jupyter.widgets.canvas.child_intents import CHILD_HANDLERS
from dld_jupyter.widgets.canvas.trt_intents import TRT_HANDLERS


class IntentCanvas(LiveCanvas, Protocol):
    """What the handlers use of the canvas widget (canvas.py dispatches to them, so they do not import it)."""

    @property
    def document(self) -> Document: ...

    @property
    def view(self) -> CanvasView: ...

    def set_expanded(self, group: str, expanded: bool) -> None: ...

    def toggle_constant(self, node: str, index: int) -> None: ...


class CanvasTarget:
    """The canvas as the target of a registered operation (frontdoor/operations.py), for the operations its own
    keys and menu start: the canvas's model, saved with its layout, checked without a designer's output list."""

    def __init__(self, canvas: IntentCanvas) -> None:
        self.canvas = canvas

    @property
    def document(self) -> Document:
        return self.canvas.document

    def save(self, path: str | Path | None = None) -> None:
        self.canvas.save(path)

    def check(self) -> list[Any]:
        return self.canvas.document.check()


Reply = dict[str, object] | None
Handler = Callable[[IntentCanvas, dict[str, Any], list[bytes]], Reply]


def arg(args: dict[str, Any], key: str, kind: type, action: str) -> Any:
    value = args.get(key)
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise DocumentError(
            f"Intent {action}", f"argument {key!r} must be {kind.__name__}, got {value!r}.", "This is a view bug."
        )
    return value


def ids(args: dict[str, Any], key: str, action: str) -> list[str]:
    value = args.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DocumentError(f"Intent {action}", f"argument {key!r} must be a list of ids.", "This is a view bug.")
    return value


def add_node(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    op = arg(a, "op_type", str, "add_node")
    domain = a.get("domain") or ""
    x, y = float(a.get("x", 0.0)), float(a.get("y", 0.0))
    return {"node": c.document.add_node(op, domain=str(domain), position=(x, y))}


def delete(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    nodes = ids(a, "nodes", "delete")
    edges = ids(a, "edges", "delete")
    doc = c.document
    with doc.transaction("Delete"):
        for eid in edges:
            src, _si, dst, di = parse_edge_id(eid)
            if di < 0 or kind_of(src) == "group" or kind_of(dst) == "group":
                raise DocumentError("Delete link", "it stands for several links of a collapsed group.",
                                    "Expand the group and delete the links inside it.")
            if kind_of(dst) == "output":
                if dst not in nodes:
                    nodes.append(dst)  # a graph output is bound to its value: removing the link removes the output
            elif dst not in nodes:
                doc.disconnect(dst, di)
        ops = [n for n in nodes if kind_of(n) != "group"]
        if ops:
            doc.remove_nodes(ops)
    return None


def connect(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.document.connect(arg(a, "src", str, "connect"), arg(a, "src_index", int, "connect"),
                       arg(a, "dst", str, "connect"), arg(a, "dst_index", int, "connect"))
    return None


def disconnect(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.document.disconnect(arg(a, "dst", str, "disconnect"), arg(a, "dst_index", int, "disconnect"))
    return None


def add_graph_input(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    node = arg(a, "node", str, "add_graph_input")
    return {"node": c.document.add_graph_input(node, arg(a, "index", int, "add_graph_input"))}


def add_graph_output(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    node = arg(a, "node", str, "add_graph_output")
    return {"node": c.document.add_graph_output(node, arg(a, "index", int, "add_graph_output"))}


def move(c: IntentCanvas, a: dict[str, Any], b: list[bytes]) -> Reply:
    node_ids = ids(a, "ids", "move")
    points = array.array("f")
    if b:
        points.frombytes(bytes(b[0]))
    if len(points) != 2 * len(node_ids):
        raise DocumentError("Move nodes", f"{len(node_ids)} ids but {len(points) // 2} positions.", "View bug.")
    moves = {n: (float(points[2 * i]), float(points[2 * i + 1])) for i, n in enumerate(node_ids)}
    moves = {n: p for n, p in moves.items() if kind_of(n) != "group"}
    if moves:
        c.document.move_nodes(moves)
    return None


def rename(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.document.rename_node(arg(a, "node", str, "rename"), arg(a, "name", str, "rename"))
    return None


def set_attr(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.document.set_attribute(arg(a, "node", str, "set_attr"), arg(a, "name", str, "set_attr"), a.get("value"))
    return None


def undo(c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    return {"label": UNDO(CanvasTarget(c))}


def redo(c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    return {"label": REDO(CanvasTarget(c))}


def save(c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    SAVE(CanvasTarget(c))
    return {"path": str(c.document.path)}


def arrange(c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    ARRANGE(CanvasTarget(c))
    return None


def check(c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    found = CHECK(CanvasTarget(c))
    assert isinstance(found, list)
    count = {s: sum(1 for d in found if d.severity == s) for s in ("error", "warning", "info")}
    return {"diagnostics": count}


def expand(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.set_expanded(arg(a, "group", str, "expand"), True)
    return None


def collapse(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.set_expanded(arg(a, "group", str, "collapse"), False)
    return None


def toggle_constant(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    c.toggle_constant(arg(a, "node", str, "toggle_constant"), int(a.get("index", -1)))
    return None


def copy(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    from dld_jupyter.transforms.clipboard import copy_selection  # the transforms load when an edit needs them

    return {"copied": copy_selection(c.document, ids(a, "nodes", "copy"))}


def cut(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    from dld_jupyter.transforms.clipboard import copy_selection

    nodes = ids(a, "nodes", "cut")
    copied = copy_selection(c.document, nodes)
    c.document.remove_nodes([n for n in nodes if kind_of(n) != "group"])
    return {"copied": copied}


def paste(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    from dld_jupyter import transforms

    at = (float(a.get("x", 0.0)), float(a.get("y", 0.0)))
    pasted: list[str] = transforms.get("paste").apply(c.document, at=at)
    return {"nodes": pasted}


def extract(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    from dld_jupyter import transforms

    path = transforms.get("extract").apply(c.document, node_ids=ids(a, "nodes", "extract"), path=a.get("path"))
    return {"path": str(path)}


def doc(c: IntentCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    from dld_jupyter.document.operators.schema import registry

    node_id = arg(a, "node", str, "doc")
    body_node = next((b.nodes[node_id] for b in c.view.bodies.values() if node_id in b.nodes), None)
    if body_node is not None:  # a node of an expanded local function: documented like any op
        op_type, domain = body_node["op_type"], body_node["domain"]
    else:
        node = c.document.node(node_id)
        op_type, domain = node.op_type, node.domain
    opset = c.document.model.opset_imports.get(domain or "", None)
    schema = registry.get(op_type, domain, opset)
    if schema is None:
        raise DocumentError(f"Documentation of {op_type}", "no schema is known for this operator.",
                            "Local functions and custom domains have no documentation.")
    title = f"{schema.name} ({schema.domain or 'ai.onnx'}, since opset {schema.since_version})"
    # name, domain, version: JupyterLab's documentation browser opens there (js/src/widgets/canvas/docpanel.ts)
    return {"title": title, "doc": schema.doc.strip(), "name": schema.name, "domain": schema.domain or "ai.onnx",
            "since_version": schema.since_version}


def ping(_c: IntentCanvas, _a: dict[str, Any], _b: list[bytes]) -> Reply:
    """No edit: measures the comm round trip alone (the benchmark's baseline for the edit round trip)."""
    return None


HANDLERS: dict[str, Handler] = {
    "add_node": add_node, "delete": delete, "connect": connect, "disconnect": disconnect,
    "add_graph_input": add_graph_input, "add_graph_output": add_graph_output, "move": move, "rename": rename,
    "set_attr": set_attr, "undo": undo, "redo": redo, "save": save, "arrange": arrange, "check": check,
    "expand": expand, "collapse": collapse, "toggle_constant": toggle_constant, "copy": copy, "cut": cut,
    "paste": paste, "extract": extract, "doc": doc, "ping": ping,
}
HANDLERS.update(TRT_HANDLERS)  # optimization profiles and layer precisions
HANDLERS.update(CHILD_HANDLERS)  # subgraphs and local functions
HANDLERS.update(ANALYSIS_HANDLERS)  # the palette's Analysis category dropped on a node while analysing
