"""Non-structural edits: names, attributes, initializers, positions, model metadata and information."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits import structure_commands as gc
from dld_jupyter.document.edits.attribute_rules import check_attribute
from dld_jupyter.document.edits.attributes import to_attr
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.structure_edits import (
    Do,
    check_node_name,
    check_position,
    check_value_name,
    connect_value,
    inputs_without,
    io_value,
    op_node,
)
from dld_jupyter.document.edits.tensors import check_element_kind, parse_dtype
from dld_jupyter.document.layout.metadata import POSITIONS_KEY
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.ids import IO_KINDS, kind_of
from dld_jupyter.document.operators.signature import node_signature
from dld_jupyter.document.subgraphs.nested_graphs import refuse_subgraph_users


def rename_node(ctx: Context, do: Do, node_id: str, new_name: str) -> None:
    what = f"Rename {node_id}"
    kind = kind_of(node_id)
    if kind == "outer":
        why = "an outer reference names a value of the enclosing graph."
        raise DocumentError(what, why, "Rename it in the document of that graph.")
    if kind in ("input", "output"):
        value = io_value(ctx, node_id, what)
        rename_value(ctx, do, value, new_name)
        return
    node = op_node(ctx, node_id, what)
    if node.name == new_name:
        return
    check_node_name(ctx, new_name, what, node)
    do(c.RenameNode(node, new_name))


def graph_value(ctx: Context, value_id: str, what: str) -> ir.Value:
    value = ctx.ids.value(value_id)
    if value.graph is not ctx.graph:
        raise DocumentError(what, f"value {value_id!r} is not in the graph.", "Refresh the view.")
    return value


def rename_value(ctx: Context, do: Do, value: ir.Value, new_name: str) -> None:
    if value.name == new_name:
        return
    do(c.RenameValue(value, check_value_name(ctx, new_name, f"Rename tensor {value.name!r}")))


def set_io_type(
    ctx: Context, do: Do, node_id: str, dtype: str | ir.DataType, shape: list[int | str | None] | None
) -> None:
    """Declare a graph input's or output's element type and shape (a dim: int, a symbolic name, or None for
    unknown; ``shape`` None: rank unknown). A model built from scratch needs it to be valid: onnx.checker refuses
    a graph input without an element type."""
    what = f"Set the type of {node_id}"
    if kind_of(node_id) not in ("input", "output"):
        raise DocumentError(what, "only a graph input or output declares a type.", "Select an input or output node.")
    value = io_value(ctx, node_id, what)
    element = parse_dtype(dtype)
    dims = None
    if shape is not None:
        for d in shape:
            if not (d is None or (isinstance(d, int) and d >= 0) or (isinstance(d, str) and d.isidentifier())):
                fix = "Use a size (3), a name (batch) or ? (unknown)."
                raise DocumentError(what, f"{d!r} is not a dimension.", fix)
        dims = ir.Shape(shape)
    do(c.SetConstValue(value, value.const_value, ir.TensorType(element), dims))  # the type, its value kept


def set_attribute(ctx: Context, do: Do, node_id: str, name: str, value: Any) -> None:
    what = f"Set attribute {name!r}"
    node = op_node(ctx, node_id, what)
    sig = node_signature(ctx.model, node)
    spec = sig.attributes.get(name) if sig and isinstance(name, str) else None
    # a local function's parameter keeps the name its definition gives it (exporters write "inferred::Conv_group")
    if not isinstance(name, str) or not (name.isidentifier() or (spec is not None and sig and sig.function)):
        raise DocumentError(what, "attribute names are identifiers.", "Pass the attribute's name, e.g. 'axis'.")
    if sig is not None and spec is None:
        known = ", ".join(sorted(sig.attributes)) or "none"
        kind = "parameter" if sig.function else "attribute"
        raise DocumentError(what, f"{node.op_type} has no {kind} {name!r}.", f"Known {kind}s: {known}.")
    attr = to_attr(name, value, spec.type if spec else None)
    check_attribute(node, attr)
    do(c.SetAttribute(node, name, attr))


def reset_attribute(ctx: Context, do: Do, node_id: str, name: str) -> None:
    what = f"Reset attribute {name!r}"
    node = op_node(ctx, node_id, what)
    if name not in node.attributes:
        raise DocumentError(what, "it is not set (already the default).", "Nothing to do.")
    sig = node_signature(ctx.model, node)
    spec = sig.attributes.get(name) if sig else None
    if spec is not None and spec.required:
        raise DocumentError(what, "the attribute is required and has no default.", "Set another value instead.")
    do(c.SetAttribute(node, name, None))


def move_nodes(ctx: Context, do: Do, positions: Mapping[str, Any]) -> None:
    what = "Move nodes"
    checked = []
    for node_id, position in positions.items():
        if kind_of(node_id) in IO_KINDS:
            io_value(ctx, node_id, what)
        else:
            op_node(ctx, node_id, what)
        checked.append((node_id, check_position(position, what)))
    if checked:
        do(c.SetPositions(tuple(checked)))


def _tensor_of(name: str, array: Any, what: str) -> ir.TensorProtocol:
    try:
        data = np.asarray(array)
        if data.dtype == object:
            raise ValueError("ragged or mixed values")
        return ir.tensor(data, name=name)
    except (ValueError, TypeError) as exc:
        raise DocumentError(what, f"the value cannot be a tensor ({exc}).", "Pass a numpy array.") from exc


def create_initializer(ctx: Context, do: Do, name: str, array: Any) -> str:
    what = f"Create initializer {name!r}"
    check_value_name(ctx, name, what)
    tensor = _tensor_of(name, array, what)
    value = ir.Value(
        name=name, type=ir.TensorType(tensor.dtype), shape=ir.Shape(list(np.asarray(array).shape)), const_value=tensor
    )
    do(c.AddInitializer(value))
    return ctx.ids.value_id(value)


def initializer(ctx: Context, value_id: str, what: str) -> ir.Value:
    value = ctx.ids.value(value_id)
    if not value.is_initializer() or value.graph is not ctx.graph:
        raise DocumentError(what, f"{value_id!r} is not an initializer of the graph.", "Pick an initializer.")
    return value


def delete_initializer(ctx: Context, do: Do, value_id: str) -> None:
    value = initializer(ctx, value_id, f"Delete initializer {value_id}")
    refuse_subgraph_users(ctx, [value], [], f"Delete initializer {value.name}")
    consumers: dict[ir.Node, list[int]] = {}
    for use in value.uses():
        if use.node.graph is ctx.graph:
            consumers.setdefault(use.node, []).append(use.idx)
    for consumer, indices in consumers.items():
        do(gc.SetInputs(consumer, inputs_without(ctx, consumer, indices)))
    if value.is_graph_output():
        do(gc.SetGraphOutputs(tuple(v for v in ctx.graph.outputs if v is not value)))
    if value.is_graph_input():
        do(gc.SetGraphInputs(tuple(v for v in ctx.graph.inputs if v is not value)))
    do(c.RemoveInitializer(value))


def set_initializer_value(ctx: Context, do: Do, value_id: str, array: Any) -> None:
    what = f"Set initializer {value_id}"
    value = initializer(ctx, value_id, what)
    assert value.name is not None
    tensor = _tensor_of(value.name, array, what)
    if value.const_value is not None:  # the element type may change (float -> double), its kind may not
        check_element_kind(np.asarray(array), value.const_value.dtype, what)
    do(c.SetConstValue(value, tensor, ir.TensorType(tensor.dtype), ir.Shape(list(np.asarray(array).shape))))


def connect_initializer(ctx: Context, do: Do, value_id: str, node_id: str, index: int) -> None:
    what = f"Connect initializer {value_id}"
    value = initializer(ctx, value_id, what)
    connect_value(ctx, do, value, node_id, index, what)


def set_metadata(ctx: Context, do: Do, key: str, value: str | None) -> None:
    what = f"Set metadata {key!r}"
    if not isinstance(key, str) or not key:
        raise DocumentError(what, "the key is empty.", "Pass a non-empty key.")
    if key == POSITIONS_KEY:
        raise DocumentError(what, "this key holds canvas positions.", "Use move_nodes or arrange.")
    if value is not None and not isinstance(value, str):
        raise DocumentError(what, "metadata values are strings.", "Pass a str (or None to remove).")
    props = dict(ctx.model.metadata_props)
    if props.get(key) != value:
        if value is None:
            del props[key]
        else:
            props[key] = value
        do(c.SetMetadata(tuple(props.items())))


INFO_FIELDS = (*c.MODEL_FIELDS, *c.GRAPH_FIELDS, "opset_imports")


def set_model_info(ctx: Context, do: Do, fields: Mapping[str, Any]) -> None:
    what = "Set model information"
    unknown = sorted(set(fields) - set(INFO_FIELDS))
    if unknown:
        raise DocumentError(what, f"unknown field(s) {', '.join(unknown)}.", f"Use: {', '.join(INFO_FIELDS)}.")
    for name, value in fields.items():
        if name == "model_version" and value is not None and not isinstance(value, int):
            raise DocumentError(what, "model_version is an integer.", "Pass an int.")
        if name == "opset_imports":
            if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, int) and v > 0 for k, v in value.items()
            ):
                raise DocumentError(what, "opset_imports maps domains to versions.", "Pass {'': 21, ...}.")
            value = dict(value)
        elif name != "model_version" and value is not None and not isinstance(value, str):
            raise DocumentError(what, f"{name} is a string.", "Pass a str.")
        do(SetOpsets(value) if name == "opset_imports" else c.SetModelField(name, value))


class SetOpsets:
    """Replace the model's opset imports (the graph shares them)."""

    def __init__(self, opsets: dict[str, int]) -> None:
        self.opsets = opsets

    def apply(self, ctx: Context) -> c.Command:
        old = dict(ctx.model.opset_imports)
        ctx.model.opset_imports.clear()
        ctx.model.opset_imports.update(self.opsets)
        ctx.changes.model_info = True
        return SetOpsets(old)
