"""Analysis overrides as protobuf edits (seed 001 §4.3 "Runtime options"): an attribute's new value in its declared
type, an attribute left at the schema's default made explicit, and the copies an override keeps to revert exactly.
And `OverrideTargets`, which finds the node or initializer an override names, inside subgraphs too. Only the
engine (`engine.AnalysisEngine.override`, `revert`) uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from dld_jupyter.activities.analysis.graph import MainGraph
from dld_jupyter.activities.errors import SpecError


def schema_attribute(node: onnx.NodeProto, name: str) -> int | None:
    """The type of attribute `name` in the operator's schema, when it has one and the node leaves it at default."""
    try:
        schema = onnx.defs.get_schema(node.op_type, domain=node.domain)
    except onnx.defs.SchemaError:
        return None
    attribute = schema.attributes.get(name)
    kind: Any = attribute.type if attribute is not None else None  # a pybind11 enum, an int at run time
    return int(kind) if kind is not None else None


def copy_proto(proto: onnx.AttributeProto | onnx.TensorProto) -> onnx.AttributeProto | onnx.TensorProto:
    copy = type(proto)()
    copy.CopyFrom(proto)
    return copy


def attribute_value(name: str, value: Any, kind: int) -> onnx.AttributeProto:
    if isinstance(value, np.ndarray) or kind == onnx.AttributeProto.TENSOR:
        value = numpy_helper.from_array(np.asarray(value))
    try:
        return helper.make_attribute(name, value, attr_type=kind)
    except (TypeError, ValueError) as error:
        raise SpecError(f"override {name!r}: {value!r} does not fit the attribute ({error})") from error


class OverrideTargets:
    """What an override names in the analysis's private graph: node `index` of the main graph, or the node `inside`
    its subgraphs names ((attribute, inner node name) pairs), and the initializer such a node reads."""

    def __init__(self, graph: MainGraph, initializers: dict[str, onnx.TensorProto]) -> None:
        self.graph = graph
        self._initializers = initializers

    def node(self, index: int, inside: tuple[str, ...]) -> onnx.NodeProto:
        """The node `index` of the main graph, or the node `inside` its subgraphs names (attribute, inner name…)."""
        return self._scopes(index, inside)[1]

    def initializer(self, index: int, inside: tuple[str, ...], name: str) -> onnx.TensorProto | None:
        """The initializer `name` the node reads: of the main graph (the node's subgraph bodies may read it), or
        for a node `inside` subgraphs, of the innermost body around it that declares it (None: none does)."""
        if not inside:
            return self._initializers.get(name) if name in self.graph.reads[index] else None
        bodies, proto = self._scopes(index, inside)
        if name not in proto.input:
            return None
        for body in reversed(bodies):  # the innermost declaration shadows an outer one
            found: list[onnx.TensorProto] = [t for t in body.initializer if t.name == name]
            if found:
                return found[0]
        return None

    def _scopes(self, index: int, inside: tuple[str, ...]) -> tuple[list[onnx.GraphProto], onnx.NodeProto]:
        """(the subgraph bodies `inside` walks through, outermost first; the node it names)."""
        proto: onnx.NodeProto = self.graph.nodes[index]
        bodies: list[onnx.GraphProto] = []
        if len(inside) % 2:
            raise SpecError(f"inside: expected (attribute, inner node name) pairs, got {list(inside)}")
        for step in range(0, len(inside), 2):
            attribute, inner = inside[step], inside[step + 1]
            found = next((a for a in proto.attribute if a.name == attribute and a.HasField("g")), None)
            if found is None:
                raise SpecError(f"inside: {self.where(index, inside[:step])!r} has no subgraph {attribute!r}")
            nodes: list[onnx.NodeProto] = [n for n in found.g.node if n.name == inner]
            if len(nodes) != 1:
                raise SpecError(f"inside: subgraph {attribute!r} has {len(nodes)} nodes named {inner!r}, not one")
            proto = nodes[0]
            bodies.append(found.g)
        return bodies, proto

    def where(self, index: int, inside: Sequence[str]) -> str:
        return "/".join([self.graph.keys[index], *inside])
