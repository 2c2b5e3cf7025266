"""The divergence overlay (js mirror: overlays/divergence.ts): a divergence run drawn on one side's canvas.
`designer.show_divergence(result)` and `designer.check_against_original()` land here.

Each paired node is coloured by the run's metric on a green → red scale between the tolerance and the worst value
(past the tolerance: red end; the first node past it outlined), collapsed groups by how many of their nodes are
past it; the legend names the metric, the tolerance and the first node. The per-node table (`table_rows`) is shown
apart, where it has the page's width (widgets/results/divergence_table.py: a tab beside the designer, or below
it). Rows are keyed on the canvas by the side this canvas shows: `side="candidate"` after an edit (the canvas
holds the edited model), `side="reference"` for the original.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from dld_jupyter.widgets.canvas.overlays.marks import MarksOverlay, group_marks, ids_by_label

if TYPE_CHECKING:
    from dld_jupyter.model_compare import Divergence

Side = Literal["reference", "candidate"]


def _number(value: float) -> float | str:
    return value if math.isfinite(value) else str(value)


def table_rows(result: Divergence, side: Side) -> list[dict[str, Any]]:
    """One row per compared output, in execution order, named as the `side` canvas names its nodes: what the canvas
    colours and what the divergence table (widgets/results/divergence_table.py) lists."""
    worst = result.by_node()
    rows = []
    for row in result.rows:
        m = row.metrics
        rows.append({"node": row.node if side == "reference" else row.candidate_node, "op": row.op_type,
                     "order": row.order, "output": row.output, "max_abs": _number(m.max_abs),
                     "max_rel": _number(m.max_rel), "cosine": _number(m.cosine), "sqnr": _number(m.sqnr),
                     "nan": m.nan, "inf": m.inf, "over": row.over, "value": _number(m.value(result.metric)),
                     "error": m.error, "worst": worst.get(row.node) is row})
    return rows


def first_row(result: Divergence) -> int | None:
    """The index of the first row past the tolerance (execution order), None when none is."""
    first = result.first
    return next((i for i, row in enumerate(result.rows) if row is first), None)


class DivergenceOverlay(MarksOverlay):
    """The divergence shown on one canvas (`divergence` None when none is)."""

    name: ClassVar[str] = "divergence"
    label: ClassVar[str] = "Divergence"
    again: ClassVar[str] = "run the divergence again"
    divergence: Divergence | None = None
    side: Side = "candidate"
    source = ""

    def show(self, divergence: Divergence, side: Side = "candidate", source: str = "") -> Divergence:
        if side not in ("reference", "candidate"):
            raise ValueError(f"side={side!r}: the canvas shows the 'reference' or the 'candidate' model")
        self.divergence, self.side, self.source = divergence, side, source
        self.redraw()
        return divergence

    def payload(self) -> dict[str, Any]:
        result = self.divergence
        assert result is not None
        ids = ids_by_label(self.graph_canvas.document)
        rows = [{"id": ids.get(row["node"]), **row} for row in table_rows(result, self.side)]
        marks = {row["id"]: "over" if row["over"] else "within" for row in rows if row["id"] and row["worst"]}
        first = result.first
        first_key = None if first is None else (first.node if self.side == "reference" else first.candidate_node)
        return {
            "source": self.source,
            "metric": result.metric,
            "tolerance": result.tolerance,
            "headline": result.headline(),
            "first": ids.get(first_key) if first_key else None,
            "first_name": first_key,
            "first_row": first_row(result),
            "rows": rows,
            "groups": group_marks(self.graph_canvas.view.grouping, marks),
        }
