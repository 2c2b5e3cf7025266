"""Edits of the model's function table: create a local function from scratch, delete one (seed 000 "Local
Functions": its instances stay in the graph as custom-domain operators). Each runs inside the caller's transaction
and validates before changing anything."""

from __future__ import annotations

from collections.abc import Iterable

import onnx_ir as ir

from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.structure_edits import Do
from dld_jupyter.document.functions.function_commands import import_domain, with_function
from dld_jupyter.document.functions.function_model import check_function_name, check_io_names, find_function

DEFAULT_OPSET = 21  # a function's default-domain opset when the model imports none


def starting_body(name: str, inputs: list[str], outputs: list[str], opset: int) -> ir.Graph:
    """The body of a new function: output j is Identity(input j), or of the last input when outputs outnumber them,
    so the function is valid (and a pass-through) before it is edited."""
    values = [ir.Value(name=n) for n in inputs]
    nodes = []
    for j, out in enumerate(outputs):
        node = ir.Node("", "Identity", [values[min(j, len(values) - 1)]], name=f"Identity_{j}")
        node.outputs[0].name = out
        nodes.append(node)
    return ir.Graph(values, [n.outputs[0] for n in nodes], nodes=nodes, opset_imports={"": opset}, name=name)


def create_function(
    ctx: Context, do: Do, name: str, domain: str, inputs: Iterable[str], outputs: Iterable[str]
) -> None:
    what = f"Create function {domain}::{name}"
    key = check_function_name(ctx.model, name, domain, what)
    ins, outs = check_io_names(inputs, outputs, what)
    opset = ctx.model.opset_imports.get("", DEFAULT_OPSET)
    function = ir.Function(domain, name, graph=starting_body(name, ins, outs, opset), attributes=[])
    do(with_function(ctx, key, function))
    imported = import_domain(ctx, domain)
    if imported is not None:
        do(imported)


def delete_function(ctx: Context, do: Do, name: str, domain: str, overload: str) -> None:
    """Remove the definition; instances keep their (domain, op_type) and become custom operators, so the model
    keeps importing the domain."""
    key = find_function(ctx.model, name, domain, overload, f"Delete function {domain}::{name}")
    do(with_function(ctx, key, None))
    imported = import_domain(ctx, domain)
    if imported is not None:
        do(imported)
