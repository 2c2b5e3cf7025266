"""Document read-model -> the canvas's NodeData / EdgeData, and patches with their Float32 positions buffer.

Pure data: no widget here. The canvas (canvas.py) decides what is visible (grouping.py) and sends what this builds.
"""

from __future__ import annotations

import array
from collections.abc import Iterable, Mapping
from typing import cast

from dld_jupyter.document.model.views import EdgeView, NodeView, TerminalView
from dld_jupyter.document.operators.categories import category_for
from dld_jupyter.widgets.canvas.glyph_text import detail_line, informative_name
from dld_jupyter.widgets.canvas.protocol import (
    EdgeData,
    NodeData,
    NodeKind,
    PatchMessage,
    Severity,
    TerminalData,
    TerminalState,
)

GROUP_SIZE = (200.0, 48.0)
# The padding the page draws around an expanded group's children (style.ts, `node.group.expanded`): the layout must
# keep at least this much room, or two sibling boxes drawn wider than laid out overlap (SSDlite's anchor_generator
# and head did, by 16 px).
GROUP_PADDING = 24.0
IO_SIZE = (72.0, 44.0)
NODE_HEIGHT = 50.0
LINE_HEIGHT = 14.0
SHAPE_INPUT_OPS = frozenset({"Reshape", "Expand", "Tile", "Slice", "Squeeze", "Unsqueeze", "Pad", "Resize",
                             "ConstantOfShape", "Gather", "GatherElements", "Range", "TopK", "Split", "ReduceMean",
                             "ReduceSum", "ReduceMax", "ReduceMin", "ScatterND", "OneHot"})
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def display_name(name: str) -> str:
    """The last name-scope segment: the scope is what the enclosing group shows."""
    return name.rsplit("/", 1)[-1] or name


def op_width(name: str, op_type: str, terminals: int, detail: str = "") -> float:
    """Width of an op glyph: its longest label line, or room for its terminals along one edge."""
    label = max(len(display_name(name)), len(op_type), len(detail))
    return float(min(max(7.5 * label + 28, 110, 24 * terminals + 16), 280))


def glyph_text(
    view: NodeView, weights: Mapping[int, list[int | str]] | None = None, own_scope: bool = True
) -> tuple[str, str]:
    """(subtitle, detail) of an op glyph (glyph_text.py); `weights` adds shapes of inputs fed by hidden plumbing;
    `own_scope`: the node's name scope holds it alone, so the scope's name is the node's."""
    if view.kind != "op":
        return "", ""
    shapes: list[list[int | str] | None] = []
    if view.op_type not in SHAPE_INPUT_OPS:  # their constant inputs are shapes or indices, not weights
        shapes = [t.shape for t in view.inputs if t.state in ("initializer", "constant") and t.index > 0]
        shapes.extend((weights or {}).values())
    detail = detail_line(view.op_type, shapes, view.attributes) if shapes or view.attributes else ""
    return informative_name(view.name, view.op_type, own_scope), detail


def node_size(view: NodeView, subtitle: str = "", detail: str = "") -> tuple[float, float]:
    if view.kind == "outer":  # "outer: <name>" on a tag-shaped glyph
        return float(min(max(7.0 * len(view.name) + 80, 110), 300)), 36.0
    if view.kind != "op":
        return IO_SIZE
    lines = 1 + bool(subtitle) + bool(detail)
    width = op_width(subtitle, view.op_type, max(len(view.inputs), len(view.outputs)), detail)
    return width, NODE_HEIGHT + LINE_HEIGHT * max(0, lines - 2)


# The read-model's words (document/model/views.py) as the canvas protocol's literals: an unknown one is a KeyError.
_STATES: dict[str, TerminalState] = {s: s for s in ("free", "linked", "initializer", "constant")}
_KINDS: dict[str, NodeKind] = {k: k for k in ("op", "input", "output", "outer")}


def terminal_data(t: TerminalView, shown_source: bool) -> TerminalData:
    state = _STATES[t.state]
    if state == "constant" and shown_source:
        state = "linked"  # its Constant node is drawn: a plain link
    elif state == "free" and t.variadic:
        state = "placeholder"  # the gray "infinite" terminal that grows as links are made
    return {
        "index": t.index,
        "name": t.name,
        "optional": t.optional,
        "variadic": t.variadic,
        "state": state,
        "value": t.value_name,
    }


