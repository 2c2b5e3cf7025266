"""Commands that change the graph's structure: insert/remove nodes, set a node's inputs, resize its outputs, set
the graph's inputs/outputs, reorder nodes. Each ``apply(ctx)`` returns its inverse (see ``commands``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Command, Context, io_edges
from dld_jupyter.document.model.endpoints import (
    has_input_node,
    has_outer_node,
    input_node_id,
    outer_node_id,
    output_node_id,
    source_of,
)
from dld_jupyter.document.model.ids import edge_id


def precedes(graph: ir.Graph, first: ir.Node, second: ir.Node) -> bool:
    """True when ``first`` comes before ``second`` in graph order; walks both ways from ``first``, O(distance)."""
    try:
        boxes = graph._nodes._value_ids_to_boxes
        root = graph._nodes._root
        forward = backward = boxes[id(first)]
    except (AttributeError, KeyError):  # pragma: no cover - onnx-ir internals changed
        order = list(graph)
        return order.index(first) < order.index(second)
    while forward is not root or backward is not root:
        if forward is not root:
            forward = forward.next
            if forward.value is second:
                return True
        if backward is not root:
            backward = backward.prev
            if backward.value is second:
                return False
    return False


def _previous(graph: ir.Graph, node: ir.Node) -> ir.Node | None:
    """The node before ``node`` in graph order (O(1) through the linked list, O(n) fallback)."""
    try:
        box = graph._nodes._value_ids_to_boxes[id(node)]
        prev: ir.Node | None = box.prev.value
        return prev
    except (AttributeError, KeyError):  # pragma: no cover - onnx-ir internals changed
        before = None
        for other in graph:
            if other is node:
                return before
            before = other
        return None


@dataclass(frozen=True)
class InsertNode:
    """Insert a detached node after ``after`` (None: first). It must have no inputs and unused outputs."""

    node: ir.Node
    after: ir.Node | None

    def apply(self, ctx: Context) -> Command:
        graph = ctx.graph
        if self.after is not None:
            graph.insert_after(self.after, self.node)
        elif len(graph) > 0:
            graph.insert_before(next(iter(graph)), self.node)
        else:
            graph.append(self.node)
        ctx.names.node_renamed(None, self.node.name)
        for out in self.node.outputs:
            ctx.names.value_renamed(None, out.name)
        ctx.changes.node(ctx.ids.node_id(self.node), False, True)
        return RemoveNode(self.node)


@dataclass(frozen=True)
class RemoveNode:
    """Remove a node with no connected inputs and no used outputs from the graph."""

    node: ir.Node

    def apply(self, ctx: Context) -> Command:
        graph = ctx.graph
        after = _previous(graph, self.node)
        graph.remove(self.node, safe=False)
        ctx.names.node_renamed(self.node.name, None)
        for out in self.node.outputs:
            ctx.names.value_renamed(out.name, None)
        ctx.changes.node(ctx.ids.node_id(self.node), True, False)
        return InsertNode(self.node, after)


@dataclass(frozen=True)
class SetInputs:
    """Set all inputs of a node (None: an omitted optional input)."""

    node: ir.Node
    inputs: tuple[ir.Value | None, ...]

    def apply(self, ctx: Context) -> Command:
        node, ids, graph = self.node, ctx.ids, ctx.graph
        old = tuple(node.inputs)
        nid = ids.node_id(node)
        new = self.inputs
        outer = {v: has_outer_node(graph, v) for v in (*old, *new) if v is not None and v.producer() is None}
        for i, value in enumerate(old):
            if i >= len(new) or new[i] is not value:
                src = source_of(ids, graph, value)
                if src is not None:
                    ctx.changes.edge(edge_id(src[0], src[1], nid, i), True, False)
        node.resize_inputs(max(len(old), len(self.inputs)))
        for i, value in enumerate(self.inputs):
            if node.inputs[i] is not value:
                node.replace_input_with(i, value)
        node.resize_inputs(len(self.inputs))
        touched: dict[ir.Value, None] = {}
        for i, value in enumerate(new):
            if i >= len(old) or old[i] is not value:
                src = source_of(ids, graph, value)
                if src is not None:
                    ctx.changes.edge(edge_id(src[0], src[1], nid, i), False, True)
                if value is not None:
                    touched[value] = None
        for i, value in enumerate(old):
            if value is not None and (i >= len(new) or new[i] is not value):
                touched[value] = None
        for value, drawn in outer.items():  # an outer reference's node comes and goes with its readers
            ctx.changes.node(outer_node_id(ids, value), drawn, has_outer_node(graph, value))
        ctx.node_changed(node)
        for value in touched:
            ctx.value_changed(value)
        return SetInputs(node, old)


def _attach_outputs(node: ir.Node, values: Sequence[ir.Value]) -> None:
    """Give ``values`` (detached by an earlier shrink) back to ``node`` as its trailing outputs.

    onnx-ir creates fresh values when growing outputs; undo must bring back the very same values, so this
    reattaches them through the node's private fields (the one place that does).
    """
    start = len(node.outputs)
    for offset, value in enumerate(values):
        value._producer = node
        value._index = start + offset
    node._outputs = tuple(node.outputs) + tuple(values)


@dataclass(frozen=True)
class ResizeOutputs:
    """Grow (with new named values, or ``restore``d ones) or shrink (trailing unused outputs) a node's outputs."""

    node: ir.Node
    size: int
    names: tuple[str, ...] = ()
    restore: tuple[ir.Value, ...] = ()

    def apply(self, ctx: Context) -> Command:
        node = self.node
        old_size = len(node.outputs)
        in_graph = node.graph is ctx.graph
        if self.size < old_size:
            removed = tuple(node.outputs[self.size :])
            node.resize_outputs(self.size)
            if in_graph:
                for value in removed:
                    ctx.names.value_renamed(value.name, None)
            ctx.node_changed(node)
            return ResizeOutputs(node, old_size, restore=removed)
        if self.restore:
            _attach_outputs(node, self.restore)
        else:
            node.resize_outputs(self.size)
            for value, name in zip(node.outputs[old_size:], self.names, strict=True):
                value.name = name
        if in_graph:
            for value in node.outputs[old_size:]:
                ctx.names.value_renamed(None, value.name)
        ctx.node_changed(node)
        return ResizeOutputs(node, old_size)


