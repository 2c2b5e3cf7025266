"""What the comparison overlays share (diff.py, divergence.py; js mirror: overlays/marks.ts): a result keyed by ONNX
node becomes marks on canvas element ids, and each name-scope group gets the summary of the marks inside it, so a
collapsed group says what changed or diverged within (hierarchy-aware, as the heat's group sums are).

The browser asks for a node with the action "focus" (a table row, next/previous change): the kernel expands the
groups around it, selects and centres it (GraphCanvas.focus), as a report's layer link does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dld_jupyter.document import Document
from dld_jupyter.model_compare.graph_index import label
from dld_jupyter.reports.heat import group_members
from dld_jupyter.widgets.canvas.grouping import Grouping, group_id
from dld_jupyter.widgets.canvas.overlays.base import Overlay
from dld_jupyter.widgets.canvas.protocol import OverlayMessage

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas


def ids_by_label(document: Document) -> dict[str, str]:
    """Canvas node id of every main-graph node, by the label the comparison uses (its name, else `Op #index`)."""
    node_id = document.node_id
    return {label(node, i): node_id(node) for i, node in enumerate(document.model.graph)}


def group_marks(grouping: Grouping, marked: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """Group id -> {mark: count of members with it} for every group holding a marked node."""
    if not grouping.enabled:
        return {}
    paths = {node: grouping.path.get(node, ()) for node in marked}
    out: dict[str, dict[str, int]] = {}
    for path, members in group_members(paths).items():
        counts: dict[str, int] = {}
        for member in members:
            counts[marked[member]] = counts.get(marked[member], 0) + 1
        out[group_id(path)] = counts
    return out


class MarksOverlay(Overlay):
    """An overlay whose state is one "set" message built from the document (None: nothing shown)."""

    def __init__(self, canvas: GraphCanvas) -> None:
        super().__init__(canvas)
        self.graph_canvas = canvas
        self.shown = False

    def payload(self) -> dict[str, Any]:
        raise NotImplementedError

    def state(self) -> tuple[OverlayMessage, list[bytes]] | None:
        return (self.message("set", self.payload()), []) if self.shown else None

    def redraw(self) -> None:
        self.shown = True
        self.strip_add()  # the strip first: the browser knows whether to draw it when its state comes
        found = self.state()
        if found is not None:
            self.send(*found)

    def clear(self) -> None:
        self.shown = False
        self.send(self.message("clear"))
        self.strip_remove()

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        if message["action"] == "focus":
            node = str(message.get("id", ""))
            if node:
                self.graph_canvas.focus([node])
