"""What a check's inferred types change in the read-model: the check (checks.py, often off the main thread) names
values by their names in the model; the document keeps them by value id, and every value whose inferred type or
shape changed redraws, with the edges it feeds (their labels carry the type)."""

from __future__ import annotations

from collections.abc import Mapping

from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.model.endpoints import edges_from_value
from dld_jupyter.document.model.events import Changes

Inferred = dict[str, tuple[str | None, list[int | str] | None]]


def adopt(ctx: Context, old: Inferred, by_name: Mapping[str, tuple[str | None, list[int | str] | None]]) -> tuple[
    Inferred, Changes
]:
    """The inferred types of ``by_name`` keyed by value id (dtypes lower-cased) and the changes that make the views
    redraw what differs from ``old``."""
    graph, ids = ctx.model.graph, ctx.ids
    values = {value.name: value for value in (*graph.inputs, *graph.initializers.values())}
    values.update((out.name, out) for node in graph for out in node.outputs)
    new: Inferred = {
        ids.value_id(values[name]): (dtype.lower() if dtype else None, shape)
        for name, (dtype, shape) in by_name.items()
        if name in values
    }
    stale = Changes()
    for value_id in {k for k in (*old, *new) if old.get(k) != new.get(k)}:
        Context(ctx.model, ids, ctx.names, changes=stale).value_changed(ids.value(value_id))
        stale.edges.update({edge: [True, True] for edge in edges_from_value(ids, graph, ids.value(value_id))})
    return new, stale
