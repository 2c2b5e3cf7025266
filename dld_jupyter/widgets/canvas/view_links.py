"""The canvas's links: every link of the graph read straight from it (the open time of a big model), and the links
drawn when nodes are drawn as their collapsed group or hidden (the canvas view and the outline's preview share it).
"""

from __future__ import annotations

from collections.abc import Iterable

import onnx_ir as ir

from dld_jupyter.document import Document
from dld_jupyter.document.layout.outline import RawEdge
from dld_jupyter.document.model import ids
from dld_jupyter.document.model.endpoints import is_outer
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.protocol import EdgeData


def read_edges(doc: Document) -> dict[str, RawEdge]:
    """Every link, read straight from the graph (the same ids as doc.edges(), without building EdgeViews:
    this is most of the open time of a 50k-node model otherwise)."""
    graph = doc.model.graph
    value_id = doc.value_id
    nodes = list(graph)
    node_ids = [doc.node_id(node) for node in nodes]
    by_object = {id(node): nid for node, nid in zip(nodes, node_ids, strict=True)}  # one id lookup per node, not link
    out: dict[str, RawEdge] = {}

    def source(value: ir.Value) -> tuple[str, int] | None:
        producer = value.producer()
        if producer is not None:
            if producer.graph is not graph:
                return None
            index = value.index()
            return by_object[id(producer)], 0 if index is None else index
        if value.is_graph_input() and not value.is_initializer() and value.graph is graph:
            return ids.value_node_id("input", value_id(value)), 0
        if is_outer(value):  # a subgraph reading its enclosing scope: an outer node
            return ids.value_node_id("outer", value_id(value)), 0
        return None

    for node, dst in zip(nodes, node_ids, strict=True):
        for di, value in enumerate(node.inputs):
            if value is None:
                continue
            src = source(value)
            if src is not None:
                eid = ids.edge_id(src[0], src[1], dst, di)
                out[eid] = RawEdge(src[0], src[1], dst, di, value.name or "", None)
    for value in graph.outputs:
        src = source(value)
        if src is not None:
            dst = ids.value_node_id("output", value_id(value))
            out[ids.edge_id(src[0], src[1], dst, 0)] = RawEdge(src[0], src[1], dst, 0, value.name or "", None)
    return out


def visible_links(
    links: Iterable[tuple[str, int, str, int, str, str | None]], rep: dict[str, str | None]
) -> dict[str, EdgeData]:
    """The links drawn when each node is drawn as rep[node] (itself, its collapsed group, or None: hidden): links
    inside one group vanish, links between groups merge (index -1 at a group's end; the first link names them)."""
    edges: dict[str, EdgeData] = {}
    for src, si, dst, di, value, label in links:
        rs, rd = rep[src], rep[dst]
        if rs is None or rd is None or rs == rd:
            continue
        if rs == src and rd == dst:
            edge_id = ids.edge_id(src, si, dst, di)
            if edge_id not in edges:
                edges[edge_id] = gp.edge_data(edge_id, src, si, dst, di, value, label)
            continue
        vsi = si if rs == src else -1
        vdi = di if rd == dst else -1
        edge_id = ids.edge_id(rs, vsi, rd, vdi)
        if edge_id not in edges:
            edges[edge_id] = gp.edge_data(edge_id, rs, vsi, rd, vdi, value, None)
    return edges
