"""An engine graph (report_format/engine_graph.py) as the canvas's nodes and links, laid out once.

Layers are op glyphs (title: the layer type; second line: precision and tactic; the precision badge the TensorRT
canvas draws), engine inputs and outputs are the I/O diamonds, and every tensor is a link labelled with its shape
and format. Pure data for a read-only canvas: nothing here writes a document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dld_jupyter.document.layout.layered_layout import sugiyama_layout
from dld_jupyter.report_format.engine_graph import EngineGraph, EngineLayer, EngineTensor
from dld_jupyter.widgets.canvas.graph_payload import IO_SIZE, LINE_HEIGHT, NODE_HEIGHT
from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData, NodeKind, TerminalData

_FORMAT_WORDS = re.compile(
    r"\b(Row major linear|Channel major|Two wide channel vectorized row major|"
    r"Four wide channel vectorized row major|Thirty-two wide channel vectorized row major)\b",
    re.IGNORECASE,
)
_SHORT_FORMAT = {
    "row major linear": "linear",
    "channel major": "HWC",
    "two wide channel vectorized row major": "CHW2",
    "four wide channel vectorized row major": "CHW4",
    "thirty-two wide channel vectorized row major": "CHW32",
}
_VECTOR = re.compile(r"channel % (\d+) == 0")
MAX_WIDTH = 300.0
BADGE_ROOM = 10.0
_CATEGORIES = (  # TensorRT layer type words -> the canvas's op categories (their colours)
    ("Conv", "Convolution"),
    ("Deconv", "Convolution"),
    ("Pool", "Pooling"),
    ("Activation", "Activation"),
    ("Relu", "Activation"),
    ("SoftMax", "Activation"),
    ("Softmax", "Activation"),
    ("Norm", "Normalization"),
    ("Scale", "Normalization"),
    ("ElementWise", "Math / Elementwise"),
    ("Eltwise", "Math / Elementwise"),
    ("PointWise", "Math / Elementwise"),
    ("Unary", "Math / Elementwise"),
    ("Reduce", "Reduction"),
    ("Gemm", "Matrix Multiply"),
    ("MatrixMultiply", "Matrix Multiply"),
    ("FullyConnected", "Matrix Multiply"),
    ("Attention", "Attention"),
    ("Myelin", "Other"),
    ("Quantize", "Quantization"),
    ("Shuffle", "Shape / Tensor"),
    ("Reformat", "Shape / Tensor"),
    ("NoOp", "Shape / Tensor"),
    ("Copy", "Shape / Tensor"),
    ("Padding", "Shape / Tensor"),
    ("Slice", "Shape / Tensor"),
    ("Concat", "Shape / Tensor"),
    ("Gather", "Shape / Tensor"),
    ("Constant", "Shape / Tensor"),
)
_NO_TACTIC = re.compile(r"^0x0+$")  # layers TensorRT runs without a tactic choice (Shuffle, Reformat, ...)


def layer_id(layer: EngineLayer) -> str:
    return f"L{layer.index}"


def short_format(tensor: EngineTensor) -> str:
    """ "Channel major FP16 format where channel % 8 == 0" -> "FP16 HWC8"; "Row major linear FP32" -> "FP32 linear"."""
    layout = ""
    match = _FORMAT_WORDS.search(tensor.format)
    if match:
        layout = _SHORT_FORMAT[match.group(1).lower()]
        vector = _VECTOR.search(tensor.format)
        if layout == "HWC" and vector:
            layout += vector.group(1)
    return " ".join(part for part in (tensor.precision if tensor.precision != "N/A" else "", layout) if part)


def tensor_label(tensor: EngineTensor | None) -> str | None:
    if tensor is None:
        return None
    shape = "×".join(str(d) for d in tensor.dims) if tensor.dims else "scalar"
    fmt = short_format(tensor)
    return f"{shape} {fmt}" if fmt else shape


def layer_category(layer_type: str) -> str:
    return next((category for word, category in _CATEGORIES if word.lower() in layer_type.lower()), "Other")


def short_tactic(tactic: str, limit: int = 28) -> str:
    if _NO_TACTIC.match(tactic):
        return ""
    return tactic if len(tactic) <= limit else tactic[: limit - 1] + "…"


def _terminal(index: int, name: str) -> TerminalData:
    return {"index": index, "name": name, "optional": False, "variadic": False, "state": "linked", "value": name}


def _node(
    node_id: str,
    name: str,
    kind: NodeKind,
    op_type: str,
    inputs: list[str],
    outputs: list[str],
    subtitle: str = "",
    detail: str = "",
    precision: str | None = None,
    category: str = "",
) -> NodeData:
    if kind == "op":
        longest = max(len(op_type), len(subtitle), len(detail))
        width = min(max(7.0 * longest + 28, 120.0, 24.0 * max(len(inputs), len(outputs)) + 16), MAX_WIDTH)
        # room under the text for the precision badge (bottom left), which overlapped the third line
        height = NODE_HEIGHT + LINE_HEIGHT * (bool(subtitle) + bool(detail) - 1) + (BADGE_ROOM if precision else 0)
    else:
        width, height = IO_SIZE
    return {
        "id": node_id,
        "name": name,
        "kind": kind,
        "op_type": op_type,
        "domain": "tensorrt",
        "category": category,
        "composite": False,
        "function": None,
        "inputs": [_terminal(i, t) for i, t in enumerate(inputs)],
        "outputs": [_terminal(i, t) for i, t in enumerate(outputs)],
        "parent": None,
        "collapsed": False,
        "child_count": 0,
        "diagnostic": None,
        "precision": precision,
        "hidden_constant": False,
        "subtitle": subtitle,
        "detail": detail,
        "width": width,
        "height": height,
    }


def layer_node(layer: EngineLayer) -> NodeData:
    """Title: the layer type; then precision and tactic; then the ONNX nodes it fuses (the glyph's third line)."""
    second = " · ".join(
        p for p in (layer.precision if layer.precision != "N/A" else "", short_tactic(layer.tactic)) if p
    )
    fused = ", ".join(n.rsplit("/", 1)[-1] for n in layer.onnx_nodes)
    third = fused if len(fused) <= 40 else fused[:39] + "…"
    precision = layer.precision if layer.precision != "N/A" else None
    return _node(
        layer_id(layer),
        layer.name,
        "op",
        layer.type,
        layer.inputs,
        layer.outputs,
        second,
        third,
        precision,
        layer_category(layer.type),
    )


@dataclass
class EngineView:
    """The nodes, links and positions of one engine graph, and each node's full record for the side panel."""

    graph: EngineGraph
    nodes: list[NodeData]
    edges: list[EdgeData]
    positions: dict[str, tuple[float, float]]

    def record(self, node_id: str) -> dict[str, Any] | None:
        """What the side panel shows of a node: a layer's whole record, or an engine input/output tensor."""
        if node_id.startswith("L") and node_id[1:].isdigit() and int(node_id[1:]) < len(self.graph.layers):
            layer = self.graph.layers[int(node_id[1:])]
            return {
                "kind": "layer",
                "name": layer.name,
                "type": layer.type,
                "precision": layer.precision,
                "tactic": layer.tactic,
                "onnx_nodes": layer.onnx_nodes,
                "overhead": layer.overhead,
                "inputs": [self._tensor(t) for t in layer.inputs],
                "outputs": [self._tensor(t) for t in layer.outputs],
                "parameters": layer.parameters,
            }
        for prefix, kind in (("in:", "input"), ("out:", "output")):
            if node_id.startswith(prefix):
                return {"kind": kind, **self._tensor(node_id[len(prefix) :])}
        return None

    def _tensor(self, name: str) -> dict[str, Any]:
        tensor = self.graph.tensors.get(name)
        if tensor is None:
            return {"name": name, "dims": [], "format": "", "precision": "N/A"}
        return {"name": name, "dims": tensor.dims, "format": tensor.format, "precision": tensor.precision}


def engine_view(graph: EngineGraph) -> EngineView:
    nodes = [_node(f"in:{name}", name, "input", "", [], [name]) for name in graph.inputs]
    nodes += [layer_node(layer) for layer in graph.layers]
    nodes += [_node(f"out:{name}", name, "output", "", [name], []) for name in graph.outputs]
    edges: list[EdgeData] = []
    for i, link in enumerate(graph.links):
        source = f"in:{link.tensor}" if link.source is None else f"L{link.source}"
        target = f"out:{link.tensor}" if link.target is None else f"L{link.target}"
        src_index = 0 if link.source is None else graph.layers[link.source].outputs.index(link.tensor)
        dst_index = 0 if link.target is None else graph.layers[link.target].inputs.index(link.tensor)
        edges.append(
            {
                "id": f"e{i}",
                "source": source,
                "source_index": src_index,
                "target": target,
                "target_index": dst_index,
                "value": link.tensor,
                "label": tensor_label(graph.tensors.get(link.tensor)),
            }
        )
    sizes = {n["id"]: (n["width"], n["height"]) for n in nodes}
    positions = sugiyama_layout(
        [n["id"] for n in nodes], [(e["source"], e["target"]) for e in edges], sizes, layer_gap=56.0
    )
    return EngineView(graph, nodes, edges, positions)
