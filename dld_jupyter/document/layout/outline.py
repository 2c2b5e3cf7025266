"""A model's outline read straight from its protobuf: what the first view of a big model needs, before the ir model
exists (building the ir model costs about 40 µs a node: two seconds at 50,000 nodes).

The outline hands out the ids the Document will (``document._numbered``: nodes n0, n1… in file order, then the
values of the graph inputs and outputs), so a view drawn from it is the view of the document once it is loaded.
It holds node ids, op types, names and links, and builds the NodeView of the few nodes an overview shows as
themselves. Only a topologically sorted file has an outline: the document sorts any other, which renumbers it.
"""

from __future__ import annotations

import onnx

from dld_jupyter.document.model.ids import edge_id, kind_of, nth_node_id, nth_value_id, value_node_id
from dld_jupyter.document.model.views import NodeView, TerminalView, lay_out_terminals
from dld_jupyter.document.operators.signature import Formal, Signature, op_signature

_GRAPH_ATTRS = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
_PLAIN_ATTRS = (onnx.AttributeProto.INT, onnx.AttributeProto.INTS, onnx.AttributeProto.FLOAT,
                onnx.AttributeProto.FLOATS)


class RawEdge:
    """One link of a graph by node ids, as views draw it (slots: a 50k-node model has 66k of them)."""

    __slots__ = ("di", "dst", "label", "si", "src", "value")

    def __init__(self, src: str, si: int, dst: str, di: int, value: str, label: str | None = None) -> None:
        self.src, self.si, self.dst, self.di, self.value, self.label = src, si, dst, di, value, label


Link = tuple[str, int, str, int, str]  # (src, src index, dst, dst index, value name)


def raw_edges(links: list[Link]) -> dict[str, RawEdge]:
    """Links by edge id (the ids of doc.edges())."""
    return {edge_id(s, si, d, di): RawEdge(s, si, d, di, name) for s, si, d, di, name in links}


