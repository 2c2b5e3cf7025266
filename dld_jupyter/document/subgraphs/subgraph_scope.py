"""Subgraphs in the IR: the slots of a node (GRAPH / GRAPHS attributes), copies of a body, and its outer scope.

A body (Loop/Scan ``body``, If ``then_branch``/``else_branch``, a GRAPHS list entry) may read values of the graphs
around it: its outer references. onnx-ir links such a read to the very Value of the enclosing graph, so a body
attached to a node counts among that value's uses. A body held anywhere else (a subgraph document's copy, a body
undone and kept for redo) is detached: its outer reads point at placeholder values of the same names, so the real
values carry no stray uses. ``attach`` binds the placeholders to the values of a scope by name, ``detach`` puts
placeholders back; ``SetSubgraphs`` (the command) does both when it changes a node's graph attribute.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.model.errors import DocumentError

GRAPH_KINDS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)


@dataclass(frozen=True)
class SubgraphSlot:
    """One subgraph of a node: ``attribute`` and, for a GRAPHS list, ``index`` (None for a GRAPH attribute)."""

    attribute: str
    index: int | None
    name: str
    node_count: int


def slots(node: ir.Node) -> list[SubgraphSlot]:
    out: list[SubgraphSlot] = []
    for attr in node.attributes.values():
        if attr.is_ref() or attr.type not in GRAPH_KINDS:
            continue
        if attr.type == ir.AttributeType.GRAPH:
            out.append(SubgraphSlot(attr.name, None, attr.value.name or "", len(attr.value)))
        else:
            out.extend(SubgraphSlot(attr.name, i, g.name or "", len(g)) for i, g in enumerate(attr.value))
    return out


def slot_label(attribute: str, index: int | None) -> str:
    return attribute if index is None else f"{attribute}[{index}]"


def graphs_of(node: ir.Node, attribute: str, what: str) -> tuple[ir.Graph, ...]:
    attr = node.attributes.get(attribute)
    if attr is None or attr.is_ref() or attr.type not in GRAPH_KINDS:
        have = ", ".join(sorted({s.attribute for s in slots(node)})) or "none"
        why = f"{node.op_type} node {node.name or ''!r} has no subgraph attribute {attribute!r}."
        raise DocumentError(what, why, f"Subgraph attributes of this node: {have}.")
    return (attr.value,) if attr.type == ir.AttributeType.GRAPH else tuple(attr.value)


def graph_at(node: ir.Node, attribute: str, index: int | None, what: str) -> ir.Graph:
    """The subgraph in slot (attribute, index); GRAPH attributes take index None, GRAPHS lists an index."""
    graphs = graphs_of(node, attribute, what)
    is_list = node.attributes[attribute].type == ir.AttributeType.GRAPHS
    if not is_list:
        if index not in (None, 0):
            raise DocumentError(what, f"{attribute!r} holds one graph, not a list.", "Pass index=None.")
        return graphs[0]
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(graphs):
        why = f"{attribute!r} is a list of {len(graphs)} graphs."
        raise DocumentError(what, why, f"Pass index 0..{len(graphs) - 1}.")
    return graphs[index]


# ---------------------------------------------------------------- scope


def subtree(graph: ir.Graph) -> list[ir.Graph]:
    """``graph`` and every graph nested in its nodes' attributes, at any depth."""
    out = [graph]
    for g in out:
        for node in g:
            for attr in node.attributes.values():
                if not attr.is_ref() and attr.type in GRAPH_KINDS:
                    out.extend((attr.value,) if attr.type == ir.AttributeType.GRAPH else attr.value)
    return out


@dataclass(frozen=True)
class OuterUse:
    """A read of a value defined outside a body: input ``index`` of ``node``, or (node None) output ``index`` of
    the nested graph ``graph``."""

    graph: ir.Graph
    node: ir.Node | None
    index: int
    value: ir.Value


def outer_uses(graph: ir.Graph) -> list[OuterUse]:
    """Every read, in ``graph`` or graphs nested in it, of a value that none of them defines."""
    graphs = subtree(graph)
    defined: set[ir.Value] = set()
    for g in graphs:
        defined.update(g.inputs)
        defined.update(g.initializers.values())
        defined.update(out for node in g for out in node.outputs)
    uses: list[OuterUse] = []
    for g in graphs:
        for node in g:
            reads = enumerate(node.inputs)
            uses.extend(OuterUse(g, node, i, v) for i, v in reads if v is not None and v not in defined)
        uses.extend(OuterUse(g, None, i, v) for i, v in enumerate(g.outputs) if v not in defined)
    return uses


def outer_names(graph: ir.Graph) -> list[str]:
    """Names of the outer values ``graph`` reads, in order of first reading."""
    return list(dict.fromkeys(use.value.name or "" for use in outer_uses(graph)))


