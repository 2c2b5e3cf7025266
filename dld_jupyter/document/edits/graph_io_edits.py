"""New graph inputs and outputs from a node's terminal: a free input terminal gets a new typed graph input, an
output becomes a graph output (renamed when asked). Validated first, then applied through ``do`` like every
structural edit (structure_edits.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits import structure_commands as gc
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.structure_edits import (
    Do,
    check_value_name,
    input_formal,
    op_node,
    set_input,
    source_value,
)
from dld_jupyter.document.model.endpoints import input_node_id, output_node_id
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.ids import IO_KINDS, kind_of


def _dtype(dtype: Any, what: str) -> ir.DataType:
    if dtype is None:
        return ir.DataType.FLOAT
    if isinstance(dtype, ir.DataType):
        return dtype
    try:
        if isinstance(dtype, str):
            key = {"float32": "FLOAT", "float64": "DOUBLE", "bool": "BOOL"}.get(dtype.lower(), dtype.upper())
            return ir.DataType[key]
        return ir.DataType.from_numpy(np.dtype(dtype))
    except (KeyError, TypeError) as exc:
        raise DocumentError(what, f"unknown element type {dtype!r}.", "Use e.g. 'float', 'int64'.") from exc


def add_graph_input(ctx: Context, do: Do, node_id: str, index: int, name: str | None, dtype: Any, shape: Any) -> str:
    what = "Add graph input"
    node = op_node(ctx, node_id, what)
    formal = input_formal(ctx, node, index, what)
    if index < len(node.inputs) and node.inputs[index] is not None:
        raise DocumentError(what, f"input {index} is already connected.", "Pick a free terminal.")
    name = check_value_name(ctx, name, what) if name else ctx.names.unique_value_name(formal.name)
    element = _dtype(dtype, what)
    dims = None
    if shape is not None:
        try:
            dims = ir.Shape([d if d is None or isinstance(d, str) else int(d) for d in shape])
        except (TypeError, ValueError) as exc:
            raise DocumentError(what, f"bad shape {shape!r}.", "Use a list of ints/str/None.") from exc
    value = ir.Value(name=name, type=ir.TensorType(element), shape=dims)
    do(gc.SetGraphInputs((*ctx.graph.inputs, value)))
    set_input(ctx, do, node, index, value)
    return input_node_id(ctx.ids, value)


def add_graph_output(ctx: Context, do: Do, node_id: str, index: int, name: str | None) -> str:
    what = "Add graph output"
    if kind_of(node_id) not in IO_KINDS:
        node = op_node(ctx, node_id, what)
        if index < len(node.outputs) and node.outputs[index].is_graph_output():
            raise DocumentError(what, f"output {index} is already a graph output.", "Pick a free terminal.")
    value = source_value(ctx, do, node_id, index, what)
    if value.is_graph_output():
        raise DocumentError(what, "this value is already a graph output.", "Pick a free terminal.")
    if name and name != value.name:
        do(c.RenameValue(value, check_value_name(ctx, name, what)))
    do(gc.SetGraphOutputs((*ctx.graph.outputs, value)))
    return output_node_id(ctx.ids, value)
