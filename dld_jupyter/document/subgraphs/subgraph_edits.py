"""Edits of a node's subgraph attributes from the parent's side: list, create (empty or a duplicate), remove.

Editing a subgraph's content happens in its subgraph document (subgraph_document.py).
"""

from __future__ import annotations

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.structure_edits import Do, op_node
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.names import is_c90_identifier
from dld_jupyter.document.operators.signature import node_signature
from dld_jupyter.document.subgraphs.subgraph_scope import (
    GRAPH_KINDS,
    SetSubgraphs,
    SubgraphSlot,
    all_graph_names,
    copy_graph,
    graphs_of,
    slots,
)


def subgraph_slots(ctx: Context, node_id: str) -> list[SubgraphSlot]:
    return slots(op_node(ctx, node_id, "List subgraphs"))


def _kind(node: ir.Node, model: ir.Model, attribute: str, what: str) -> ir.AttributeType:
    """GRAPH or GRAPHS: the schema's type of ``attribute``, else the type it has on the node."""
    sig = node_signature(model, node)
    spec = sig.attributes.get(attribute) if sig else None
    kinds = {k.name: k for k in GRAPH_KINDS}
    kind = kinds.get(spec.type) if spec is not None else None
    attr = node.attributes.get(attribute)
    if kind is None and attr is not None and not attr.is_ref() and attr.type in GRAPH_KINDS:
        kind = attr.type
    if kind is None:
        graph_attrs = [n for n, a in (sig.attributes.items() if sig else ()) if a.type in kinds]
        why = f"{node.op_type} has no subgraph attribute {attribute!r}."
        raise DocumentError(what, why, f"Subgraph attributes of {node.op_type}: {', '.join(graph_attrs) or 'none'}.")
    return kind


def _unique_name(ctx: Context, node: ir.Node, attribute: str, name: str | None, what: str) -> str:
    taken = all_graph_names(ctx.graph)
    if name is not None:
        if not isinstance(name, str) or not is_c90_identifier(name):
            raise DocumentError(what, f"{name!r} is not a valid graph name.", "Use letters, digits and '_'.")
        if name in taken:
            raise DocumentError(what, f"a graph is already named {name!r} in this model.", "Choose a unique name.")
        return name
    base = f"{node.name or node.op_type}_{attribute}"
    candidate, k = base, 1
    while candidate in taken:
        k += 1
        candidate = f"{base}_{k}"
    return candidate


def create_subgraph(
    ctx: Context, do: Do, node_id: str, attribute: str, name: str | None, duplicate_of: int | None
) -> int | None:
    what = f"Create subgraph {attribute}"
    node = op_node(ctx, node_id, what)
    kind = _kind(node, ctx.model, attribute, what)
    graph_name = _unique_name(ctx, node, attribute, name, what)
    if duplicate_of is None:
        graph = ir.Graph([], [], nodes=[], name=graph_name)
    else:
        existing = slots(node)
        if not isinstance(duplicate_of, int) or not 0 <= duplicate_of < len(existing):
            why = f"{node.op_type} has {len(existing)} subgraphs (doc.subgraphs.slots)."
            raise DocumentError(what, why, f"Pass duplicate_of in 0..{len(existing) - 1}, or None.")
        slot = existing[duplicate_of]
        source = graphs_of(node, slot.attribute, what)[slot.index or 0]
        graph = copy_graph(source)
        graph.name = graph_name
    if kind == ir.AttributeType.GRAPH:
        do(SetSubgraphs(node, attribute, (graph,), False))
        return None
    current = graphs_of(node, attribute, what) if attribute in node.attributes else ()
    do(SetSubgraphs(node, attribute, (*current, graph), True))
    return len(current)


def remove_subgraph(ctx: Context, do: Do, node_id: str, attribute: str, index: int) -> None:
    what = f"Remove subgraph {attribute}[{index}]"
    node = op_node(ctx, node_id, what)
    if _kind(node, ctx.model, attribute, what) != ir.AttributeType.GRAPHS:
        why = f"{attribute!r} holds exactly one subgraph; only entries of subgraph lists are removed."
        raise DocumentError(what, why, "Create a new one in its place (create_subgraph) or reset the attribute.")
    graphs = graphs_of(node, attribute, what)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(graphs):
        raise DocumentError(what, f"{attribute!r} is a list of {len(graphs)} graphs.", "Pass an index shown.")
    do(SetSubgraphs(node, attribute, graphs[:index] + graphs[index + 1 :], True))
