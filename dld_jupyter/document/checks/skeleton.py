"""The weightless skeleton that onnx.checker and shape inference run on, and what inference found.

Large initializers become typed graph inputs (name, dtype, shape: all that checking needs), small ones keep
their data (shape tensors, axes, scales feed data propagation). Nodes are renamed to tokens (`dld_node_12`,
`dld_node_12_3` inside its subgraphs) so every onnx message can be traced back to the node it is about.
"""

from __future__ import annotations

import re
from collections.abc import ItemsView, Iterator, Mapping

import onnx
import onnx_ir as ir

TypeInfo = tuple[str, "list[int | str] | None"]  # (dtype such as "FLOAT", dims or None for unknown rank)

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
        self._inner_labels: dict[str, str] = {}  # subgraph node token -> "outer/inner"
        self.inner_names: dict[str, str] = {}  # subgraph node token -> its own name
        self.with_subgraphs: set[int] = set()  # indexes of the nodes that hold subgraphs
        self.proto = onnx.ModelProto(ir_version=model.ir_version)
        for domain, version in model.opset_imports.items():
            self.proto.opset_import.add(domain=domain, version=version)
        for function in model.functions.values():
            ir.serde.serialize_function_into(self.proto.functions.add(), function)
        self._graph(model.graph)

    def label(self, index: int) -> str:
        """What the user knows node `index` by."""
        node = self.nodes[index]
        return node.name or f"{node.op_type} #{index}"

    def label_of(self, token: str) -> str:
        """The label behind a token found in an onnx message."""
        if token in self._inner_labels:
            return self._inner_labels[token]
        match = TOKEN_RE.fullmatch(token)
        index = int(match.group(1)) if match else -1
        return self.label(index) if 0 <= index < len(self.nodes) else token

    def _graph(self, graph: ir.Graph) -> None:
        proto = self.proto.graph
        proto.name = graph.name or "main"
        declared = {value.name for value in graph.inputs}
        for value in graph.inputs:
            ir.serde.serialize_value_into(proto.input.add(), value)
        for value in graph.initializers.values():
            tensor = value.const_value
            if tensor is not None and value.dtype is not None and value.dtype != tensor.dtype:
                # the file declares another type than its tensor holds (a converter that changed the declaration
                # only): the full checker refuses that file, so the skeleton keeps the declaration to refuse it too
                ir.serde.serialize_value_into(proto.value_info.add(), value)
            if self._keep_data(value) and self._tensor_into(proto, value):
                continue
            if value.name not in declared:  # weightless: a typed input carries what inference needs
                _typed_input(proto.input.add(), value.name, tensor if tensor is not None else value)
        for index, node in enumerate(self.nodes):
            weights = _large_constant(node)
            if weights is not None:  # exporters that store weights in Constant nodes: same treatment
                _typed_input(proto.input.add(), node.outputs[0].name, weights)
                continue
            node_proto = proto.node.add()
            node_proto.name = f"{TOKEN}{index}"
            if _node_into(node_proto, node):
                self.with_subgraphs.add(index)
                self._rename_subgraphs(node_proto, index)
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
        tensor = value.const_value
        assert tensor is not None
        try:  # a small external tensor whose file is gone stays weightless; the loader reports the file
            if isinstance(tensor, ir.ExternalTensor):  # its bytes, read from its own folder: the checker would
                tensor = ir.Tensor(tensor.numpy(), dtype=tensor.dtype)  # look for the file in the working folder
            tensor_proto = ir.serde.serialize_tensor(tensor)
        except Exception:
            return False
        tensor_proto.name = value.name or ""
        proto.initializer.append(tensor_proto)
        return True

    def _rename_subgraphs(self, node_proto: onnx.NodeProto, index: int) -> None:
        outer = self.label(index)
        inner = 0
        stack = [g for a in node_proto.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs]]
        while stack:
            graph = stack.pop()
            for sub in graph.node:
                inner += 1
                token = f"{node_proto.name}_{inner}"
                self._inner_labels[token] = f"{outer}/{sub.name or sub.op_type}"
                self.inner_names[token] = sub.name
                sub.name = token
                stack.extend(g for a in sub.attribute for g in [*([a.g] if a.HasField("g") else []), *a.graphs])


_GRAPH_ATTRIBUTES = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)


