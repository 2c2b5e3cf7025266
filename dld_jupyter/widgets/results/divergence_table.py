"""A divergence run's per-node table (a results_table.ResultsTable): every compared output in execution order,
opened at the first node past the tolerance, any column sortable, a row's click focusing its node on the designer's
canvas. `designer.show_divergence` opens it beside the designer (a JupyterLab tab) or below it (a notebook); it was
a 640 px box floating over the canvas (issue 42).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dld_jupyter.widgets.canvas.overlays.divergence import Side, first_row, table_rows
from dld_jupyter.widgets.results.results_table import Column, ResultsTable

if TYPE_CHECKING:
    from dld_jupyter.model_compare import Divergence

COLUMNS = (Column("order", "#", numeric=True), Column("label", "Node", wrap=True), Column("op", "Op"),
           Column("max_abs", "Max abs", True, True), Column("max_rel", "Max rel", True, True),
           Column("cosine", "Cosine", True), Column("sqnr", "SQNR dB", True), Column("nan", "NaN", True, True),
           Column("inf", "Inf", True, True))


def divergence_table(divergence: Divergence, side: Side = "candidate", source: str = "",
                     on_focus: Callable[[str], object] | None = None) -> ResultsTable:
    """The table of `divergence` as the `side` canvas names its nodes; `on_focus(node)` runs on a row's click."""
    rows = []
    for row in table_rows(divergence, side):
        label = f"{row['node']} :{row['output']}" if row["output"] else row["node"]
        title = row["error"] or ("past the tolerance" if row["over"] else "")
        rows.append({**row, "label": label, "mark": "over" if row["over"] else "",
                     "title": title})
    first = first_row(divergence)
    if first is not None:
        rows[first]["title"] = rows[first]["title"] or "The first node past the tolerance in execution order"
    below = divergence.metric in ("cosine", "sqnr")
    summary = (f"{divergence.metric} {'below' if below else 'above'} {divergence.tolerance:g} is past the tolerance. "
               f"{divergence.headline()}")
    return ResultsTable("div", COLUMNS, rows, f"Divergence: {source}" if source else "Divergence", summary, first,
                        on_focus)
