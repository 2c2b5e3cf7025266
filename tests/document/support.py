"""Helpers for document tests: semantic comparison of ONNX protos, model snapshots, tiny models."""

from __future__ import annotations

import onnx
import onnx_ir as ir
from google.protobuf.message import Message
from onnx import TensorProto, helper

from dld_jupyter.document.files.versions import target_ir_version
from dld_jupyter.formats.node_names import name_unnamed_nodes


def _strip_defaults(msg: Message) -> None:
    """Clear scalar fields explicitly set to their default (``domain: ""``): presence is not meaning."""
    for field, value in msg.ListFields():
        if field.is_repeated:
            if field.type == field.TYPE_MESSAGE:
                for item in value:
                    _strip_defaults(item)
        elif field.type == field.TYPE_MESSAGE:
            _strip_defaults(value)
        elif value == field.default_value:
            msg.ClearField(field.name)


def _drop_outer_value_info(graph: onnx.GraphProto, outer: set[str], is_sub: bool) -> None:
    """Drop value_info that only restates a known type: of an initializer, or (in subgraphs) of an outer name."""
    inits = {t.name for t in graph.initializer}
    local = {v.name for v in graph.input} | inits | {o for n in graph.node for o in n.output}
    keep = [
        vi
        for vi in graph.value_info
        if vi.name not in inits and (not is_sub or vi.name in local or vi.name not in outer)
    ]
    del graph.value_info[:]
    graph.value_info.extend(keep)
    scope = outer | local
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                _drop_outer_value_info(attr.g, scope, True)
            for sub in attr.graphs:
                _drop_outer_value_info(sub, scope, True)


def canonical(proto: onnx.ModelProto) -> bytes:
    """Bytes equal for semantically identical models, ignoring our ``dld*`` metadata keys; unnamed nodes have the
    names opening gives them (a save writes them: formats/node_names.py, checked against onnx-ir's NameFixPass)."""
    model = onnx.ModelProto.FromString(proto.SerializeToString())
    name_unnamed_nodes(model)
    keep = [(e.key, e.value) for e in model.metadata_props if not e.key.startswith("dld")]
    del model.metadata_props[:]
    for key, value in keep:
        model.metadata_props.add(key=key, value=value)
    opsets = {o.domain: o.version for o in model.opset_import}
    model.ir_version = target_ir_version(model.ir_version, opsets)
    _drop_outer_value_info(model.graph, set(), False)
    _strip_defaults(model)
    return bytes(model.SerializeToString(deterministic=True))


def snapshot(model: ir.Model) -> bytes:
    """Exact serialized form of an in-memory model (order and all)."""
    return bytes(ir.serde.serialize_model(model).SerializeToString(deterministic=True))


def tiny_model(opset: int = 17) -> onnx.ModelProto:
    """x -> Relu -> Add(+b) -> y."""
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"], name="relu"),
            helper.make_node("Add", ["r", "b"], ["y"], name="add"),
        ],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor("b", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
