"""Commands: the only code that mutates a document's model. ``apply(ctx)`` changes it and returns the inverse.

Each command is a small primitive over onnx-ir (insert/remove a node, set a node's inputs, resize its outputs, set
graph inputs/outputs, add/remove an initializer, set a constant, rename, set an attribute, move, metadata) and
records what it changed in ``ctx.changes`` so the document can send events. Edits are sequences of these.
Commands hold ir objects, not ids: ids map to the same objects for the document's whole life.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import onnx_ir as ir

from .endpoints import edge_id, edges_from_value, has_input_node, input_node_id, output_node_id, source_of
from .events import Changes
from .ids import IdMap
from .names import NameIndex


@dataclass
class Context:
    """What commands act on."""

    model: ir.Model
    ids: IdMap
    names: NameIndex
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    changes: Changes = field(default_factory=Changes)

    @property
    def graph(self) -> ir.Graph:
        return self.model.graph

    def node_changed(self, node: ir.Node | None) -> None:
        if node is not None and node.graph is self.graph:
            self.changes.changed[self.ids.node_id(node)] = None

    def value_changed(self, value: ir.Value | None) -> None:
        """Mark every node drawing ``value`` (producer, consumers, I/O nodes) as changed."""
        if value is None:
            return
        ids, graph = self.ids, self.graph
        self.node_changed(value.producer())
        for use in value.uses():
            self.node_changed(use.node)
        if has_input_node(value) and value.graph is graph:
            self.changes.changed[input_node_id(ids, value)] = None
        if value.is_graph_output() and value.graph is graph:
            self.changes.changed[output_node_id(ids, value)] = None
        if value.is_initializer():
            self.changes.initializers[ids.value_id(value)] = None


class Command(Protocol):
    def apply(self, ctx: Context) -> Command: ...


@dataclass(frozen=True)
class Composite:
    """Several commands applied in order; the inverse applies their inverses in reverse order."""

    commands: tuple[Command, ...]

    def apply(self, ctx: Context) -> Command:
        inverses: list[Command] = []
        try:
            for command in self.commands:
                inverses.append(command.apply(ctx))
        except BaseException:
            for inverse in reversed(inverses):
                inverse.apply(ctx)
            raise
        return Composite(tuple(reversed(inverses)))


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


def _io_edges(ctx: Context, value: ir.Value, present: bool) -> None:
    for eid in edges_from_value(ctx.ids, ctx.graph, value):
        ctx.changes.edge(eid, not present, present)


@dataclass(frozen=True)
class SetGraphInputs:
    values: tuple[ir.Value, ...]

    def apply(self, ctx: Context) -> Command:
        graph, ids = ctx.graph, ctx.ids
        old = tuple(graph.inputs)
        before = {v for v in old if has_input_node(v)}
        for value in before:
            _io_edges(ctx, value, False)
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
            _io_edges(ctx, value, True)
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
class AddInitializer:
    """Register an initializer (at the end, or where ``order`` of names puts it back)."""

    value: ir.Value
    order: tuple[str, ...] = ()

    def apply(self, ctx: Context) -> Command:
        was_input_node = has_input_node(self.value)
        initializers = ctx.graph.initializers
        initializers.add(self.value)
        if self.order:
            data = initializers.data
            ranked = {name: i for i, name in enumerate(self.order)}
            items = sorted(data.items(), key=lambda item: ranked.get(item[0], len(ranked)))
            data.clear()
            data.update(items)
        if not self.value.is_graph_input():
            ctx.names.value_renamed(None, self.value.name)
        if was_input_node:
            _io_edges(ctx, self.value, False)
            ctx.changes.node(input_node_id(ctx.ids, self.value), True, False)
        ctx.value_changed(self.value)
        return RemoveInitializer(self.value)


@dataclass(frozen=True)
class RemoveInitializer:
    value: ir.Value

    def apply(self, ctx: Context) -> Command:
        value = self.value
        assert value.name is not None
        ctx.value_changed(value)
        order = tuple(ctx.graph.initializers)
        ctx.graph.initializers.pop(value.name)
        if value.is_graph_input():
            ctx.changes.node(input_node_id(ctx.ids, value), False, True)
            _io_edges(ctx, value, True)
        else:
            ctx.names.value_renamed(value.name, None)
        return AddInitializer(value, order)


@dataclass(frozen=True)
class SetConstValue:
    """Replace the tensor of an initializer, with its type and shape."""

    value: ir.Value
    tensor: ir.TensorProtocol | None
    type: ir.TypeProtocol | None
    shape: ir.Shape | None

    def apply(self, ctx: Context) -> Command:
        value = self.value
        inverse = SetConstValue(value, value.const_value, value.type, value.shape)
        value.const_value = self.tensor
        value.type = self.type
        value.shape = self.shape
        ctx.value_changed(value)
        for eid in edges_from_value(ctx.ids, ctx.graph, value):
            ctx.changes.edge(eid, True, True)
        return inverse


@dataclass(frozen=True)
class RenameNode:
    node: ir.Node
    name: str | None

    def apply(self, ctx: Context) -> Command:
        old = self.node.name
        self.node.name = self.name
        ctx.names.node_renamed(old, self.name)
        ctx.node_changed(self.node)
        return RenameNode(self.node, old)


@dataclass(frozen=True)
class RenameValue:
    value: ir.Value
    name: str | None

    def apply(self, ctx: Context) -> Command:
        value = self.value
        old = value.name
        value.name = self.name
        ctx.names.value_renamed(old, self.name)
        ctx.value_changed(value)
        for eid in edges_from_value(ctx.ids, ctx.graph, value):
            ctx.changes.edge(eid, True, True)
        return RenameValue(value, old)


@dataclass(frozen=True)
class SetAttribute:
    """Set (``attr``) or remove (None) one attribute of a node."""

    node: ir.Node
    name: str
    attr: ir.Attr | None

    def apply(self, ctx: Context) -> Command:
        attributes = self.node.attributes
        inverse = SetAttributes(self.node, tuple(attributes.values()))
        if self.attr is None:
            attributes.pop(self.name, None)
        else:
            attributes[self.name] = self.attr
        ctx.node_changed(self.node)
        return inverse


@dataclass(frozen=True)
class SetAttributes:
    """Replace all attributes of a node, in order (the inverse of SetAttribute keeps the file's order)."""

    node: ir.Node
    attrs: tuple[ir.Attr, ...]

    def apply(self, ctx: Context) -> Command:
        attributes = self.node.attributes
        inverse = SetAttributes(self.node, tuple(attributes.values()))
        attributes.clear()
        for attr in self.attrs:
            attributes[attr.name] = attr
        ctx.node_changed(self.node)
        return inverse


@dataclass(frozen=True)
class SetPositions:
    """Set canvas positions by node id (None: no position)."""

    positions: tuple[tuple[str, tuple[float, float] | None], ...]

    def apply(self, ctx: Context) -> Command:
        old = []
        for node_id, position in self.positions:
            old.append((node_id, ctx.positions.get(node_id)))
            if position is None:
                ctx.positions.pop(node_id, None)
            else:
                ctx.positions[node_id] = position
            ctx.changes.moved[node_id] = position
        return SetPositions(tuple(old))


@dataclass(frozen=True)
class SetMetadata:
    """Replace the model's ``metadata_props`` with ``items``, in order."""

    items: tuple[tuple[str, str], ...]

    def apply(self, ctx: Context) -> Command:
        props = ctx.model.metadata_props
        inverse = SetMetadata(tuple(props.items()))
        props.clear()
        props.update(self.items)
        ctx.changes.model_info = True
        return inverse


MODEL_FIELDS = ("producer_name", "producer_version", "domain", "model_version", "doc_string")
GRAPH_FIELDS = {"graph_name": "name", "graph_doc_string": "doc_string"}


@dataclass(frozen=True)
class SetModelField:
    """Set one model field (``MODEL_FIELDS``) or graph field (``GRAPH_FIELDS`` keys)."""

    name: str
    value: Any

    def apply(self, ctx: Context) -> Command:
        if self.name in GRAPH_FIELDS:
            target: Any = ctx.graph
            attr = GRAPH_FIELDS[self.name]
        else:
            target, attr = ctx.model, self.name
        old = getattr(target, attr)
        setattr(target, attr, self.value)
        ctx.changes.model_info = True
        return SetModelField(self.name, old)


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
