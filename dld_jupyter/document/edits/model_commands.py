"""Model-level edits beyond set_model_info: the IR version, and swapping the whole model (run through
``Document.edit``, one undo step)."""

from __future__ import annotations

from dataclasses import dataclass

import onnx
import onnx_ir as ir

from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.edits.structure_edits import Do
from dld_jupyter.document.layout.metadata import node_keys
from dld_jupyter.document.model.endpoints import (
    edges_into,
    has_input_node,
    input_node_id,
    outer_node_id,
    outer_values,
    output_node_id,
    source_of,
)
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.ids import edge_id
from dld_jupyter.document.model.names import NameIndex

MIN_IR_VERSION = 3  # the first IR version with opset imports


@dataclass(frozen=True)
class SetIrVersion:
    version: int

    def apply(self, ctx: Context) -> Command:
        old = ctx.model.ir_version
        ctx.model.ir_version = self.version
        ctx.changes.model_info = True
        return SetIrVersion(old)


def set_ir_version(ctx: Context, do: Do, version: int) -> None:
    """Set the model's IR version (3 .. the installed onnx's newest)."""
    newest = onnx.IR_VERSION
    if not isinstance(version, int) or isinstance(version, bool) or not MIN_IR_VERSION <= version <= newest:
        raise DocumentError(
            "Set IR version", f"{version!r} is not in {MIN_IR_VERSION}..{newest}.", f"Pick {MIN_IR_VERSION}..{newest}."
        )
    if version != ctx.model.ir_version:
        do(SetIrVersion(version))


def _census(ctx: Context) -> tuple[list[str], list[str], list[str]]:
    """The node ids (I/O and op), link ids and initializer ids of the context's graph, as drawn."""
    ids, graph = ctx.ids, ctx.graph
    nodes = [input_node_id(ids, v) for v in graph.inputs if has_input_node(v)]
    nodes.extend(outer_node_id(ids, v) for v in outer_values(graph))
    edges: list[str] = []
    for node in graph:
        nodes.append(ids.node_id(node))
        edges.extend(edges_into(ids, graph, node))
    for value in graph.outputs:
        nodes.append(output_node_id(ids, value))
        src = source_of(ids, graph, value)
        if src is not None:
            edges.append(edge_id(src[0], src[1], output_node_id(ids, value), 0))
    return nodes, edges, [ids.value_id(v) for v in graph.initializers.values()]


@dataclass(frozen=True)
class ReplaceModel:
    """Swap the whole model (and the canvas positions) for another: how model-wide transforms whose engine works on
    a copy (Polygraphy's FP16 conversion and constant folding) become one undoable step. The inverse swaps back the
    very same objects, so undo restores the old ids too; every old node and link is reported removed, every new one
    added."""

    model: ir.Model
    positions: tuple[tuple[str, tuple[float, float]], ...]

    def apply(self, ctx: Context) -> Command:
        inverse = ReplaceModel(ctx.model, tuple(ctx.positions.items()))
        old_nodes, old_edges, old_inits = _census(ctx)
        old_keys = {key: nid for nid, key in node_keys(ctx.model.graph, ctx.ids).items()}
        ctx.model = self.model
        ctx.names = NameIndex(self.model.graph)
        ctx.positions.clear()
        ctx.positions.update(self.positions)
        new_nodes, new_edges, new_inits = _census(ctx)
        for nid, key in node_keys(self.model.graph, ctx.ids).items():
            if key in old_keys:
                ctx.changes.twins[nid] = old_keys[key]
        for node_id in old_nodes:
            ctx.changes.node(node_id, True, False)
        for node_id in new_nodes:
            ctx.changes.node(node_id, False, True)
        for eid in old_edges:
            ctx.changes.edge(eid, True, False)
        for eid in new_edges:
            ctx.changes.edge(eid, False, True)
        for value_id in (*old_inits, *new_inits):
            ctx.changes.initializers[value_id] = None
        ctx.changes.model_info = True
        return inverse
