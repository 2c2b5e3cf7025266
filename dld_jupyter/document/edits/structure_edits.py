"""Structural edits: add/remove nodes, connect/disconnect terminals (new graph inputs and outputs: graph_io_edits.py).

What a subgraph reads across its boundary (a link no edge shows) is checked by nested_graphs.py.

Each function validates first (raising DocumentError before any change), then applies primitive commands
through ``do`` inside the caller's transaction (which rolls back if a later step fails).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits import structure_commands as gc
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.model.endpoints import has_input_node, has_outer_node
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.ids import IO_KINDS, kind_of, value_of_node
from dld_jupyter.document.model.names import is_c90_identifier
from dld_jupyter.document.operators.signature import Formal, Signature, node_signature, op_signature
from dld_jupyter.document.subgraphs.nested_graphs import reaches, refuse_subgraph_users

Do = Callable[[c.Command], None]


# ---------------------------------------------------------------- lookups


def op_node(ctx: Context, node_id: str, what: str) -> ir.Node:
    if kind_of(node_id) in IO_KINDS:
        kind = "an outer-reference" if kind_of(node_id) == "outer" else "a graph input/output"
        raise DocumentError(what, f"{node_id!r} is {kind} node, not an operator.", "Pick an op node.")
    node = ctx.ids.node(node_id)
    if node.graph is not ctx.graph:
        raise DocumentError(what, f"node {node_id!r} is not in the graph (removed).", "Refresh the view.")
    return node


def io_value(ctx: Context, node_id: str, what: str) -> ir.Value:
    """The value of an input (``i``), output (``o``) or outer-reference (``r``) node drawn now."""
    value = ctx.ids.value(value_of_node(node_id))
    kind = kind_of(node_id)
    if kind == "outer":
        alive = has_outer_node(ctx.graph, value)
    else:
        alive = (has_input_node(value) if kind == "input" else value.is_graph_output()) and value.graph is ctx.graph
    if not alive:
        raise DocumentError(what, f"{node_id!r} is not a graph input/output or outer reference now.", "Refresh.")
    return value


def _formal(sig: Signature | None, formals_of: str, index: int, count: int) -> Formal | None:
    """The formal parameter behind terminal ``index``; None when the terminal does not exist."""
    if sig is None:
        return Formal(f"{formals_of}_{index}", True, False) if index <= count else None
    formals = sig.inputs if formals_of == "input" else sig.outputs
    if not formals:
        return None
    last = formals[-1]
    if last.variadic and index >= len(formals) - 1:
        return last if index <= max(len(formals) - 1, count) else None
    if index < len(formals):
        return formals[index]
    return Formal(f"{formals_of}_{index}", True, False) if index < count else None


def input_formal(ctx: Context, node: ir.Node, index: int, what: str) -> Formal:
    formal = _formal(node_signature(ctx.model, node), "input", index, len(node.inputs))
    if formal is None or index < 0:
        raise DocumentError(what, f"{node.op_type} has no input terminal {index}.", "Use a terminal index shown.")
    return formal


def source_value(ctx: Context, do: Do, node_id: str, index: int, what: str) -> ir.Value:
    """The value leaving output terminal ``index`` of ``node_id``, growing the node's outputs if needed."""
    if kind_of(node_id) in ("input", "outer"):
        value = io_value(ctx, node_id, what)
        if index != 0:
            raise DocumentError(what, "an input or outer node has one output terminal (0).", "Use index 0.")
        return value
    if kind_of(node_id) == "output":
        raise DocumentError(what, "an output node has no output terminal.", "Start the link from an op or input.")
    node = op_node(ctx, node_id, what)
    if 0 <= index < len(node.outputs):
        return node.outputs[index]
    sig = node_signature(ctx.model, node)
    formal = _formal(sig, "output", index, len(node.outputs))
    if formal is None or index < 0 or sig is None:
        raise DocumentError(what, f"{node.op_type} has no output terminal {index}.", "Use a terminal index shown.")
    names: list[str] = []
    for i in range(len(node.outputs), index + 1):
        f = _formal(sig, "output", i, len(node.outputs)) or formal
        names.append(ctx.names.unique_value_name(f"{node.name or node.op_type}_{f.name}", set(names)))
    do(gc.ResizeOutputs(node, index + 1, tuple(names)))
    return node.outputs[index]


# ---------------------------------------------------------------- helpers


