"""Which node of one model is which node of another when their names say nothing: for comparing profiles.

Why (issue 41): the FP16 and the INT8 (QAT) builds of one network name their nodes differently, so a comparison of
their profiling reports keyed by names paired none of their layers. Two structures answer it with the `dld diff`
matcher (graph_index.py, matching.py), each seen without what a precision change alters:
- ONNX models: each main graph with its precision plumbing taken out (QuantizeLinear, DequantizeLinear, Cast and
  CastLike pass their input through), weights keyed by shape only (an int8 or FP16 weight is the same weight);
- TensorRT engine graphs (layer information; no model needed): each compute layer a node whose op is its kind
  (`ParameterType`: CaskConvolution and a Convolution alike) with the parameters a build keeps (kernel, output
  maps, strides, groups, windows), reading the compute layers before it through reformats and copies.
Both give name -> name over the nodes (layers) the matcher pairs; what it cannot pair is left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import onnx_ir as ir

from dld_jupyter.document.files import io as doc_io
from dld_jupyter.report_format.engine_graph import EngineGraph

from .graph_index import GraphIndex
from .matching import Matching

PASS_THROUGH = frozenset({"QuantizeLinear", "DequantizeLinear", "Cast", "CastLike"})
# Engine layer parameters that a build in another precision keeps (fused activations, weights' types, tactics and
# paddings chosen for a format differ and are left out).
# A convolution layer reading a second tensor adds it (a fused residual): which of a block's two convolutions takes
# the add differs between builds, so the add becomes a node of its own whose inputs hash in any order.
_WITH_RESIDUAL = frozenset({"Convolution", "Deconvolution", "FullyConnected"})
_SUM = frozenset({("trt", "ResidualAdd", "")})
# Layers that move data: where a build pads, transposes or reformats differs (a QAT build slices where an FP16 one
# pads inside its convolution), so they are seen through.
DATA_MOVEMENT = frozenset({"Shuffle", "Slice", "Reformat"})
KEPT_PARAMETERS = ("Kernel", "OutMaps", "Stride", "Groups", "Dilation", "PoolingType", "WindowSize", "Axes")


def model_node_pairs(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> dict[str, str]:
    """ONNX node name in model file ``a`` -> the node of model file ``b`` that computes the same thing."""
    ga, gb = _precision_blind(doc_io.load(a).graph), _precision_blind(doc_io.load(b).graph)
    return _pairs(GraphIndex(ga, dtypes=False), GraphIndex(gb, dtypes=False))


def engine_layer_pairs(a: EngineGraph, b: EngineGraph) -> dict[str, str]:
    """Compute layer name of engine ``a`` -> the layer of engine ``b`` at the same place in the network (layers
    that only move data, as reformats, shuffles and slices, are seen through and paired with nothing)."""
    pairs = _pairs(GraphIndex(_engine_ir(a), commutative=_SUM), GraphIndex(_engine_ir(b), commutative=_SUM))
    names = {layer.name for layer in a.layers}
    return {x: y for x, y in pairs.items() if x in names}


def _pairs(a: GraphIndex, b: GraphIndex) -> dict[str, str]:
    matching = Matching(a, b)
    found: dict[str, str] = {}
    for i, j in matching.a_to_b.items():
        x, y = a.nodes[i].name, b.nodes[j].name
        if x and y:
            found[x] = y
    return found


def _precision_blind(graph: ir.Graph) -> ir.Graph:
    """``graph`` (a copy loaded for this) with every Q/DQ/Cast replaced by its input, so a quantized or FP16 copy
    has the float model's structure."""
    for node in list(graph):
        if node.op_type not in PASS_THROUGH or node.domain not in ("", "ai.onnx", "com.microsoft"):
            continue
        source = node.inputs[0] if node.inputs else None
        if source is None or len(node.outputs) != 1:
            continue
        out = node.outputs[0]
        ir.convenience.replace_all_uses_with(out, source, replace_graph_outputs=True)
        graph.remove(node, safe=False)
    return graph


def _kind(layer_type: str, parameters: dict[str, object]) -> str:
    kind = parameters.get("ParameterType")
    if isinstance(kind, str) and kind:
        return kind
    for prefix in ("Cask", "Cudnn", "Cuda", "Myelin"):
        if layer_type.startswith(prefix) and len(layer_type) > len(prefix):
            return layer_type[len(prefix):]
    return layer_type


def _engine_ir(engine: EngineGraph) -> ir.Graph:
    """The compute layers of ``engine`` as an ir graph (node names are layer names)."""
    alias: dict[str, str] = {}  # an overhead layer's output -> the tensor it copied

    def resolve(tensor: str) -> str:
        seen = 0
        while tensor in alias and seen < len(alias):
            tensor, seen = alias[tensor], seen + 1
        return tensor

    values: dict[str, ir.Value] = {name: ir.Value(name=name) for name in engine.inputs}
    nodes = []
    for layer in engine.layers:
        kind = _kind(layer.type, layer.parameters)
        if layer.overhead or kind in DATA_MOVEMENT:
            for out in layer.outputs:
                if layer.inputs:
                    alias[out] = layer.inputs[0]
            continue
        inputs = [values.get(resolve(t)) for t in layer.inputs]
        residual = inputs[1:] if kind in _WITH_RESIDUAL and len(layer.outputs) == 1 else []
        attributes = [ir.AttrString(k, repr(layer.parameters[k])) for k in KEPT_PARAMETERS if k in layer.parameters]
        node = ir.Node("trt", kind, inputs[: len(inputs) - len(residual)], attributes,
                       num_outputs=len(layer.outputs), name=layer.name)
        nodes.append(node)
        outputs = list(node.outputs)
        if residual:  # unnamed: it pairs, but the layer is paired through its convolution
            add = ir.Node("trt", "ResidualAdd", [outputs[0], *residual], num_outputs=1)
            nodes.append(add)
            outputs = list(add.outputs)
        for value, tensor in zip(outputs, layer.outputs, strict=True):
            value.name = tensor
            values[tensor] = value
    outputs = _present(values.get(resolve(t)) for t in engine.outputs)
    return ir.Graph(_present(values.get(name) for name in engine.inputs), outputs, nodes=nodes)


def _present(values: Iterable[ir.Value | None]) -> list[ir.Value]:
    found: list[ir.Value] = []
    for value in values:
        if value is not None and value not in found:
            found.append(value)
    return found
