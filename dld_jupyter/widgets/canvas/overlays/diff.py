"""The diff overlay (js mirror: overlays/diff.ts): a structural diff drawn on the newer model's canvas.
`designer.compare_with(other)` lands here.

Added nodes and changed nodes are coloured on the canvas (each with its changes in the tooltip), collapsed groups
with the count of changes inside them; removed nodes, which this canvas does not hold, are listed in the legend,
as are changes of local functions and of the model. Next/previous walk the changes in graph order (the browser
asks the kernel to focus each: its groups expand). A structural edit makes the diff stale: it is cleared (the
overlay strip says so, strip.py); "Compare with…" again diffs the model as it is then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from dld_jupyter.widgets.canvas.overlays.marks import MarksOverlay, group_marks

if TYPE_CHECKING:
    from dld_jupyter.model_compare import ModelDiff

REMOVED_SHOWN = 200  # removed nodes listed in the legend at most (the count is always given)


class DiffOverlay(MarksOverlay):
    """The structural diff shown on the canvas of the diff's `b` side (`diff` None when none is)."""

    name: ClassVar[str] = "diff"
    label: ClassVar[str] = "Changes"
    again: ClassVar[str] = "Compare with… again"
    diff: ModelDiff | None = None
    source = ""

    def show(self, diff: ModelDiff, source: str) -> ModelDiff:
        """Mark the nodes of `diff` (positions in this canvas's document now) by their ids, which later edits keep."""
        self.diff, self.source = diff, source
        nodes = list(self.graph_canvas.document.model.graph)
        node_id = self.graph_canvas.document.node_id
        self.marks: dict[str, str] = {}
        self.details: dict[str, list[str]] = {}
        order: list[tuple[int, str]] = []
        for ref in diff.graph.added:
            if ref.index < len(nodes):
                self.marks[node_id(nodes[ref.index])] = "added"
                order.append((ref.index, node_id(nodes[ref.index])))
        for changed in diff.graph.changed:
            if changed.b.index < len(nodes):
                nid = node_id(nodes[changed.b.index])
                self.marks[nid] = "changed"
                self.details[nid] = [c.what for c in changed.changes]
                order.append((changed.b.index, nid))
        self.order = [nid for _, nid in sorted(order)]
        self.redraw()
        return diff

    def payload(self) -> dict[str, Any]:
        diff = self.diff
        assert diff is not None
        graph = diff.graph
        other = [f"function {k}: {v.headline()}" for k, v in diff.functions.items()]
        other += [f"function {k} added" for k in diff.added_functions]
        other += [f"function {k} removed" for k in diff.removed_functions]
        return {
            "source": self.source,
            "headline": diff.headline(),
            "marks": self.marks,
            "details": self.details,
            "order": self.order,
            "groups": group_marks(self.graph_canvas.view.grouping, self.marks),  # the grouping of the view now
            "removed": [f"{r.label} ({r.op_type})" for r in graph.removed[:REMOVED_SHOWN]],
            "removed_count": len(graph.removed),
            "other": other + graph.io + diff.model,
            "renamed": graph.renamed,
        }
