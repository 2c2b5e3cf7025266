"""Local-function instances expanded in place: the function's body drawn inside the instance, read-only.

A model exported with local functions (one per module, as torch.onnx's dynamo exporter writes them) reads like a
grouped overview: each instance is one squared-off node. Expanding one shows its definition inline, as a compound
box holding the body's nodes, its inputs and outputs (diamonds) and their links; the outer links stay attached to
the box. The body belongs to the function definition, shared by every instance, so it is shown, not edited here.
Ids: the box keeps the instance's id; body elements are "f:<instance>/n<k>", "/i<k>", "/o<k>".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import onnx_ir as ir

from dld_jupyter.document import Document
from dld_jupyter.document.layout.layered_layout import sugiyama_layout
from dld_jupyter.document.model.ids import BODY_PREFIX, edge_id
from dld_jupyter.document.operators.categories import category_for
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.glyph_text import informative_name
from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData, TerminalData

PREFIX = BODY_PREFIX
Point = tuple[float, float]


def is_body_id(element_id: str) -> bool:
    return element_id.startswith(PREFIX)


def function_of(doc: Document, node_id: str) -> ir.Function | None:
    """The local function this node instantiates (None for an op, a graph I/O node or an unknown id)."""
    node = doc.ir_node(node_id)
    if node is None:
        return None
    return doc.model.functions.get((node.domain, node.op_type, node.overload))


@dataclass
class Body:
    """What an expanded instance adds to the canvas (positions relative to the body's centre)."""

    function: ir.Function
    nodes: dict[str, NodeData] = field(default_factory=dict)
    edges: dict[str, EdgeData] = field(default_factory=dict)
    offsets: dict[str, Point] = field(default_factory=dict)

    @property
    def height(self) -> float:
        """Height of the body's layout (node boxes included)."""
        if not self.offsets:
            return 0.0
        half = {n: self.nodes[n]["height"] / 2 for n in self.offsets}
        return max(dy + half[n] for n, (_, dy) in self.offsets.items()) - min(
            dy - half[n] for n, (_, dy) in self.offsets.items()
        )

    def placed(self, centre: Point) -> dict[str, Point]:
        return {n: (centre[0] + dx, centre[1] + dy) for n, (dx, dy) in self.offsets.items()}


def _terminal(index: int, name: str, value: ir.Value | None) -> TerminalData:
    return {"index": index, "name": name, "optional": False, "variadic": False,
            "state": "linked" if value is not None else "free", "value": value.name if value is not None else None}


def _op_data(node_id: str, node: ir.Node, parent: str) -> NodeData:
    inputs = [_terminal(i, (v.name or "") if v is not None else "", v) for i, v in enumerate(node.inputs)]
    outputs = [_terminal(i, v.name or "", v) for i, v in enumerate(node.outputs)]
    subtitle = informative_name(node.name or "", node.op_type)
    width = gp.op_width(subtitle, node.op_type, max(len(inputs), len(outputs)))
    name = gp.display_name(node.name or "") or node.op_type
    return {"id": node_id, "name": name, "kind": "op", "op_type": node.op_type, "domain": node.domain,
            "category": category_for(node.op_type, node.domain), "composite": False, "function": None, "inputs": inputs,
            "outputs": outputs, "parent": parent, "collapsed": False, "child_count": 0, "diagnostic": None,
            "precision": None, "hidden_constant": False, "subtitle": subtitle, "detail": "", "width": width,
            "height": gp.NODE_HEIGHT}


def _io_data(io_id: str, name: str, kind: Literal["input", "output"], parent: str) -> NodeData:
    terminal: TerminalData = {"index": 0, "name": name, "optional": False, "variadic": False, "state": "linked",
                              "value": name}
    return {"id": io_id, "name": name, "kind": kind, "op_type": "", "domain": "", "category": "",
            "composite": False, "function": None, "inputs": [terminal] if kind == "output" else [],
            "outputs": [terminal] if kind == "input" else [], "parent": parent, "collapsed": False,
            "child_count": 0, "diagnostic": None, "precision": None, "hidden_constant": False, "subtitle": "",
            "detail": "", "width": gp.IO_SIZE[0], "height": gp.IO_SIZE[1]}


def build_body(instance_id: str, function: ir.Function) -> Body:
    """The body's elements and a layered layout of them, centred on (0, 0)."""
    body = Body(function)
    base = f"{PREFIX}{instance_id}/"
    source: dict[int, tuple[str, int]] = {}  # id(value) -> (element id, output index)
    for k, value in enumerate(function.inputs):
        io_id = f"{base}i{k}"
        body.nodes[io_id] = _io_data(io_id, value.name or f"input {k}", "input", instance_id)
        source[id(value)] = (io_id, 0)
    ids: dict[int, str] = {}
    for k, node in enumerate(function):
        node_id = f"{base}n{k}"
        ids[id(node)] = node_id
        body.nodes[node_id] = _op_data(node_id, node, instance_id)
        for j, value in enumerate(node.outputs):
            source[id(value)] = (node_id, j)
    for node in function:
        for j, used in enumerate(node.inputs):
            found = source.get(id(used)) if used is not None else None
            if found is not None and used is not None:
                _link(body, found, (ids[id(node)], j), used.name or "")
    for k, result in enumerate(function.outputs):
        io_id = f"{base}o{k}"
        body.nodes[io_id] = _io_data(io_id, result.name or f"output {k}", "output", instance_id)
        found = source.get(id(result))
        if found is not None:
            _link(body, found, (io_id, 0), result.name or "")
    sizes = {n: (d["width"], d["height"]) for n, d in body.nodes.items()}
    laid = sugiyama_layout(list(body.nodes), [(e["source"], e["target"]) for e in body.edges.values()], sizes)
    if laid:
        xs = [p[0] for p in laid.values()]
        ys = [p[1] for p in laid.values()]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        body.offsets = {n: (x - cx, y - cy) for n, (x, y) in laid.items()}
    return body


def _link(body: Body, src: tuple[str, int], dst: tuple[str, int], value: str) -> None:
    eid = edge_id(src[0], src[1], dst[0], dst[1])
    body.edges[eid] = gp.edge_data(eid, src[0], src[1], dst[0], dst[1], value, None)


def expanded_box(data: NodeData, body: Body) -> NodeData:
    """The instance drawn as the box around its body (no terminals: outer links end at the box)."""
    fn = body.function
    return {**data, "kind": "group", "name": f"{data['name']}  ·  f(x) {fn.name}", "collapsed": False,
            "child_count": sum(1 for n in body.nodes.values() if n["kind"] == "op"), "inputs": [], "outputs": []}


def bodies_for(doc: Document, instance_ids: Mapping[str, None] | set[str]) -> dict[str, Body]:
    found = {}
    for instance_id in instance_ids:
        function = function_of(doc, instance_id)
        if function is not None:
            found[instance_id] = build_body(instance_id, function)
    return found


# Intents that may name an element of an expanded function body (they read or change the view, not the model).
BODY_SAFE = frozenset({"ping", "doc", "expand", "collapse"})


_ID_ARGS = ("node", "nodes", "src", "dst", "ids", "edges", "group")  # intent arguments that carry element ids


def names_body_element(args: object) -> bool:
    """Whether an intent names an element of an expanded function body (names and values are not ids)."""
    if not isinstance(args, dict):
        return False
    for key in _ID_ARGS:
        value = args.get(key)
        for item in value if isinstance(value, list | tuple) else [value]:
            # an element of a body, or an edge id that ends at one
            if isinstance(item, str) and (is_body_id(item) or "->" + BODY_PREFIX in item):
                return True
    return False