def _node_into(proto: onnx.NodeProto, node: ir.Node) -> bool:
    """What checking needs of a node (no doc strings, no metadata), 4x faster than the full serializer.

    Returns whether the node holds subgraphs.
    """
    proto.op_type = node.op_type
    if node.domain:
        proto.domain = node.domain
    if node.overload:
        proto.overload = node.overload
    proto.input.extend([(v.name or "") if v is not None else "" for v in node.inputs])
    proto.output.extend([v.name or "" for v in node.outputs])
    attributes = node.attributes
    if not attributes:  # most nodes: skip the mapping view machinery
        return False
    has_graph = False
    for attr in attributes.values():
        if attr.is_ref():  # a function body's reference to the caller's attribute
            ir.serde.serialize_reference_attribute_into(proto.attribute.add(), attr)
            continue
        ir.serde.serialize_attribute_into(proto.attribute.add(), attr)
        has_graph = has_graph or attr.type in _GRAPH_ATTRIBUTES
    return has_graph


def _large_constant(node: ir.Node) -> ir.TensorProtocol | None:
    if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or len(node.outputs) != 1:
        return None
    attr = node.attributes.get("value")
    if attr is None or attr.is_ref() or attr.type != ir.AttributeType.TENSOR:
        return None
    tensor: ir.TensorProtocol = attr.value
    return tensor if tensor.size > SKELETON_MAX_ELEMENTS else None


def _typed_input(info: onnx.ValueInfoProto, name: str | None, typed: ir.TensorProtocol | ir.Value) -> None:
    """A graph input with the dtype and shape of a tensor (or of a value whose tensor is unknown)."""
    info.name = name or ""
    tensor_type = info.type.tensor_type
    tensor_type.elem_type = int(typed.dtype or ir.DataType.UNDEFINED)
    if typed.shape is None:
        return
    tensor_type.shape.SetInParent()
    for dim in typed.shape:
        if isinstance(dim, int):
            tensor_type.shape.dim.add().dim_value = dim
        else:
            tensor_type.shape.dim.add().dim_param = str(dim.value or "")


_DTYPES = {number: name for name, number in onnx.TensorProto.DataType.items()}


def type_of(type_proto: onnx.TypeProto) -> tuple[str, list[int | str] | None] | None:
    """(dtype name, dims) of a tensor type; dims hold ints, symbols, or "?" for unknown ones."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        tensor = type_proto.tensor_type
        if not tensor.elem_type:
            return None
        dtype = _DTYPES.get(tensor.elem_type, str(tensor.elem_type))
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


class InferredTypes(Mapping[str, TypeInfo]):
    """Value name -> (dtype, dims) from an inferred model, each converted on first access.

    Converting all 50,000 values of a large model at once takes ~0.6 s of protobuf access; a canvas that
    labels the edges it shows asks for a few hundred.
    """

    def __init__(self, proto: onnx.ModelProto | None = None) -> None:
        self._proto = proto
        self._index: dict[str, onnx.ValueInfoProto] | None = None
        self._types: dict[str, TypeInfo] = {}
        self._by_bytes: dict[bytes, TypeInfo | None] = {}
        self._complete = False

    def _ensure_index(self) -> dict[str, onnx.ValueInfoProto]:
        if self._index is None:
            self._index = {}
            if self._proto is not None:
                graph = self._proto.graph
                for tensor in graph.initializer:  # the small ones that kept their data
                    self._types[tensor.name] = (_DTYPES.get(tensor.data_type, str(tensor.data_type)), list(tensor.dims))
                for info in [*graph.input, *graph.value_info, *graph.output]:
                    if info.name:
                        self._index[info.name] = info
        return self._index

    def __getitem__(self, name: str) -> TypeInfo:
        found = self._types.get(name)
        if found is None:
            found = self._convert(name, self._ensure_index()[name])
            if found is None:
                raise KeyError(name)
        return found

    def _convert(self, name: str, info: onnx.ValueInfoProto) -> TypeInfo | None:
        # Most values share a handful of types: one C-level serialization beats walking the message.
        key = info.type.SerializeToString()
        if key not in self._by_bytes:
            self._by_bytes[key] = type_of(info.type)
        typed = self._by_bytes[key]
        if typed is None:
            return None
        found = self._types[name] = (typed[0], None if typed[1] is None else list(typed[1]))
        return found

    def _convert_all(self) -> dict[str, TypeInfo]:
        if not self._complete:
            types = self._types
            for name, info in self._ensure_index().items():
                if name not in types:
                    self._convert(name, info)
            self._complete = True
        return self._types

    def items(self) -> ItemsView[str, TypeInfo]:
        return self._convert_all().items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._convert_all())

    def __len__(self) -> int:
        return len(self._convert_all())
