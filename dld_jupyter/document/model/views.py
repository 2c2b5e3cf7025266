"""The read-model a view draws: NodeView (op and I/O nodes), TerminalView, EdgeView. Built on request, never stored.

Terminals follow the operator's formal parameters: a variadic formal shows one terminal per connected value plus
one free "infinite" terminal; optional formals past the node's last input show as free terminals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import onnx_ir as ir

from dld_jupyter.document.model.endpoints import (
    has_input_node,
    has_outer_node,
    input_node_id,
    outer_node_id,
    outer_values,
    output_node_id,
    source_of,
)
from dld_jupyter.document.model.ids import IdMap, edge_id, kind_of, value_of_node
from dld_jupyter.document.operators.signature import Formal, Signature, node_signature

Inferred = Mapping[str, tuple[str | None, list[int | str] | None]]


@dataclass(slots=True)
class TerminalView:
    index: int
    name: str
    value_id: str | None
    value_name: str | None
    optional: bool
    variadic: bool
    state: str  # "free" | "linked" | "initializer" | "constant"
    dtype: str | None
    shape: list[int | str] | None


@dataclass(slots=True)
class NodeView:
    id: str
    name: str
    kind: str  # "op" | "input" | "output" | "outer" (a value of the enclosing graph that a subgraph reads)
    op_type: str
    domain: str
    group: tuple[str, ...]
    inputs: list[TerminalView]
    outputs: list[TerminalView]
    attributes: dict[str, object] = field(default_factory=dict)
    is_composite: bool = False
    subgraphs: list[str] = field(default_factory=list)
    function: str | None = None
    position: tuple[float, float] | None = None


@dataclass(slots=True)
class EdgeView:
    id: str
    src: str
    src_index: int
    dst: str
    dst_index: int
    value_id: str
    value_name: str | None
    dtype: str | None
    shape: list[int | str] | None


V = TypeVar("V")


def lay_out_terminals(
    formals: tuple[Formal, ...] | None,
    values: Sequence[V | None],
    is_input: bool,
    make: Callable[[int, Formal, V | None, bool], TerminalView],
) -> list[TerminalView]:
    """One terminal per formal parameter; a trailing variadic formal gets one per value plus a free one; values
    past the formals get optional terminals of their own. ``make`` builds a terminal from (index, formal, value)."""
    prefix = "input" if is_input else "output"
    if not formals:
        formals = tuple(Formal(f"{prefix}_{i}", False, False) for i in range(len(values)))
    out: list[TerminalView] = []
    for k, formal in enumerate(formals):
        if formal.variadic and k == len(formals) - 1:
            for i in range(k, len(values)):
                out.append(make(i, formal, values[i], is_input))
            out.append(make(max(k, len(values)), formal, None, is_input))
            return out
        out.append(make(k, formal, values[k] if k < len(values) else None, is_input))
    for i in range(len(formals), len(values)):
        out.append(make(i, Formal(f"{prefix}_{i}", True, False), values[i], is_input))
    return out


def dtype_name(dtype: ir.DataType | None) -> str | None:
    """ONNX element type name in lower case: ``"float"``, ``"float16"``, ``"int64"``."""
    return None if dtype is None else dtype.name.lower()


def shape_list(shape: ir.Shape | None) -> list[int | str] | None:
    if shape is None:
        return None
    return [d if isinstance(d, int) else (d.value if d.value is not None else "?") for d in shape]


class ReadModel:
    """Builds views of one graph."""

    def __init__(
        self,
        model: ir.Model,
        ids: IdMap,
        positions: Mapping[str, tuple[float, float]],
        inferred: Inferred,
    ) -> None:
        self.model, self.graph, self.ids = model, model.graph, ids
        self.positions, self.inferred = positions, inferred
        self._signatures: dict[tuple[str, str, str, int | None], Signature | None] = {}

    def signature(self, node: ir.Node) -> Signature | None:
        key = (node.domain, node.op_type, node.overload, node.version)
        if key not in self._signatures:
            self._signatures[key] = node_signature(self.model, node)
        return self._signatures[key]

    def _type(self, value: ir.Value | None) -> tuple[str | None, list[int | str] | None]:
        if value is None:
            return None, None
        if self.inferred:
            found = self.inferred.get(self.ids.value_id(value))
            if found is not None:
                return found
        return dtype_name(value.dtype), shape_list(value.shape)

    def _terminal(self, index: int, formal: Formal, value: ir.Value | None, is_input: bool) -> TerminalView:
        if value is None:
            state = "free"
        elif is_input:
            producer = value.producer()
            if value.is_initializer():
                state = "initializer"
            elif producer is not None and producer.op_type == "Constant" and producer.domain == "":
                state = "constant"
            else:
                state = "linked"
        else:
            state = "linked" if (value.uses() or value.is_graph_output()) else "free"
        dtype, shape = self._type(value)
        return TerminalView(
            index,
            formal.name,
            None if value is None else self.ids.value_id(value),
            None if value is None else value.name,
            formal.optional,
            formal.variadic,
            state,
            dtype,
            shape,
        )

    def _terminals(
        self, formals: tuple[Formal, ...] | None, values: tuple[ir.Value | None, ...], is_input: bool
    ) -> list[TerminalView]:
        return lay_out_terminals(formals, values, is_input, self._terminal)

    def op_node(self, node: ir.Node) -> NodeView:
        sig = self.signature(node)
        nid = self.ids.node_id(node)
        attributes, subgraphs = attribute_values(node)
        name = node.name or ""
        return NodeView(
            id=nid,
            name=name,
            kind="op",
            op_type=node.op_type,
            domain=node.domain,
            group=tuple(p for p in name.split("/")[:-1] if p),
            inputs=self._terminals(sig.inputs if sig else None, tuple(node.inputs), True),
            outputs=self._terminals(sig.outputs if sig else None, tuple(node.outputs), False),
            attributes=attributes,
            is_composite=bool(subgraphs) or (sig is not None and sig.function is not None),
            subgraphs=subgraphs,
            function=sig.function if sig else None,
            position=self.positions.get(nid),
        )

    def io_node(self, value: ir.Value, kind: str) -> NodeView:
        nid = input_node_id(self.ids, value) if kind == "input" else output_node_id(self.ids, value)
        terminal = [self._terminal(0, Formal(kind, False, False), value, kind == "output")]
        if kind == "output":
            terminal[0].state = "linked" if source_of(self.ids, self.graph, value) else terminal[0].state
        return NodeView(
            id=nid,
            name=value.name or "",
            kind=kind,
            op_type="Input" if kind == "input" else "Output",
            domain="",
            group=(),
            inputs=terminal if kind == "output" else [],
            outputs=terminal if kind == "input" else [],
            position=self.positions.get(nid),
        )

    def outer_node(self, value: ir.Value) -> NodeView:
        """An outer reference (subgraph documents): one output terminal carrying the enclosing graph's value."""
        nid = outer_node_id(self.ids, value)
        terminal = self._terminal(0, Formal("outer", False, False), value, False)
        terminal.state = "linked"
        return NodeView(
            id=nid,
            name=value.name or "",
            kind="outer",
            op_type="Outer",
            domain="",
            group=(),
            inputs=[],
            outputs=[terminal],
            position=self.positions.get(nid),
        )

    def nodes(self) -> list[NodeView]:
        graph = self.graph
        out = [self.io_node(v, "input") for v in graph.inputs if has_input_node(v)]
        out.extend(self.outer_node(v) for v in outer_values(graph))
        out.extend(self.op_node(node) for node in graph)
        out.extend(self.io_node(v, "output") for v in graph.outputs)
        return out

    def node(self, node_id: str) -> NodeView:
        kind = kind_of(node_id)
        if kind in ("input", "output"):
            value = self.ids.value(value_of_node(node_id))
            if kind == "input" and has_input_node(value) and value.graph is self.graph:
                return self.io_node(value, "input")
            if kind == "output" and value.is_graph_output() and value.graph is self.graph:
                return self.io_node(value, "output")
        elif kind == "outer":
            value = self.ids.value(value_of_node(node_id))
            if has_outer_node(self.graph, value):
                return self.outer_node(value)
        else:
            node = self.ids.node(node_id)
            if node.graph is self.graph:
                return self.op_node(node)
        from dld_jupyter.document.model.errors import DocumentError

        raise DocumentError(f"Find node {node_id!r}", "it is not in the graph (removed?).", "Refresh the view.")

    def _edge(self, value: ir.Value, src: tuple[str, int], dst: str, dst_index: int) -> EdgeView:
        dtype, shape = self._type(value)
        return EdgeView(
            edge_id(src[0], src[1], dst, dst_index),
            src[0],
            src[1],
            dst,
            dst_index,
            self.ids.value_id(value),
            value.name,
            dtype,
            shape,
        )

    def edges_into(self, node: ir.Node) -> list[EdgeView]:
        """The links ending on an op node's inputs."""
        ids, graph = self.ids, self.graph
        nid = ids.node_id(node)
        out: list[EdgeView] = []
        for i, value in enumerate(node.inputs):
            src = source_of(ids, graph, value)
            if src is not None and value is not None:
                out.append(self._edge(value, src, nid, i))
        return out

    def edges_into_output(self, value: ir.Value) -> list[EdgeView]:
        """The link ending on a graph-output node (none when its value has no drawn source)."""
        src = source_of(self.ids, self.graph, value)
        return [] if src is None else [self._edge(value, src, output_node_id(self.ids, value), 0)]

    def edges(self) -> list[EdgeView]:
        out: list[EdgeView] = []
        for node in self.graph:
            out.extend(self.edges_into(node))
        for value in self.graph.outputs:
            out.extend(self.edges_into_output(value))
        return out


