"""A structural diff's table (a results_table.ResultsTable): every added, changed and removed node with what changed,
then the changes of local functions, graph inputs/outputs and the model, in graph order. `designer.compare_with`
opens it beside the designer (a JupyterLab tab) or below it (a notebook); a click on an added or changed node's row
focuses it on the canvas (a removed node is not in this model). The canvas legend listed only removed nodes, in a
250 px box over the graph (issue 42).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dld_jupyter.document import Document
from dld_jupyter.widgets.results.results_table import Column, ResultsTable

if TYPE_CHECKING:
    from dld_jupyter.model_compare import ModelDiff

COLUMNS = (Column("position", "#", numeric=True), Column("change", "Change"), Column("label", "Node", wrap=True),
           Column("op", "Op"), Column("what", "What changed", wrap=True))


def diff_rows(diff: ModelDiff, document: Document) -> list[dict[str, Any]]:
    """The rows of `diff` whose newer side is `document` (its nodes focused by id); removed nodes and the other
    changes after the nodes of this model."""
    nodes = list(document.model.graph)

    def node_id(index: int) -> str | None:
        return document.node_id(nodes[index]) if index < len(nodes) else None

    graph = diff.graph
    rows: list[dict[str, Any]] = [{"position": ref.index, "change": "added", "label": ref.label, "op": ref.op_type,
                                   "what": "", "node": node_id(ref.index), "mark": "added"} for ref in graph.added]
    rows += [{"position": c.b.index, "change": "changed", "label": c.b.label, "op": c.b.op_type,
              "what": "; ".join(change.what for change in c.changes), "node": node_id(c.b.index), "mark": "changed",
              "title": "; ".join(change.what for change in c.changes)} for c in graph.changed]
    rows.sort(key=lambda row: int(row["position"]))
    rows += [{"position": None, "change": "removed", "label": ref.label, "op": ref.op_type,
              "what": f"was #{ref.index} of the older model", "node": None, "mark": "removed",
              "title": "not in this model"} for ref in graph.removed]
    other = [("function", key, value.headline()) for key, value in diff.functions.items()]
    other += [("function", key, "added") for key in diff.added_functions]
    other += [("function", key, "removed") for key in diff.removed_functions]
    other += [("graph", "inputs/outputs", text) for text in graph.io] + [("model", "", text) for text in diff.model]
    rows += [{"position": None, "change": kind, "label": name, "op": "", "what": what, "node": None, "mark": ""}
             for kind, name, what in other]
    return rows


def diff_table(diff: ModelDiff, document: Document, source: str,
               on_focus: Callable[[str], object] | None = None) -> ResultsTable:
    """The table of `diff` (`source`: the older model's name) on `document`'s designer."""
    rows = diff_rows(diff, document)
    return ResultsTable("diff", COLUMNS, rows, f"Changes: {source}" if source else "Changes",
                        f"{source} → this model: {diff.headline()}" if source else diff.headline(),
                        0 if rows else None, on_focus)
