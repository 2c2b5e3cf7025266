"""The ids Model Explorer's ONNX adapter gives a graph's nodes, so node data written here lands on its nodes.

Why: model-explorer-onnx names every node by onnx-ir's `passes.common.NameFixPass` before it draws (its
`_passes.process_model`), so an unnamed node is `node`, `node_1`, … and a second node named `x` is `x_1`. A key this
product made up for them (`Conv #48`) matched nothing there. One rule for both tools: formats/node_names.py, the
pass's rule (checked against the pass), run on a tree of each node's name and its subgraphs (which share the
pass's counter), so the document is never renamed and a big model costs about a microsecond per node. Opening a
model names its unnamed nodes by the same rule (document/files/io.py), so a node is, unless its name is repeated, shown
in Model Explorer under its own name. Until a save writes those names the file has none: such a node counts as unnamed
here, as Model Explorer sees the file (they differ only when a given name is one the pass would generate, `node_1`).
Functions are fixed by the pass apart from the main graph, so they do not change its ids and are left out. """

from __future__ import annotations

import onnx_ir as ir

from dld_jupyter.formats.node_names import GENERATED_META, NameNode, pass_names


def _tree(graph: ir.Graph) -> list[NameNode[ir.Node]]:
    """Each node of `graph` with its name and its subgraphs' trees, in the attributes' order (the pass's walk)."""
    tree = []
    for node in graph:
        subgraphs = []
        for attr in node.attributes.values():
            if isinstance(attr, ir.Attr) and attr.type == ir.AttributeType.GRAPH:
                subgraphs.append(_tree(attr.as_graph()))
            elif isinstance(attr, ir.Attr) and attr.type == ir.AttributeType.GRAPHS:
                subgraphs.extend(_tree(g) for g in attr.as_graphs())
        given = "" if node.meta.get(GENERATED_META) == node.name else node.name or ""  # as in the file
        tree.append(NameNode(node, given, subgraphs))
    return tree


def explorer_ids(graph: ir.Graph) -> dict[int, str]:
    """`id(node)` -> the id Model Explorer's ONNX adapter shows it under, for every node of `graph` and of its
    subgraphs (NameFixPass's name: a unique name is kept, an empty or repeated one gets a generated one)."""
    return {id(node): name for node, name in pass_names(_tree(graph))}


def explorer_node_ids(graph: ir.Graph) -> list[str]:
    """The Model Explorer id of each node of `graph` itself, in graph order."""
    ids = explorer_ids(graph)
    return [ids[id(node)] for node in graph]