class Outline:
    """Ids, op types, names and links of a model's main graph, from its protobuf."""

    def __init__(self, proto: onnx.ModelProto) -> None:
        graph = proto.graph
        self.opsets = {o.domain: o.version for o in proto.opset_import}
        self.functions = {(f.domain, f.name, f.overload): f for f in proto.functions}
        self.initializers = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
        self.initializer_dims: dict[str, list[int | str]] = {t.name: list(t.dims) for t in graph.initializer}
        value_ids: dict[str, str] = {}
        for name in [v.name for v in graph.input] + [v.name for v in graph.output]:
            value_ids.setdefault(name, nth_value_id(len(value_ids)))
        self.value_ids = value_ids
        self.order: list[str] = []
        self.op_type: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self._nodes: dict[str, onnx.NodeProto] = {}
        self.producer_op: dict[str, tuple[str, str]] = {}  # value name -> (op_type, domain) of its producer
        order, op_types, names, nodes, producer_op = self.order, self.op_type, self.names, self._nodes, self.producer_op
        producer: dict[str, tuple[str, int]] = {}
        for v in graph.input:
            if v.name not in self.initializers:
                iid = value_node_id("input", value_ids[v.name])
                order.append(iid)
                op_types[iid] = "Input"
                names[iid] = v.name
                producer[v.name] = (iid, 0)
        protos = list(graph.node)
        node_ids = [nth_node_id(k) for k in range(len(protos))]
        # One pass over the nodes, in file order (a loading model is sorted, so producers come first): these tight
        # loops over protobuf fields are most of the time to a big model's first view. `x[:]` copies a repeated
        # field in C, faster than iterating it.
        links: list[Link] = []
        used: set[str] = set()
        get = producer.get
        early = False  # a value used before the node that makes it: the file is not sorted
        for nid, node in zip(node_ids, protos, strict=True):
            order.append(nid)
            op_type = node.op_type
            op_types[nid] = op_type
            names[nid] = node.name
            nodes[nid] = node
            for di, name in enumerate(node.input[:]):
                if name:
                    used.add(name)
                    src = get(name)
                    if src is not None:
                        links.append((src[0], src[1], nid, di, name))
            made_by = (op_type, node.domain)
            for index, name in enumerate(node.output[:]):
                if name:
                    early = early or name in used
                    producer[name] = (nid, index)
                    producer_op[name] = made_by
        if early:  # link every use to its producer, wherever it is
            links = [(src[0], src[1], dst, di, name) for dst, node in zip(node_ids, protos, strict=True)
                     for di, name in enumerate(node.input[:]) if name and (src := get(name)) is not None]
        outputs = [v.name for v in graph.output]
        for name in outputs:
            oid = value_node_id("output", value_ids[name])
            order.append(oid)
            op_types[oid] = "Output"
            names[oid] = name
        self.used = used
        self.linked_outputs: set[str] = set()
        for name in outputs:
            src = get(name)
            if src is not None:
                oid = value_node_id("output", value_ids[name])
                links.append((src[0], src[1], oid, 0, name))
                self.linked_outputs.add(oid)
        self.links = links
        self.graph_outputs = set(outputs)
        self._edges: dict[str, RawEdge] | None = None

    @property
    def edges(self) -> dict[str, RawEdge]:
        """Every link by edge id (the ids of doc.edges())."""
        if self._edges is None:
            self._edges = raw_edges(self.links)
        return self._edges

    @property
    def node_protos(self) -> dict[str, onnx.NodeProto]:
        """The NodeProto of every op node by id."""
        return self._nodes

    # ------------------------------------------------------------ node views
    def node_view(self, node_id: str) -> NodeView:
        """The NodeView the document will give this node (value types and tensor or graph attributes are left out:
        an overview draws neither; plain attributes are read, glyphs show the key ones)."""
        if kind_of(node_id) in ("input", "output"):
            return self._io_view(node_id)
        node = self._nodes[node_id]
        sig = self._signature(node)
        subgraphs = [
            name
            for a in node.attribute
            if a.type in _GRAPH_ATTRS
            for name in ([a.name] if a.type == onnx.AttributeProto.GRAPH else [f"{a.name}[{i}]" for i in
                                                                                range(len(a.graphs))])
        ]
        attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute if a.type in _PLAIN_ATTRS}
        return NodeView(
            id=node_id,
            name=node.name,
            attributes={k: list(v) if isinstance(v, (list, tuple)) else v for k, v in attributes.items()},
            kind="op",
            op_type=node.op_type,
            domain=node.domain,
            group=tuple(p for p in node.name.split("/")[:-1] if p),
            inputs=lay_out_terminals(sig.inputs if sig else None, list(node.input), True, self._terminal),
            outputs=lay_out_terminals(sig.outputs if sig else None, list(node.output), False, self._terminal),
            is_composite=bool(subgraphs) or (sig is not None and sig.function is not None),
            subgraphs=subgraphs,
            function=sig.function if sig else None,
        )

    def _io_view(self, node_id: str) -> NodeView:
        kind = kind_of(node_id)
        name = self.names[node_id]
        terminal = [self._terminal(0, Formal(kind, False, False), name, kind == "output")]
        if kind == "output" and node_id in self.linked_outputs:
            terminal[0].state = "linked"
        return NodeView(
            id=node_id, name=name, kind=kind, op_type="Input" if kind == "input" else "Output", domain="", group=(),
            inputs=terminal if kind == "output" else [], outputs=terminal if kind == "input" else [],
        )

    def _terminal(self, index: int, formal: Formal, name: str | None, is_input: bool) -> TerminalView:
        if not name:
            state = "free"
        elif is_input:
            made_by = self.producer_op.get(name)
            if name in self.initializers:
                state = "initializer"
            elif made_by == ("Constant", ""):
                state = "constant"
            else:
                state = "linked"
        else:
            state = "linked" if (name in self.used or name in self.graph_outputs) else "free"
        shape = self.initializer_dims.get(name) if name and state == "initializer" else None  # drawn as weight shapes
        return TerminalView(index, formal.name, self.value_ids.get(name) if name else None, name or None,
                            formal.optional, formal.variadic, state, None, shape)

    def _signature(self, node: onnx.NodeProto) -> Signature | None:
        function = self.functions.get((node.domain, node.op_type, getattr(node, "overload", "")))
        if function is not None:
            return Signature(
                tuple(Formal(n or f"input_{i}", False, False) for i, n in enumerate(function.input)),
                tuple(Formal(n or f"output_{i}", False, False) for i, n in enumerate(function.output)),
                {},
                function=f"{function.domain}::{function.name}",
            )
        return op_signature(node.op_type, node.domain, self.opsets.get(node.domain))
