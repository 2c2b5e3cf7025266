"""Reads across graph boundaries: the graphs nested in nodes' attributes (If/Loop/Scan bodies) and what they read.

A subgraph may read a value of an enclosing graph by name, with no link drawn for it. Edits of the enclosing graph
must still see that read: a node whose subgraph reads a value is downstream of it (a link back would close a
cycle), and a value a remaining subgraph reads cannot be removed. Apart from graph_edits.py (structural edits)
because function creation and function parameters walk nested graphs too.
"""

from __future__ import annotations

from collections.abc import Iterable

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.model.errors import DocumentError


def subgraphs(nodes: Iterable[ir.Node]) -> set[ir.Graph]:
    """Every graph nested in the attributes of ``nodes``, at any depth."""
    found: set[ir.Graph] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        for attr in node.attributes.values():
            if attr.is_ref():
                continue
            graphs = [attr.value] if attr.type == ir.AttributeType.GRAPH else []
            graphs += list(attr.value) if attr.type == ir.AttributeType.GRAPHS else []
            for graph in graphs:
                if graph not in found:
                    found.add(graph)
                    stack.extend(graph)
    return found


def reaches(graph: ir.Graph, start: ir.Node, target: ir.Node) -> bool:
    """True when ``target`` is downstream of ``start`` (or is it); a read inside a subgraph counts for its owner."""
    owners: dict[ir.Graph | ir.Function | None, ir.Node] | None = None
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        for out in node.outputs:
            for use in out.uses():
                user: ir.Node | None = use.node
                if use.node.graph is not graph:
                    if owners is None:
                        owners = {sub: owner for owner in graph for sub in subgraphs([owner])}
                    user = owners.get(use.node.graph)
                if user is not None and user not in seen:
                    seen.add(user)
                    stack.append(user)
    return False


def refuse_subgraph_users(ctx: Context, values: Iterable[ir.Value], going: Iterable[ir.Node], what: str) -> None:
    """Refuse when a subgraph that stays (If/Loop/Scan body) reads one of ``values``: no link shows that use."""
    allowed = subgraphs(going)
    users = {
        use.node.name or use.node.op_type
        for value in values
        for use in value.uses()
        if use.node.graph is not ctx.graph and use.node.graph not in allowed
    }
    if users:
        raise DocumentError(
            what,
            f"a subgraph still reads this value (inside: {', '.join(sorted(users)[:5])}).",
            "Edit the subgraph first, or remove the node that owns it too.",
        )
