"""What onnxconverter-common 1.16 (behind Polygraphy's ConvertToFp16) leaves illegal, put right around its run.

It converts the main graph and Loop/If/Scan bodies only, every float32 tensor alike, so (issue 31, finding 5):
1. a float32 graph input read only inside a subgraph is never cast: the body mixes it with float16 (a scripted GRU's
   `mask`). Before the converter, such an input gets a top-level Identity the body reads instead (`route_outer_inputs`),
   which the converter casts like any reader;
2. local function bodies are skipped while their callers now pass float16: a float Constant in a function made the
   model unloadable. After the converter, float32 tensors in function bodies (Constants, ConstantOfShape values...)
   become float16 the same way, with the same clamping, except on the ops the converter keeps in float32
   (`convert_function_bodies`);
3. QuantizeLinear/DequantizeLinear below opset 19 accept only a float32 scale (DequantizeLinear's output is float32,
   QuantizeLinear's input float32): their scales keep the original float32 values (an initializer of their own when
   other nodes read it too; a Cast when the scale is computed), their float input is cast to float32 and their
   output back to float16 (`keep_quantization_float32`).
4. a Cast to float32 keeps producing float32 (an exporter's mask cast, or the way back from a float64 section of a
   model) while the operators it feeds now take float16: such a Cast casts to float16 instead, unless it feeds a graph
   output or an operator kept in float32 (`float_casts_to_float16`).
A model whose floating-point tensors are all float64 is refused before: the converter changes float32 only
(`float64_only`).
"""

from __future__ import annotations

import onnx
import onnx.helper
from onnx import TensorProto

from dld_jupyter.transforms.constant_forms import Owner, node_lists, walk

QUANTIZE = frozenset({"QuantizeLinear", "DequantizeLinear"})
FLOAT16_SCALES_FROM = 19  # the opset from which Q/DQ scales may be float16