def _is_variadic_slot(ctx: Context, node: ir.Node, index: int) -> bool:
    sig = node_signature(ctx.model, node)
    return bool(sig and sig.inputs and sig.inputs[-1].variadic and index >= len(sig.inputs) - 1)


def inputs_without(ctx: Context, node: ir.Node, indices: Iterable[int]) -> tuple[ir.Value | None, ...]:
    """The node's inputs with ``indices`` emptied (variadic slots removed) and trailing empties dropped."""
    drop = set(indices)
    out: list[ir.Value | None] = []
    for i, value in enumerate(node.inputs):
        if i in drop:
            if not _is_variadic_slot(ctx, node, i):
                out.append(None)
        else:
            out.append(value)
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _keep_sorted(ctx: Context, do: Do, producer: ir.Node | None, consumer: ir.Node) -> None:
    """Restore a topological node order when ``consumer`` now comes before its new ``producer``."""
    if producer is None or producer.graph is not ctx.graph or gc.precedes(ctx.graph, producer, consumer):
        return
    do(gc.SortGraph())


def set_input(ctx: Context, do: Do, node: ir.Node, index: int, value: ir.Value) -> None:
    inputs = list(node.inputs)
    inputs.extend([None] * (index + 1 - len(inputs)))
    inputs[index] = value
    do(gc.SetInputs(node, tuple(inputs)))
    _keep_sorted(ctx, do, value.producer(), node)


# ---------------------------------------------------------------- edits


def add_node(
    ctx: Context, do: Do, op_type: str, domain: str, name: str | None, position: tuple[float, float] | None
) -> str:
    what = f"Add {op_type}"
    domain = "" if domain == "ai.onnx" else domain
    at = None if position is None else check_position(position, what)
    function = ctx.model.functions.get((domain, op_type, ""))
    if domain not in ctx.model.opset_imports and function is None:
        raise DocumentError(
            what,
            f"the model does not import the domain {domain!r}.",
            f"Import it first: doc.set_model_info(opset_imports={{..., {domain!r}: <version>}}).",
        )
    sig = node_signature(ctx.model, ir.Node(domain, op_type, ())) if function else None
    if sig is None:
        sig = op_signature(op_type, domain, ctx.model.opset_imports.get(domain))
    if sig is None:
        raise DocumentError(
            what,
            f"no operator {op_type!r} in domain {domain or 'ai.onnx'!r} at opset "
            f"{ctx.model.opset_imports.get(domain)}.",
            "Pick an operator from the palette (registry.ops_for(doc.model.opset_imports)).",
        )
    if name is None:
        name = ctx.names.unique_node_name(op_type)
    else:
        check_node_name(ctx, name, what)
    count = 0
    for formal in sig.outputs:
        if formal.optional:
            break
        count += 1
    count = max(count, 1 if sig.outputs else 0)
    taken: set[str] = set()
    out_names = []
    for formal in sig.outputs[:count]:
        out_names.append(ctx.names.unique_value_name(f"{name}_{formal.name}", taken))
        taken.add(out_names[-1])
    node = ir.Node(domain, op_type, (), name=name, num_outputs=count)
    for value, value_name in zip(node.outputs, out_names, strict=True):
        value.name = value_name
    last = next(reversed(ctx.graph), None) if len(ctx.graph) else None
    do(gc.InsertNode(node, last))
    nid = ctx.ids.node_id(node)
    if at is not None:
        do(c.SetPositions(((nid, at),)))
    return nid


def check_position(position: Any, what: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in position)
    except (TypeError, ValueError) as exc:
        raise DocumentError(what, f"{position!r} is not an (x, y) pair.", "Pass two numbers.") from exc
    if not (np.isfinite(x) and np.isfinite(y)):
        raise DocumentError(what, f"{position!r} is not finite.", "Pass finite coordinates.")
    return x, y


def check_node_name(ctx: Context, name: str, what: str, node: ir.Node | None = None) -> None:
    if not isinstance(name, str) or not is_c90_identifier(name):
        raise DocumentError(
            what,
            f"{name!r} is not a valid C90 identifier.",
            "Use letters, digits and underscores, not starting with a digit, not a C keyword.",
        )
    if ctx.names.node_count(name) > 0 and (node is None or node.name != name):
        raise DocumentError(what, f"another node is already named {name!r}.", "Choose a unique name.")


