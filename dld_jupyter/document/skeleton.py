"""The weightless skeleton that onnx.checker and shape inference run on, and what inference found.

Large initializers become typed graph inputs (name, dtype, shape: all that checking needs), small ones keep
their data (shape tensors, axes, scales feed data propagation). Nodes are renamed to tokens (`dld_node_12`,
`dld_node_12_3` inside its subgraphs) so every onnx message can be traced back to the node it is about.
"""

from __future__ import annotations

import re

import onnx
import onnx_ir as ir

Inferred = dict[str, tuple[str, "list[int | str] | None"]]

# Initializers up to this many elements keep their data in the skeleton.
SKELETON_MAX_ELEMENTS = 1024
TOKEN = "dld_node_"
TOKEN_RE = re.compile(r"dld_node_(\d+)(?:_(\d+))?")
# Domains onnx infers shapes for; outputs of other ops keep the types the file declares.
STANDARD_DOMAINS = frozenset({"", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"})


class Skeleton:
    """The model as a ModelProto without weights; nodes renamed to tokens that trace errors back to them."""

    def __init__(self, model: ir.Model) -> None:
        self.nodes: list[ir.Node] = list(model.graph)
        self.labels: dict[str, str] = {}  # token -> what the user knows the node by
        self.proto = onnx.ModelProto(ir_version=model.ir_version)
        for domain, version in model.opset_imports.items():
            self.proto.opset_import.add(domain=domain, version=version)
        for function in model.functions.values():
            ir.serde.serialize_function_into(self.proto.functions.add(), function)
        self._graph(model.graph)

    def label(self, index: int) -> str:
        node = self.nodes[index]
        return node.name or f"{node.op_type} #{index}"

    def _graph(self, graph: ir.Graph) -> None:
        proto = self.proto.graph
        proto.name = graph.name or "main"
        declared = {value.name for value in graph.inputs}
        for value in graph.inputs:
            ir.serde.serialize_value_into(proto.input.add(), value)
        for value in graph.initializers.values():
            if self._keep_data(value) and self._tensor_into(proto, value):
                continue
            if value.name not in declared:  # weightless: a typed input carries what inference needs
                _typed_input(proto.input.add(), value)
        for index, node in enumerate(self.nodes):
            node_proto = proto.node.add()
            ir.serde.serialize_node_into(node_proto, node, model_ir_version=self.proto.ir_version)
            self._rename(node_proto, index)
            if node.domain not in STANDARD_DOMAINS:  # no onnx inference for these: keep what the file says
                for value in node.outputs:
                    if value.type is not None and not value.is_graph_output():
                        ir.serde.serialize_value_into(proto.value_info.add(), value)
        for value in graph.outputs:
            ir.serde.serialize_value_into(proto.output.add(), value)

    @staticmethod
    def _keep_data(value: ir.Value) -> bool:
        tensor = value.const_value
        return tensor is not None and tensor.size <= SKELETON_MAX_ELEMENTS

    @staticmethod
    def _tensor_into(proto: onnx.GraphProto, value: ir.Value) -> bool:
        assert value.const_value is not None
        try:  # a small external tensor whose file is gone stays weightless; the loader reports the file
            tensor_proto = ir.serde.serialize_tensor(value.const_value)
        except Exception:
            return False
        tensor_proto.name = value.name or ""
        proto.initializer.append(tensor_proto)
        return True

    def _rename(self, node_proto: onnx.NodeProto, index: int) -> None:
        token = f"{TOKEN}{index}"
        self.labels[token] = self.label(index)
        node_proto.name = token
        inner = 0
        stack = [g for a in node_proto.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs]]
        while stack:
            graph = stack.pop()
            for sub in graph.node:
                inner += 1
                sub_token = f"{token}_{inner}"
                self.labels[sub_token] = f"{self.labels[token]}/{sub.name or sub.op_type}"
                sub.name = sub_token
                stack.extend(g for a in sub.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs])


def _typed_input(info: onnx.ValueInfoProto, value: ir.Value) -> None:
    tensor = value.const_value
    info.name = value.name or ""
    tensor_type = info.type.tensor_type
    dtype = tensor.dtype if tensor is not None else (value.dtype or ir.DataType.UNDEFINED)
    tensor_type.elem_type = int(dtype)
    shape = tensor.shape if tensor is not None else value.shape
    tensor_type.shape.SetInParent()
    for dim in shape or ():
        if isinstance(dim, int):
            tensor_type.shape.dim.add().dim_value = dim
        else:
            tensor_type.shape.dim.add().dim_param = str(dim.value or "")


def type_of(type_proto: onnx.TypeProto) -> tuple[str, list[int | str] | None] | None:
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        tensor = type_proto.tensor_type
        if not tensor.elem_type:
            return None
        dtype = onnx.TensorProto.DataType.Name(tensor.elem_type)
        if not tensor.HasField("shape"):
            return dtype, None
        dims: list[int | str] = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tensor.shape.dim
        ]
        return dtype, dims
    if kind == "sequence_type":
        element = type_of(type_proto.sequence_type.elem_type)
        return (f"seq({element[0]})" if element else "seq"), None
    return None


def inferred_types(proto: onnx.ModelProto) -> Inferred:
    found: Inferred = {}
    graph = proto.graph
    for tensor in graph.initializer:  # the small ones that kept their data
        found[tensor.name] = (onnx.TensorProto.DataType.Name(tensor.data_type), list(tensor.dims))
    for info in [*graph.input, *graph.value_info, *graph.output]:
        typed = type_of(info.type)
        if typed is not None and info.name:
            found[info.name] = typed
    return found
