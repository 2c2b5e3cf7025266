"""Stable UI ids for the nodes and values of a document, independent of ONNX names.

Ids are handed out on first sight (``n0``, ``n1``… for nodes, ``v0``… for values) and never reused: a removed node
keeps its id, so undoing the removal brings back the same id. Objects are keyed by ``id()``; the map holds a
strong reference to each, so an ``id()`` is never recycled while it is a key.
"""

from __future__ import annotations

import onnx_ir as ir

from .errors import DocumentError


class IdMap:
    """Two-way map between ir objects and their ids."""

    def __init__(self) -> None:
        self._node_ids: dict[int, str] = {}
        self._nodes: dict[str, ir.Node] = {}
        self._value_ids: dict[int, str] = {}
        self._values: dict[str, ir.Value] = {}
        self._next_node = 0
        self._next_value = 0

    def node_id(self, node: ir.Node) -> str:
        nid = self._node_ids.get(id(node))
        if nid is None:
            nid = f"n{self._next_node}"
            self._next_node += 1
            self._node_ids[id(node)] = nid
            self._nodes[nid] = node
        return nid

    def value_id(self, value: ir.Value) -> str:
        vid = self._value_ids.get(id(value))
        if vid is None:
            vid = f"v{self._next_value}"
            self._next_value += 1
            self._value_ids[id(value)] = vid
            self._values[vid] = value
        return vid

    def node(self, node_id: str) -> ir.Node:
        node = self._nodes.get(node_id)
        if node is None:
            raise DocumentError(f"Find node {node_id!r}", "no node has this id.", "Use an id from doc.nodes().")
        return node

    def value(self, value_id: str) -> ir.Value:
        value = self._values.get(value_id)
        if value is None:
            raise DocumentError(
                f"Find value {value_id!r}", "no value has this id.", "Use a value id from a NodeView terminal."
            )
        return value