def remove_nodes(ctx: Context, do: Do, node_ids: Iterable[str]) -> None:
    what = "Remove nodes"
    ops: dict[ir.Node, None] = {}
    inputs: list[ir.Value] = []
    outputs: list[ir.Value] = []
    outers: list[ir.Value] = []  # removing an outer reference unlinks its readers; the enclosing value stays
    for nid in node_ids:
        kind = kind_of(nid)
        if kind == "input":
            inputs.append(io_value(ctx, nid, what))
        elif kind == "outer":
            outers.append(io_value(ctx, nid, what))
        elif kind == "output":
            outputs.append(io_value(ctx, nid, what))
        else:
            ops[op_node(ctx, nid, what)] = None
    doomed = set(ops)
    gone_values = [out for node in ops for out in node.outputs] + inputs
    refuse_subgraph_users(ctx, gone_values, ops, what)
    consumers: dict[ir.Node, list[int]] = {}
    gone_values += outers
    for value in gone_values:
        for use in value.uses():
            if use.node not in doomed and use.node.graph is ctx.graph:
                consumers.setdefault(use.node, []).append(use.idx)
    for consumer, indices in consumers.items():
        do(gc.SetInputs(consumer, inputs_without(ctx, consumer, indices)))
    drop_out = set(outputs) | {v for v in gone_values if v.is_graph_output()}
    if drop_out:
        do(gc.SetGraphOutputs(tuple(v for v in ctx.graph.outputs if v not in drop_out)))
    if inputs:
        do(gc.SetGraphInputs(tuple(v for v in ctx.graph.inputs if v not in set(inputs))))
    order = [node for node in ctx.graph if node in doomed] if len(doomed) > 1 else list(doomed)
    for node in reversed(order):
        if node.inputs:
            do(gc.SetInputs(node, ()))
        do(gc.RemoveNode(node))


def connect(ctx: Context, do: Do, src_id: str, src_index: int, dst_id: str, dst_index: int) -> None:
    what = f"Connect {src_id}:{src_index} to {dst_id}:{dst_index}"
    if kind_of(dst_id) in ("input", "output"):
        raise DocumentError(
            what,
            "graph inputs have no input terminal and graph outputs are bound to one value.",
            "Use add_graph_output on the source terminal instead.",
        )
    node = op_node(ctx, dst_id, what)
    input_formal(ctx, node, dst_index, what)
    current = node.inputs[dst_index] if dst_index < len(node.inputs) else None
    if current is not None and not current.is_initializer():
        raise DocumentError(
            what,
            f"input {dst_index} of {node.name or dst_id} is already linked (one link per input).",
            "Disconnect it first.",
        )
    if kind_of(src_id) not in IO_KINDS:
        # The node order is always topological, so a producer placed before the consumer cannot close a loop.
        src_node = op_node(ctx, src_id, what)
        if src_node is node or (not gc.precedes(ctx.graph, src_node, node) and reaches(ctx.graph, node, src_node)):
            raise DocumentError(what, "the link would create a cycle.", "Link to a node that is not downstream.")
    value = source_value(ctx, do, src_id, src_index, what)
    set_input(ctx, do, node, dst_index, value)


def connect_value(ctx: Context, do: Do, value: ir.Value, dst_id: str, dst_index: int, what: str) -> None:
    """Bind an initializer to a free (or initializer-bound) input terminal."""
    node = op_node(ctx, dst_id, what)
    input_formal(ctx, node, dst_index, what)
    current = node.inputs[dst_index] if dst_index < len(node.inputs) else None
    if current is not None and not current.is_initializer():
        raise DocumentError(what, f"input {dst_index} is linked to another node.", "Disconnect it first.")
    set_input(ctx, do, node, dst_index, value)


def disconnect(ctx: Context, do: Do, dst_id: str, dst_index: int) -> None:
    what = f"Disconnect {dst_id}:{dst_index}"
    if kind_of(dst_id) == "output":
        raise DocumentError(what, "a graph output is always bound to its value.", "Remove the output node.")
    node = op_node(ctx, dst_id, what)
    if not (0 <= dst_index < len(node.inputs)) or node.inputs[dst_index] is None:
        raise DocumentError(what, f"input {dst_index} is not connected.", "Pick a linked terminal.")
    do(gc.SetInputs(node, inputs_without(ctx, node, [dst_index])))


def check_value_name(ctx: Context, name: str, what: str) -> str:
    if not isinstance(name, str) or not name or not name.isprintable():
        raise DocumentError(what, f"{name!r} is not a usable tensor name.", "Use a non-empty printable name.")
    if ctx.names.value_count(name) > 0:
        raise DocumentError(what, f"a tensor is already named {name!r}.", "Choose a unique name.")
    return name
