"""Inline Function: an instance of a local function is replaced by a copy of the function's body, as one undo step.

Cases handled, in order:
1. the node must be an operator of the graph that calls a local function of the model;
2. the body's domains must be imported by the model at the function's versions (a missing import is added; a
   different version is refused);
3. the copy reads the instance's inputs (an omitted one stays omitted); reference attributes take the instance's
   attribute, else the parameter's default, else are dropped (the ONNX rule for an unset parameter); subgraphs
   inside the body are copied with their reads rewired;
4. every node and internal tensor gets a fresh unique name, prefixed by the instance's name;
5. the values the instance made keep their names (graph outputs too): the body's producer of each takes it over;
   a function output that is a function input, or the same value as an earlier output, gets an Identity;
6. the copied nodes are laid out by depth around the instance's position; the definition stays in the model.
"""

from __future__ import annotations

from typing import Any, ClassVar

import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits import structure_commands as gc
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.functions.function_body import resolved_body
from dld_jupyter.document.model.ids import kind_of
from dld_jupyter.transforms.function_body import FreshNames, body_imports
from dld_jupyter.transforms.transform import Do, EditPlan, Transform

ROW, COLUMN = 90.0, 200.0


def instance_of(doc: Document, node_id: str, what: str) -> tuple[ir.Node, ir.Function]:
    node = doc.ir_node(node_id) if kind_of(node_id) == "op" else None
    if node is None:
        raise DocumentError(what, f"{node_id!r} is not an operator of the graph.", "Pick a function instance.")
    function = doc.model.functions.get((node.domain, node.op_type, node.overload))
    if function is None:
        raise DocumentError(
            what, f"{node.name or node_id!r} ({node.op_type}) is not a local function instance.", "Pick one with f(x)."
        )
    return node, function


def _layout(nodes: list[ir.Node], at: tuple[float, float]) -> dict[ir.Node, tuple[float, float]]:
    depth: dict[ir.Node, int] = {}
    for node in nodes:
        producers = [v.producer() for v in node.inputs if v is not None]
        depth[node] = 1 + max((depth[p] for p in producers if p in depth), default=-1)
    rows: dict[int, list[ir.Node]] = {}
    for node in nodes:
        rows.setdefault(depth[node], []).append(node)
    out: dict[ir.Node, tuple[float, float]] = {}
    for level, row in rows.items():
        for k, node in enumerate(row):
            out[node] = (at[0] + COLUMN * (k - (len(row) - 1) / 2), at[1] + ROW * level)
    return out


def inline(ctx: Context, do: Do, instance: ir.Node, function: ir.Function) -> list[ir.Node]:
    what = InlineFunction.label
    for command in body_imports(ctx, function, what):
        do(command)
    fresh = FreshNames(ctx.names)
    stem = instance.name or instance.op_type
    n_in = len(instance.inputs)
    inputs = {v: (instance.inputs[i] if i < n_in else None) for i, v in enumerate(function.inputs)}

    def rename(node: ir.Node) -> None:
        node.name = fresh.node(f"{stem}_{node.name or node.op_type}")
        for out in node.outputs:
            out.name = fresh.value(f"{stem}_{out.name}") if out.name else ""

    nodes = resolved_body(list(function), function.attributes, instance, inputs, rename)
    copies = dict(zip(function, nodes, strict=True))
    made = {old: new for body, copy in copies.items() for old, new in zip(body.outputs, copy.outputs, strict=True)}
    results: list[ir.Value] = []
    for k, out in enumerate(function.outputs):
        value = made.get(out)
        if value is None or value in results:
            source = value if value is not None else inputs.get(out)
            if source is None:
                raise DocumentError(what, f"function output {k} is made by nothing.", "Open the function and fix it.")
            identity = ir.Node("", "Identity", [source], name=fresh.node(f"{stem}_Identity"))
            identity.outputs[0].name = fresh.value(f"{stem}_output_{k}")
            nodes.append(identity)
            value = identity.outputs[0]
        results.append(value)
    for value, old in zip(results, instance.outputs, strict=True):
        value.type, value.shape = old.type, old.shape.copy() if old.shape is not None else None
    wiring = [tuple(node.inputs) for node in nodes]
    after: ir.Node = instance
    for node in nodes:
        for i in range(len(node.inputs)):
            node.replace_input_with(i, None)
        node.resize_inputs(0)
        do(gc.InsertNode(node, after))
        after = node
    for node, wired in zip(nodes, wiring, strict=True):
        if wired:
            do(gc.SetInputs(node, wired))
    swap = dict(zip(instance.outputs, results, strict=True))
    users = {use.node: None for old in instance.outputs for use in old.uses()}
    for user in users:
        if user.graph is not ctx.graph:
            raise DocumentError(what, "a subgraph reads the instance's output.", "Edit that subgraph first.")
        do(gc.SetInputs(user, tuple(swap.get(v, v) if v is not None else None for v in user.inputs)))
    if any(v in swap for v in ctx.graph.outputs):
        do(gc.SetGraphOutputs(tuple(swap.get(v, v) for v in ctx.graph.outputs)))
    if instance.inputs:
        do(gc.SetInputs(instance, ()))
    at = ctx.positions.get(ctx.ids.node_id(instance))
    do(gc.RemoveNode(instance))
    for value, old in zip(results, instance.outputs, strict=True):
        if old.name:
            do(c.RenameValue(value, old.name))
    if at is not None:
        spots = _layout(nodes, at)
        do(c.SetPositions(tuple((ctx.ids.node_id(n), p) for n, p in spots.items())))
    return nodes


class InlineFunction(Transform):
    name: ClassVar[str] = "inline_function"
    label: ClassVar[str] = "Inline Function"

    def plan(self, doc: Document, **args: Any) -> EditPlan[list[str]]:
        """`node_id`: the instance. Returns the node ids of the copied body."""
        instance, function = instance_of(doc, str(args.get("node_id", "")), self.label)

        def edit(ctx: Context, do: Do) -> list[str]:
            return [ctx.ids.node_id(node) for node in inline(ctx, do, instance, function)]

        return EditPlan(f"{self.label} {instance.name or instance.op_type}", edit)


def inline_function(doc: Document, node_id: str) -> list[str]:
    """Replace the function instance ``node_id`` by its body (one undo step); returns the new nodes' ids."""
    result: list[str] = InlineFunction().apply(doc, node_id=node_id)
    return result
