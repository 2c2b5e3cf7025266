"""A cache of the read-model between edits: views are rebuilt only for what a step changed.

A step's netted ``Changes`` name every node added, removed, changed or moved and every link touched; those views
(and the links into both ends of a touched link) are dropped. Anything global (opset imports, model information,
inferred shapes) drops the whole cache. Views must not be mutated by callers.
"""

from __future__ import annotations

from dld_jupyter.document.model.endpoints import (
    has_input_node,
    input_node_id,
    outer_node_id,
    outer_values,
    output_node_id,
)
from dld_jupyter.document.model.events import Changes
from dld_jupyter.document.model.ids import parse_edge_id
from dld_jupyter.document.model.views import EdgeView, NodeView, ReadModel


class ViewCache:
    def __init__(self) -> None:
        self._nodes: dict[str, NodeView] = {}
        self._edges: dict[str, list[EdgeView]] = {}  # by destination node id

    def clear(self) -> None:
        self._nodes.clear()
        self._edges.clear()

    def invalidate(self, changes: Changes) -> None:
        if changes.model_info:
            self.clear()
            return
        drop = set(changes.nodes) | set(changes.changed) | set(changes.moved)
        for edge in changes.edges:
            src, _si, dst, _di = parse_edge_id(edge)
            drop.update((src, dst))
        for node_id in drop:
            self._nodes.pop(node_id, None)
            self._edges.pop(node_id, None)

    def nodes(self, read: ReadModel, cached: bool = True) -> list[NodeView]:
        """The node views, reusing those no change touched (``cached`` False inside a transaction: read afresh)."""
        if not cached:
            return read.nodes()
        cache, ids, graph = self._nodes, read.ids, read.graph
        out: list[NodeView] = []
        for value in graph.inputs:
            if has_input_node(value):
                nid = input_node_id(ids, value)
                view = cache.get(nid)
                if view is None:
                    view = cache[nid] = read.io_node(value, "input")
                out.append(view)
        for value in outer_values(graph):
            nid = outer_node_id(ids, value)
            view = cache.get(nid)
            if view is None:
                view = cache[nid] = read.outer_node(value)
            out.append(view)
        for node in graph:
            nid = ids.node_id(node)
            view = cache.get(nid)
            if view is None:
                view = cache[nid] = read.op_node(node)
            out.append(view)
        for value in graph.outputs:
            nid = output_node_id(ids, value)
            view = cache.get(nid)
            if view is None:
                view = cache[nid] = read.io_node(value, "output")
            out.append(view)
        return out

    def edges(self, read: ReadModel, cached: bool = True) -> list[EdgeView]:
        if not cached:
            return read.edges()
        cache, ids = self._edges, read.ids
        out: list[EdgeView] = []
        for node in read.graph:
            nid = ids.node_id(node)
            found = cache.get(nid)
            if found is None:
                found = cache[nid] = read.edges_into(node)
            out.extend(found)
        for value in read.graph.outputs:
            nid = output_node_id(ids, value)
            found = cache.get(nid)
            if found is None:
                found = cache[nid] = read.edges_into_output(value)
            out.extend(found)
        return out