def _array(tensor: ir.TensorProtocol) -> object:
    """The tensor's values, or a note when its data cannot be read as its shape (the check list reports why)."""
    try:
        return tensor.numpy()
    except (ValueError, OSError) as exc:
        return f"<unreadable tensor: {exc}>"


def attribute_values(node: ir.Node) -> tuple[dict[str, object], list[str]]:
    """Set attributes as Python values (tensors as numpy arrays, graphs as ir.Graph) and subgraph names."""
    values: dict[str, object] = {}
    subgraphs: list[str] = []
    if not node.attributes:
        return values, subgraphs
    for name, attr in node.attributes.items():
        if attr.is_ref():
            values[name] = f"@{attr.ref_attr_name}"
            continue
        value: Any = attr.value
        kind = attr.type
        if kind == ir.AttributeType.TENSOR:
            value = _array(value)
        elif kind == ir.AttributeType.TENSORS:
            value = [_array(t) for t in value]
        elif kind == ir.AttributeType.GRAPH:
            subgraphs.append(name)
        elif kind == ir.AttributeType.GRAPHS:
            subgraphs.extend(f"{name}[{i}]" for i in range(len(value)))
            value = list(value)
        elif kind in (ir.AttributeType.INTS, ir.AttributeType.FLOATS, ir.AttributeType.STRINGS):
            value = list(value)
        values[name] = value
    return values, subgraphs