def _rebind(uses: list[OuterUse], values: Mapping[str, ir.Value]) -> None:
    for use in uses:
        new = values[use.value.name or ""]
        if use.node is not None:
            use.node.replace_input_with(use.index, new)
        else:
            use.graph.outputs[use.index] = new


def detach(graph: ir.Graph) -> None:
    """Point the outer reads of ``graph`` at placeholders (one per name, typed like the value it stands for)."""
    uses = outer_uses(graph)
    placeholders: dict[str, ir.Value] = {}
    for use in uses:
        name = use.value.name or ""
        if name not in placeholders:
            placeholders[name] = ir.Value(name=name, type=use.value.type, shape=use.value.shape)
    _rebind(uses, placeholders)


def scope_values(graph: ir.Graph, extra: Sequence[ir.Graph] = ()) -> dict[str, ir.Value]:
    """The values by name that a subgraph of a node of ``graph`` may read: those ``graph`` defines, the outer ones
    it (or a nested graph) reads, and the outer values ``extra`` graphs read."""
    found: dict[str, ir.Value] = {}
    for g in (graph, *extra):
        for use in outer_uses(g):
            found.setdefault(use.value.name or "", use.value)
    for value in (*graph.inputs, *graph.initializers.values()):
        found[value.name or ""] = value
    for node in graph:
        for out in node.outputs:
            found[out.name or ""] = out
    return found


def attach_plan(graph: ir.Graph, scope: Mapping[str, ir.Value], what: str) -> list[OuterUse]:
    """The outer reads of ``graph``; refused when one names no value of ``scope``."""
    uses = outer_uses(graph)
    missing = sorted({use.value.name or "" for use in uses} - set(scope))
    if missing:
        raise DocumentError(
            what,
            f"the subgraph reads {', '.join(map(repr, missing[:5]))}, defined nowhere around it.",
            "Connect those inputs to values of the subgraph (or its outer references) instead.",
        )
    return uses


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """onnx-ir logs a warning for each outer read when it deserializes a body alone; those reads are expected."""
    logger = logging.getLogger("onnx_ir")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def copy_graph(graph: ir.Graph, types: Mapping[str, ir.Value] | None = None) -> ir.Graph:
    """A detached deep copy of ``graph`` (through the protobuf): one placeholder per outer name, typed from
    ``types`` (values by name) where given, else from the value it stands for."""
    original = {use.value.name or "": use.value for use in outer_uses(graph)}
    with _quiet():
        copy = ir.serde.deserialize_graph(ir.serde.serialize_graph(graph))
    placeholders: dict[str, ir.Value] = {}
    for name, value in original.items():
        typed = (types or {}).get(name, value)
        type_ = typed.type if typed.type is not None else value.type
        shape = typed.shape if typed.shape is not None else value.shape
        placeholders[name] = ir.Value(name=name, type=type_, shape=shape)
    _rebind(outer_uses(copy), placeholders)
    return copy


def all_graph_names(graph: ir.Graph) -> set[str]:
    return {g.name for g in subtree(graph) if g.name}


# ---------------------------------------------------------------- the command


@dataclass(frozen=True)
class SetSubgraphs:
    """Set a node's graph attribute: one graph (GRAPH), a list (GRAPHS), or remove it (``graphs`` None). Graphs
    leaving the node are detached, graphs coming are attached to the values of the node's graph by name (checked
    when the edit is planned: ``attach_plan``). The inverse puts the very same graph objects back."""

    node: ir.Node
    attribute: str
    graphs: tuple[ir.Graph, ...] | None
    is_list: bool

    def apply(self, ctx: Context) -> Command:
        attributes = self.node.attributes
        old_attr = attributes.get(self.attribute)
        old = graphs_of(self.node, self.attribute, "Set subgraph") if old_attr is not None else ()
        new = self.graphs or ()
        leaving = [g for g in old if g not in new]
        coming = [g for g in new if g not in old]
        scope = scope_values(ctx.graph, leaving)
        plans = [attach_plan(g, scope, "Set subgraph") for g in coming]
        for graph in leaving:
            detach(graph)
        for uses in plans:
            _rebind(uses, scope)
        if self.graphs is None:
            attributes.pop(self.attribute, None)
        elif self.is_list:
            attributes[self.attribute] = ir.Attr(self.attribute, ir.AttributeType.GRAPHS, list(self.graphs))
        else:
            attributes[self.attribute] = ir.Attr(self.attribute, ir.AttributeType.GRAPH, self.graphs[0])
        ctx.node_changed(self.node)
        was_list = old_attr is not None and old_attr.type == ir.AttributeType.GRAPHS
        return SetSubgraphs(self.node, self.attribute, None if old_attr is None else old, was_list)
