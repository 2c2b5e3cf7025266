"""The diff overlay (js mirror: overlays/diff.ts): a structural diff drawn on the newer model's canvas.
`designer.compare_with(other)` lands here.

Added nodes and changed nodes are coloured on the canvas (each with its changes in the tooltip), collapsed groups
with the count of changes inside them; removed nodes, which this canvas does not hold, are listed in the legend,
as are changes of local functions and of the model. Next/previous walk the changes in graph order (the browser
asks the kernel to focus each: its groups expand). The diff is recomputed from the document on every view state,
so an edit made after "Compare with…" is reflected when the overlay is shown again (`designer.compare_with`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from dld_jupyter.compare import ModelDiff
from dld_jupyter.widgets.canvas.overlays.marks import MarksOverlay, group_marks

REMOVED_SHOWN = 200  # removed nodes listed in the legend at most (the count is always given)


class DiffOverlay(MarksOverlay):
    """The structural diff shown on the canvas of the diff's `b` side (`diff` None when none is)."""

    name: ClassVar[str] = "diff"
    diff: ModelDiff | None = None
    source = ""

    def show(self, diff: ModelDiff, source: str) -> ModelDiff:
        self.diff, self.source = diff, source
        self.redraw()
        return diff

    def payload(self) -> dict[str, Any]:
        diff = self.diff
        assert diff is not None
        graph = diff.graph
        nodes = list(self.graph_canvas.document.model.graph)
        node_id = self.graph_canvas.document.node_id
        marks: dict[str, str] = {}
        details: dict[str, list[str]] = {}
        order: list[tuple[int, str]] = []
        for ref in graph.added:
            if ref.index < len(nodes):
                marks[node_id(nodes[ref.index])] = "added"
                order.append((ref.index, node_id(nodes[ref.index])))
        for changed in graph.changed:
            if changed.b.index < len(nodes):
                nid = node_id(nodes[changed.b.index])
                marks[nid] = "changed"
                details[nid] = [c.what for c in changed.changes]
                order.append((changed.b.index, nid))
        other = [f"function {k}: {v.headline()}" for k, v in diff.functions.items()]
        other += [f"function {k} added" for k in diff.added_functions]
        other += [f"function {k} removed" for k in diff.removed_functions]
        return {
            "source": self.source,
            "headline": diff.headline(),
            "marks": marks,
            "details": details,
            "order": [nid for _, nid in sorted(order)],
            "groups": group_marks(self.graph_canvas.view.grouping, marks),
            "removed": [f"{r.label} ({r.op_type})" for r in graph.removed[:REMOVED_SHOWN]],
            "removed_count": len(graph.removed),
            "other": other + graph.io + diff.model,
            "renamed": graph.renamed,
        }