class _Names:
    """Unique value names for inserted nodes."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.taken = {i.name for i in model.graph.initializer} | {i.name for i in model.graph.input}
        for _owner, nodes in node_lists(model):
            self.taken.update(v for n in nodes for v in (*n.input, *n.output))

    def new(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


def _subgraph_reads(model: onnx.ModelProto) -> set[str]:
    reads: set[str] = set()
    for owner, nodes in node_lists(model):
        if owner is not model.graph and isinstance(owner, onnx.GraphProto):
            reads.update(i for n in nodes for i in n.input)
    return reads


def route_outer_inputs(model: onnx.ModelProto) -> list[str]:
    """Case 1, in place: float32 graph inputs that subgraphs read get an Identity they read instead; their names."""
    inputs = {i.name for i in model.graph.input if i.type.tensor_type.elem_type == TensorProto.FLOAT}
    read = sorted(inputs & _subgraph_reads(model))
    if not read:
        return []
    names = _Names(model)
    renamed = {name: names.new(f"{name}_outer_fp16") for name in read}
    for owner, nodes in node_lists(model):
        if owner is model.graph:
            continue
        for node in nodes:
            node.input[:] = [renamed.get(i, i) for i in node.input]
    identities = [onnx.helper.make_node("Identity", [n], [r], name=r) for n, r in renamed.items()]
    kept = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend([*identities, *kept])
    return read


def convert_function_bodies(model: onnx.ModelProto, min_positive: float, max_finite: float) -> list[str]:
    """Case 2, in place: float32 tensors in local function bodies to float16; their labels (function/node)."""
    import onnxconverter_common.float16 as converter

    blocked = set(converter.DEFAULT_OP_BLOCK_LIST)
    converted: list[str] = []
    for function in model.functions:
        for _owner, nodes in walk([function]):
            for node in nodes:
                if node.op_type in blocked:
                    continue
                for attr in node.attribute:
                    tensors = [attr.t] if attr.HasField("t") else []
                    for tensor in [*tensors, *attr.tensors]:
                        if tensor.data_type == TensorProto.FLOAT:
                            converter.convert_tensor_float_to_float16(tensor, min_positive, max_finite)
                            converted.append(f"{function.name}/{node.name or node.output[0]} ({node.op_type})")
    return converted


def float_casts_to_float16(model: onnx.ModelProto) -> list[str]:
    """Case 4, in place, on the converted `model`; returns the Casts changed."""
    import onnxconverter_common.float16 as converter

    blocked = set(converter.DEFAULT_OP_BLOCK_LIST)
    outputs = {o.name for o in model.graph.output}
    changed: list[str] = []
    for owner, nodes in node_lists(model):
        kept = blocked | (QUANTIZE if _opset(owner, model) < FLOAT16_SCALES_FROM else set())
        for node in nodes:
            if node.op_type != "Cast" or _to(node) != TensorProto.FLOAT or node.output[0] in outputs:
                continue
            readers = [n for n in nodes if node.output[0] in n.input]
            if readers and not any(n.op_type in kept for n in readers):
                for attr in node.attribute:
                    if attr.name == "to":
                        attr.i = TensorProto.FLOAT16
                changed.append(node.name or node.output[0])
    return changed


def _opset(owner: Owner, model: onnx.ModelProto) -> int:
    imports = owner.opset_import if isinstance(owner, onnx.FunctionProto) else model.opset_import
    return next((o.version for o in imports if o.domain in ("", "ai.onnx")), 0)


def _int32_values(model: onnx.ModelProto) -> set[str]:
    graph = model.graph
    infos = [*graph.input, *graph.value_info, *graph.output]
    return {i.name for i in infos if i.type.tensor_type.elem_type == TensorProto.INT32} | {
        t.name for t in graph.initializer if t.data_type == TensorProto.INT32
    }


def keep_quantization_float32(model: onnx.ModelProto, original: onnx.ModelProto) -> list[str]:
    """Case 3, in place, on the converted `model`; returns the quantization nodes kept in float32."""
    names = _Names(model)
    before = {t.name: t for t in original.graph.initializer if t.data_type == TensorProto.FLOAT}
    now = {t.name: t for t in model.graph.initializer}
    readers: dict[str, set[str]] = {}
    for _owner, nodes in node_lists(model):
        for node in nodes:
            for name in node.input:
                readers.setdefault(name, set()).add(node.op_type)
    int32 = _int32_values(model)
    copies: dict[str, str] = {}
    kept: list[str] = []
    for owner, nodes in node_lists(model):
        if _opset(owner, model) >= FLOAT16_SCALES_FROM or not any(n.op_type in QUANTIZE for n in nodes):
            continue
        result: list[onnx.NodeProto] = []
        for node in nodes:
            if node.op_type not in QUANTIZE or node.domain not in ("", "ai.onnx"):
                result.append(node)
                continue
            kept.append(node.name or node.output[0])
            scale = node.input[1] if len(node.input) > 1 else ""
            converted = scale in before and now.get(scale, before[scale]).data_type != TensorProto.FLOAT
            if owner is model.graph and converted:
                only_quantize = readers[scale] <= QUANTIZE
                node.input[1] = _float32_scale(model, scale, before[scale], only_quantize, copies, names)
            elif scale:
                result.append(_cast(scale, node, 1, TensorProto.FLOAT, names))
            if node.op_type == "QuantizeLinear" and node.input[0] not in int32:
                result.append(_cast(node.input[0], node, 0, TensorProto.FLOAT, names))
            result.append(node)
            if node.op_type == "DequantizeLinear" and not _read_as_float32(node.output[0], nodes, owner):
                out = node.output[0]
                node.output[0] = names.new(f"{out}_fp32")
                result.append(onnx.helper.make_node("Cast", [node.output[0]], [out], to=TensorProto.FLOAT16,
                                                    name=names.new(f"{out}_to_fp16")))
        del owner.node[:]
        owner.node.extend(result)
    return kept


def _read_as_float32(value: str, nodes: list[onnx.NodeProto], owner: Owner) -> bool:
    """Whether only Casts to float32 read `value` (the converter's own casts to a float32 graph output)."""
    outputs = {o.name for o in owner.output} if isinstance(owner, onnx.GraphProto) else set(owner.output)
    readers = [n for n in nodes if value in n.input]
    return value not in outputs and bool(readers) and all(n.op_type == "Cast" and _to(n) == TensorProto.FLOAT
                                                         for n in readers)


def _to(node: onnx.NodeProto) -> int:
    return next((a.i for a in node.attribute if a.name == "to"), 0)


def _cast(value: str, node: onnx.NodeProto, index: int, to: int, names: _Names) -> onnx.NodeProto:
    """A Cast of `value` to `to` that `node` reads at `index` instead."""
    out = names.new(f"{value}_fp32_for_{node.name or node.op_type}")
    node.input[index] = out
    return onnx.helper.make_node("Cast", [value], [out], to=to, name=out)


def _float32_scale(
    model: onnx.ModelProto,
    name: str,
    original: onnx.TensorProto,
    only_quantize: bool,
    copies: dict[str, str],
    names: _Names,
) -> str:
    """The name of a float32 initializer holding the scale's original values (in place when only Q/DQ read it)."""
    if only_quantize:
        for tensor in model.graph.initializer:
            if tensor.name == name:
                tensor.CopyFrom(original)
        for info in [*model.graph.value_info, *model.graph.input]:  # the converter declared it float16 too
            if info.name == name and info.type.HasField("tensor_type"):
                info.type.tensor_type.elem_type = TensorProto.FLOAT
        return name
    if name not in copies:
        copy = onnx.TensorProto()
        copy.CopyFrom(original)
        copy.name = copies[name] = names.new(f"{name}_fp32")
        model.graph.initializer.append(copy)
    return copies[name]


def float64_only(model: onnx.ModelProto) -> bool:
    """Whether the model holds or computes float64 and nothing in float32 (nothing the converter would change)."""
    kinds: set[int] = set()
    graph = model.graph
    kinds.update(t.data_type for t in graph.initializer)
    kinds.update(i.type.tensor_type.elem_type for i in (*graph.input, *graph.output, *graph.value_info))
    for _owner, nodes in node_lists(model):
        for node in nodes:
            for attr in node.attribute:
                if attr.HasField("t"):
                    kinds.add(attr.t.data_type)
                if attr.name == "to" and node.op_type == "Cast":
                    kinds.add(attr.i)
    return TensorProto.DOUBLE in kinds and TensorProto.FLOAT not in kinds
