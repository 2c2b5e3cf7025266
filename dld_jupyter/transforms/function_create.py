"""Create Function from Selection: the selected nodes become the body of a new local function and are replaced by
one instance of it, as one undo step.

Cases handled, in order:
1. only operator nodes count; none is refused, and so is a taken (domain, name) or a reserved domain;
2. the selection must be convex: a node outside it on a path between two selected nodes is refused (the instance
   would read its own output);
3. inputs, in order of first read: every value a selected node (or a subgraph inside one) reads that no selected
   node makes. Initializers and graph inputs read inside become function inputs too, and the instance passes them:
   the weights stay in the model's initializer table (external data, FP16 conversion, sanitize and the weights'
   editors keep working on them), one definition can serve several instances with different weights (how the
   exporters write functions, ShuffleNet's InvertedResidual included), and nothing is copied into the body;
4. outputs: every value made inside that a node outside reads or that is a graph output; none is refused. A value
   read from inside a subgraph of an outside node is refused (no link would follow it);
5. the body is a copy of the selected nodes (names, attributes, subgraphs, value types kept); the function imports
   the model's versions of the domains its nodes use; the model imports the new domain;
6. the instance takes the place and the tensor names of the selection (graph outputs keep their names), sits at
   the centre of the selected nodes, and the graph stays topologically sorted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import onnx_ir as ir
from onnx_ir import _cloner

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits import structure_commands as gc
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.functions.function_commands import import_domain, with_function
from dld_jupyter.document.functions.function_model import FunctionKey, check_function_name
from dld_jupyter.document.subgraphs.nested_graphs import subgraphs
from dld_jupyter.transforms.function_body import FreshNames
from dld_jupyter.transforms.transform import Do, EditPlan, Requirement, Transform, selected_ops


@dataclass(frozen=True)
class Cut:
    key: FunctionKey
    nodes: list[ir.Node]  # graph order
    inputs: list[ir.Value]
    outputs: list[ir.Value]
    position: tuple[float, float] | None


def _outer_reads(graph: ir.Graph, nodes: list[ir.Node]) -> list[ir.Value]:
    """Values of ``graph`` read by nodes inside the subgraphs of ``nodes``."""
    return [
        value
        for sub in subgraphs(nodes)
        for node in sub
        for value in node.inputs
        if value is not None and value.graph is graph
    ]


def _refuse_paths_outside(graph: ir.Graph, chosen: set[ir.Node], what: str) -> None:
    stack = [use.node for node in chosen for out in node.outputs for use in out.uses() if use.node not in chosen]
    seen: set[ir.Node] = set()
    while stack:
        node = stack.pop()
        if node in seen or node.graph is not graph:
            continue
        seen.add(node)
        for out in node.outputs:
            for use in out.uses():
                if use.node in chosen:
                    raise DocumentError(
                        what,
                        f"node {node.name or node.op_type!r} lies outside the selection, on a path between selected"
                        " nodes.",
                        "Add it to the selection, or select fewer nodes.",
                    )
                stack.append(use.node)


def analyse(doc: Document, node_ids: list[str], name: str, domain: str) -> Cut:
    what = CreateFunctionFromSelection.label
    graph = doc.model.graph
    key = check_function_name(doc.model, name, domain, what)
    chosen_set = {n for n in (doc.ir_node(i) for i in selected_ops(doc, node_ids)) if n is not None}
    if not chosen_set:
        raise DocumentError(what, "no operator of the graph is selected.", "Select the nodes first.")
    nodes = [node for node in graph if node in chosen_set]
    _refuse_paths_outside(graph, chosen_set, what)
    made = {out for node in nodes for out in node.outputs}
    reads = [v for node in nodes for v in node.inputs if v is not None] + _outer_reads(graph, nodes)
    inputs = list(dict.fromkeys(v for v in reads if v not in made))
    outputs: list[ir.Value] = []
    for node in nodes:
        for out in node.outputs:
            outside = [use.node for use in out.uses() if use.node not in chosen_set]
            if any(user.graph is not graph for user in outside):
                raise DocumentError(
                    what,
                    f"{out.name!r} is read inside a subgraph of a node outside the selection.",
                    "Add the node owning that subgraph to the selection.",
                )
            if outside or out.is_graph_output():
                outputs.append(out)
    if not outputs:
        raise DocumentError(
            what, "nothing outside the selection reads what it makes.", "Select nodes with used outputs."
        )
    for value in (*inputs, *outputs):
        if not value.name:
            raise DocumentError(what, "a value crossing the selection has no name.", "Name it (Rename tensor) first.")
    spots = [doc.node(doc.node_id(n)).position for n in nodes]
    placed = [p for p in spots if p is not None]
    position = (sum(p[0] for p in placed) / len(placed), sum(p[1] for p in placed) / len(placed)) if placed else None
    return Cut(key, nodes, inputs, outputs, position)


def body_of(doc: Document, cut: Cut) -> ir.Function:
    """A copy of the selected nodes as a function over fresh input values named like the values they stand for."""
    value_map: dict[ir.Value, ir.Value | None] = {
        v: ir.Value(name=v.name, type=v.type, shape=v.shape.copy() if v.shape is not None else None) for v in cut.inputs
    }
    fn_inputs = [value_map[v] for v in cut.inputs]
    cloner = _cloner.Cloner(attr_map={}, value_map=value_map, metadata_props={})
    body = [cloner.clone_node(node) for node in cut.nodes]
    imports = doc.model.opset_imports
    domains = {""} | {node.domain for node in cut.nodes}
    graph = ir.Graph(
        [v for v in fn_inputs if v is not None],
        [value_map[v] for v in cut.outputs],  # type: ignore[misc]
        nodes=body,
        opset_imports={d: imports.get(d, 1) for d in sorted(domains)},
        name=cut.key[1],
    )
    return ir.Function(cut.key[0], cut.key[1], graph=graph, attributes=[])


def replace_with_instance(ctx: Context, do: Do, cut: Cut, function: ir.Function) -> ir.Node:
    domain, name, _ = cut.key
    fresh = FreshNames(ctx.names)
    instance = ir.Node(domain, name, (), num_outputs=len(cut.outputs), name=fresh.node(name))
    for new, old in zip(instance.outputs, cut.outputs, strict=True):
        new.name = fresh.value(f"{old.name}_call")
        new.type, new.shape = old.type, old.shape.copy() if old.shape is not None else None
    do(with_function(ctx, cut.key, function))
    imported = import_domain(ctx, domain)
    if imported is not None:
        do(imported)
    do(gc.InsertNode(instance, cut.nodes[-1]))
    do(gc.SetInputs(instance, tuple(cut.inputs)))
    swap = dict(zip(cut.outputs, instance.outputs, strict=True))
    chosen = set(cut.nodes)
    users = {use.node: None for old in cut.outputs for use in old.uses() if use.node not in chosen}
    for user in users:
        do(gc.SetInputs(user, tuple(swap.get(v, v) if v is not None else None for v in user.inputs)))
    if any(v in swap for v in ctx.graph.outputs):
        do(gc.SetGraphOutputs(tuple(swap.get(v, v) for v in ctx.graph.outputs)))
    for node in cut.nodes:
        if node.inputs:
            do(gc.SetInputs(node, ()))
    for node in reversed(cut.nodes):
        do(gc.RemoveNode(node))
    for new, old in zip(instance.outputs, cut.outputs, strict=True):
        do(c.RenameValue(new, old.name))
    if any(not gc.precedes(ctx.graph, instance, user) for user in users):
        do(gc.SortGraph())
    if cut.position is not None:
        do(c.SetPositions(((ctx.ids.node_id(instance), cut.position),)))
    return instance


class CreateFunctionFromSelection(Transform):
    name: ClassVar[str] = "create_function"
    label: ClassVar[str] = "Create Function from Selection"
    requires = frozenset({Requirement.SELECTION})

    def plan(self, doc: Document, **args: Any) -> EditPlan[str]:
        """`node_ids`: the selection; `name`, `domain`: the new function's. Returns the instance's node id."""
        self.check(doc, **args)
        doc.functions.require_main_model(self.label)
        cut = analyse(doc, list(args["node_ids"]), args.get("name", ""), args.get("domain", ""))
        function = body_of(doc, cut)

        def edit(ctx: Context, do: Do) -> str:
            return ctx.ids.node_id(replace_with_instance(ctx, do, cut, function))

        return EditPlan(f"{self.label} {cut.key[0]}::{cut.key[1]}", edit)


def create_function_from_selection(doc: Document, node_ids: list[str], name: str, domain: str) -> str:
    """The selected nodes become local function ``domain::name`` and one instance of it (one undo step); returns
    the instance's node id."""
    result: str = CreateFunctionFromSelection().apply(doc, node_ids=node_ids, name=name, domain=domain)
    return result
