"""Commands: the only code that mutates a document's model. ``apply(ctx)`` changes it and returns the inverse.

Each command is a small primitive over onnx-ir and records what it changed in ``ctx.changes`` so the document can
send events; edits are sequences of them. This module holds the context, the protocol, and the commands on values and
properties (initializers, constants, names, attributes, positions, metadata); ``graph_commands`` holds the ones that
change the graph's structure. Commands hold ir objects, not ids: ids map to the same objects for a document's life.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import onnx_ir as ir

from dld_jupyter.document.model.endpoints import (
    edges_from_value,
    has_input_node,
    has_outer_node,
    input_node_id,
    outer_node_id,
    output_node_id,
)
from dld_jupyter.document.model.events import Changes
from dld_jupyter.document.model.ids import IdMap
from dld_jupyter.document.model.names import NameIndex


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
        if has_outer_node(graph, value):
            self.changes.changed[outer_node_id(ids, value)] = None
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


def io_edges(ctx: Context, value: ir.Value, present: bool) -> None:
    for eid in edges_from_value(ctx.ids, ctx.graph, value):
        ctx.changes.edge(eid, not present, present)


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
            io_edges(ctx, self.value, False)
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
            io_edges(ctx, value, True)
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