def node_data(
    view: NodeView,
    parent: str | None,
    diagnostic: Severity | None = None,
    shown_constant_inputs: Iterable[int] = (),
    hidden_constant: bool = False,
    weights: Mapping[int, list[int | str]] | None = None,
    own_scope: bool = True,
) -> NodeData:
    subtitle, detail = glyph_text(view, weights, own_scope)
    width, height = node_size(view, subtitle, detail)
    shown = set(shown_constant_inputs)
    data: NodeData = {
        "id": view.id,
        "name": view.name if view.kind != "op" else display_name(view.name) or view.op_type,
        "kind": _KINDS[view.kind],
        "op_type": view.op_type,
        "domain": view.domain,
        "category": category_for(view.op_type, view.domain) if view.kind == "op" else "",
        "composite": view.is_composite,
        "function": view.function,
        "inputs": [terminal_data(t, t.index in shown) for t in view.inputs],
        "outputs": [terminal_data(t, False) for t in view.outputs],
        "parent": parent,
        "collapsed": False,
        "child_count": 0,
        "diagnostic": diagnostic,
        "precision": None,
        "hidden_constant": hidden_constant,
        "subtitle": subtitle,
        "detail": detail,
        "width": width,
        "height": height,
    }
    if view.subgraphs:
        data["subgraphs"] = list(view.subgraphs)
    if view.kind == "outer":  # a value of the enclosing scope the subgraph reads (seed: outer references)
        data["name"] = f"outer: {view.name}"
    return data


def group_data(group_id: str, label: str, parent: str | None, collapsed: bool, count: int) -> NodeData:
    return {
        "id": group_id,
        "name": label,
        "kind": "group",
        "op_type": "",
        "domain": "",
        "category": "",
        "composite": False,
        "function": None,
        "inputs": [],
        "outputs": [],
        "parent": parent,
        "collapsed": collapsed,
        "child_count": count,
        "diagnostic": None,
        "precision": None,
        "hidden_constant": False,
        "subtitle": "",
        "detail": "",
        "width": GROUP_SIZE[0],
        "height": GROUP_SIZE[1],
    }


def shape_label(shape: list[int | str] | None) -> str | None:
    if shape is None:
        return None
    return "×".join(str(d) for d in shape) if shape else "scalar"


def edge_data(
    edge_id: str, src: str, src_index: int, dst: str, dst_index: int, value: str, label: str | None
) -> EdgeData:
    return {
        "id": edge_id,
        "source": src,
        "source_index": src_index,
        "target": dst,
        "target_index": dst_index,
        "value": value,
        "label": label,
    }


def edge_label(view: EdgeView, checked: bool) -> str | None:
    """Inferred shapes label the links only after a successful check (seed "Layers")."""
    return shape_label(view.shape) if checked else None


def worst_diagnostics(diagnostics: Iterable[object]) -> dict[str, Severity]:
    worst: dict[str, Severity] = {}
    for d in diagnostics:
        node_id = getattr(d, "node_id", None)
        severity: Severity = getattr(d, "severity", "info")
        if node_id is None or severity not in SEVERITY_RANK:
            continue
        if node_id not in worst or SEVERITY_RANK[severity] > SEVERITY_RANK[worst[node_id]]:
            worst[node_id] = severity
    return worst


def floats(points: Iterable[tuple[float, float]]) -> bytes:
    """x0, y0, x1, y1, ... as little-endian Float32 (the browser reads it as a Float32Array)."""
    buf = array.array("f")
    for x, y in points:
        buf.append(x)
        buf.append(y)
    return buf.tobytes()


class PatchBuilder:
    """Collects patch ops in the order the browser applies them; positions of added then moved nodes."""

    def __init__(self) -> None:
        self.ops: list[dict[str, object]] = []
        self.points: list[tuple[float, float]] = []

    def remove_edges(self, ids: list[str]) -> None:
        if ids:
            self.ops.append({"op": "remove_edges", "ids": ids})

    def remove_nodes(self, ids: list[str]) -> None:
        if ids:
            self.ops.append({"op": "remove_nodes", "ids": ids})

    def add_nodes(self, nodes: list[NodeData], positions: Mapping[str, tuple[float, float]]) -> None:
        if nodes:
            self.ops.append({"op": "add_nodes", "nodes": nodes})
            self.points.extend(positions.get(n["id"], (0.0, 0.0)) for n in nodes)

    def update_nodes(self, nodes: list[NodeData]) -> None:
        if nodes:
            self.ops.append({"op": "update_nodes", "nodes": nodes})

    def add_edges(self, edges: list[EdgeData]) -> None:
        if edges:
            self.ops.append({"op": "add_edges", "edges": edges})

    def update_edges(self, edges: list[EdgeData]) -> None:
        if edges:
            self.ops.append({"op": "update_edges", "edges": edges})

    def move(self, positions: Mapping[str, tuple[float, float]]) -> None:
        if positions:
            self.ops.append({"op": "move", "ids": list(positions)})
            self.points.extend(positions.values())

    def ids(self, op: str) -> list[str]:
        """The ids of this patch's `op` ops (remove_edges, remove_nodes or move), in order."""
        return [i for o in self.ops if o["op"] == op for i in cast("list[str]", o["ids"])]  # as the methods above set

    def extend(self, other: PatchBuilder) -> None:
        """Append another patch's ops (applied after these; positions stay in op order)."""
        self.ops.extend(other.ops)
        self.points.extend(other.points)

    def __bool__(self) -> bool:
        return bool(self.ops)

    def message(self, version: int) -> tuple[PatchMessage, list[bytes]]:
        return {"kind": "patch", "version": version, "ops": self.ops}, [floats(self.points)]