@dataclass(frozen=True)
class SetGraphInputs:
    values: tuple[ir.Value, ...]

    def apply(self, ctx: Context) -> Command:
        graph, ids = ctx.graph, ctx.ids
        old = tuple(graph.inputs)
        before = {v for v in old if has_input_node(v)}
        for value in before:
            io_edges(ctx, value, False)
        for value in old:
            if value not in self.values and not value.is_initializer():
                ctx.names.value_renamed(value.name, None)
        graph.inputs.clear()
        graph.inputs.extend(self.values)
        for value in self.values:
            if value not in old and not value.is_initializer():
                ctx.names.value_renamed(None, value.name)
        after = {v for v in self.values if has_input_node(v)}
        for value in before | after:
            ctx.changes.node(input_node_id(ids, value), value in before, value in after)
            ctx.value_changed(value)
        for value in after:
            io_edges(ctx, value, True)
        return SetGraphInputs(old)


@dataclass(frozen=True)
class SetGraphOutputs:
    values: tuple[ir.Value, ...]

    def apply(self, ctx: Context) -> Command:
        graph, ids = ctx.graph, ctx.ids
        old = tuple(graph.outputs)
        for value in set(old) | set(self.values):
            src = source_of(ids, graph, value)
            oid = output_node_id(ids, value)
            was, now = value in old, value in self.values
            ctx.changes.node(oid, was, now)
            if src is not None:
                ctx.changes.edge(edge_id(src[0], src[1], oid, 0), was, now)
        graph.outputs.clear()
        graph.outputs.extend(self.values)
        for value in set(old) | set(self.values):
            ctx.value_changed(value)
        return SetGraphOutputs(old)


@dataclass(frozen=True)
class Reorder:
    """Put the graph's nodes in the given order (a topological order after a backward link)."""

    order: tuple[ir.Node, ...]

    def apply(self, ctx: Context) -> Command:
        graph = ctx.graph
        old = tuple(graph)
        graph.remove(old, safe=False)
        graph.extend(self.order)
        return Reorder(old)


class SortGraph:
    """Stable topological sort of the graph; the inverse restores the previous order."""

    def apply(self, ctx: Context) -> Command:
        old = tuple(ctx.graph)
        ctx.graph.sort()
        return Reorder(old)
