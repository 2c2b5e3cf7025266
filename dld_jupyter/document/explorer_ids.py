"""The ids Model Explorer's ONNX adapter gives a graph's nodes, so node data written here lands on its nodes.

Why: model-explorer-onnx names every node by onnx-ir's `passes.common.NameFixPass` before it draws (its
`_passes.process_model`), so an unnamed node is `node`, `node_1`, … and a second node named `x` is `x_1`. A key this
product made up for them (`Conv #48`) matched nothing there. One rule for both tools: the pass itself runs here, on a
skeleton of the graph (each node's name and its subgraphs, which share the pass's counter, nothing else: no values,
no weights), so the document is never renamed and a big model costs microseconds per node. Functions are fixed by
the pass apart from the main graph, so they do not change its ids and are left out.
"""

from __future__ import annotations

import onnx_ir as ir
from onnx_ir.passes.common import NameFixPass

_SUBGRAPHS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)


def _skeleton(graph: ir.Graph, pairs: list[tuple[ir.Node, ir.Node]]) -> ir.Graph:
    """A graph of bare nodes in `graph`'s order, each with the name and subgraph attributes of its original (in the
    attributes' order, which is the order the pass walks them in); (skeleton, original) pairs collected."""
    nodes = []
    for node in graph:
        attributes = []
        for attr in node.attributes.values():
            if isinstance(attr, ir.Attr) and attr.type == ir.AttributeType.GRAPH:
                attributes.append(ir.AttrGraph(attr.name, _skeleton(attr.as_graph(), pairs)))
            elif isinstance(attr, ir.Attr) and attr.type == ir.AttributeType.GRAPHS:
                attributes.append(ir.AttrGraphs(attr.name, [_skeleton(g, pairs) for g in attr.as_graphs()]))
        bare = ir.Node(node.domain, node.op_type, inputs=(), attributes=attributes, name=node.name, num_outputs=0)
        pairs.append((bare, node))
        nodes.append(bare)
    return ir.Graph((), (), nodes=nodes, name=graph.name)


def explorer_ids(graph: ir.Graph) -> dict[int, str]:
    """`id(node)` -> the id Model Explorer's ONNX adapter shows it under, for every node of `graph` and of its
    subgraphs (NameFixPass's name: a unique name is kept, an empty or repeated one gets a generated one)."""
    pairs: list[tuple[ir.Node, ir.Node]] = []
    skeleton = _skeleton(graph, pairs)
    NameFixPass()(ir.Model(skeleton, ir_version=10))
    return {id(original): bare.name or "" for bare, original in pairs}


def explorer_node_ids(graph: ir.Graph) -> list[str]:
    """The Model Explorer id of each node of `graph` itself, in graph order."""
    ids = explorer_ids(graph)
    return [ids[id(node)] for node in graph]
