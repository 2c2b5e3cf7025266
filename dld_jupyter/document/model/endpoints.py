"""Where a link starts and ends in the read-model: op nodes, graph-input and graph-output I/O nodes, edge ids.

A graph input is drawn as an input node (``i<value id>``) unless it is also an initializer (IR < 4 models list
weights as inputs: those stay initializers). A graph output is drawn as an output node (``o<value id>``). A value the
graph reads that nothing in it defines (no producer, no graph input, no initializer) is an outer reference: a value
of an enclosing graph read by a subgraph. Only the graph of a subgraph document draws them, as outer nodes
(``r<value id>``) with links to their readers: it lists the outer values its body read when opened under the
graph's ``meta`` key ``OUTER_KEY`` (not saved), and those stay drawn while nothing reads them, so a link can come
back. A model's main graph has no outer scope (and costs nothing here).
"""

from __future__ import annotations

import onnx_ir as ir

from dld_jupyter.document.model.ids import IdMap, edge_id, value_node_id


def has_input_node(value: ir.Value) -> bool:
    return value.is_graph_input() and not value.is_initializer()


def input_node_id(ids: IdMap, value: ir.Value) -> str:
    return value_node_id("input", ids.value_id(value))


def output_node_id(ids: IdMap, value: ir.Value) -> str:
    return value_node_id("output", ids.value_id(value))


def is_outer(value: ir.Value) -> bool:
    """A value read from an enclosing scope: defined by nothing in the graph that reads it."""
    return value.producer() is None and not value.is_graph_input() and not value.is_initializer()


OUTER_KEY = "dld.outer_references"


def draws_outer(graph: ir.Graph) -> bool:
    """Whether ``graph`` is a subgraph document's graph, the only kind that draws outer references."""
    return OUTER_KEY in graph.meta


def known_outer(graph: ir.Graph) -> tuple[ir.Value, ...]:
    """The outer values a subgraph document keeps drawn (empty for a model's main graph)."""
    return tuple(graph.meta.get(OUTER_KEY, ()))


def outer_node_id(ids: IdMap, value: ir.Value) -> str:
    return value_node_id("outer", ids.value_id(value))


def has_outer_node(graph: ir.Graph, value: ir.Value) -> bool:
    """Whether ``value`` is drawn as an outer node of ``graph``: an outer reference that a node or output of
    ``graph`` itself reads, or one the graph keeps (``known_outer``)."""
    if not draws_outer(graph) or not is_outer(value):
        return False
    if any(use.node.graph is graph for use in value.uses()) or any(out is value for out in graph.outputs):
        return True
    return value in known_outer(graph)


def outer_values(graph: ir.Graph) -> list[ir.Value]:
    """The outer references drawn in ``graph``: the kept ones, then the others in order of first reading."""
    if not draws_outer(graph):
        return []
    found: dict[ir.Value, None] = dict.fromkeys(known_outer(graph))
    for node in graph:
        for value in node.inputs:
            if value is not None and value not in found and is_outer(value):
                found[value] = None
    for value in graph.outputs:
        if value not in found and is_outer(value):
            found[value] = None
    return list(found)


def source_of(ids: IdMap, graph: ir.Graph, value: ir.Value | None) -> tuple[str, int] | None:
    """The (node id, output index) a link carrying ``value`` starts from, or None when no link is drawn."""
    if value is None:
        return None
    producer = value.producer()
    if producer is not None:
        if producer.graph is not graph:
            return None
        index = value.index()
        return ids.node_id(producer), 0 if index is None else index
    if has_input_node(value) and value.graph is graph:
        return input_node_id(ids, value), 0
    if draws_outer(graph) and is_outer(value):
        return outer_node_id(ids, value), 0
    return None


def edges_into(ids: IdMap, graph: ir.Graph, node: ir.Node) -> list[str]:
    """Ids of the links ending on the inputs of ``node``."""
    nid = ids.node_id(node)
    out = []
    for i, value in enumerate(node.inputs):
        src = source_of(ids, graph, value)
        if src is not None:
            out.append(edge_id(src[0], src[1], nid, i))
    return out


def edges_from_value(ids: IdMap, graph: ir.Graph, value: ir.Value) -> list[str]:
    """Ids of the links carrying ``value``: to its consumers in the graph and to its graph-output node."""
    src = source_of(ids, graph, value)
    if src is None:
        return []
    out = [edge_id(src[0], src[1], ids.node_id(use.node), use.idx) for use in value.uses() if use.node.graph is graph]
    if value.is_graph_output() and value.graph is graph:
        out.append(edge_id(src[0], src[1], output_node_id(ids, value), 0))
    return out
