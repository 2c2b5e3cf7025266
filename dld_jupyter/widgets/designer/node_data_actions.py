"""The Designer's node data, both ways with Model Explorer: `show_node_data(path)` draws a node-data file on this
canvas (overlays/node_data.py), `export_node_data(path)` writes what the canvas shows (heat, divergence or diff) as
one, keyed by the ids Model Explorer's ONNX adapter gives this model's nodes (document/layout/explorer_ids.py).

A mixin of Designer (designer.py), as compare_actions.py is; "Open Node Data…" (frontdoor/comparisons.py, the
JupyterLab command) lands on `show_node_data`.
"""

from __future__ import annotations

import os
import pathlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the overlays load when node data is first shown or exported (a first view: issue 42)
    from dld_jupyter.document import Document
    from dld_jupyter.model_compare.node_data import NodeData
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas

KINDS = ("heat", "divergence", "diff")


class NodeDataActions:
    """Designer methods for Model Explorer node data."""

    canvas: GraphCanvas  # what the Designer provides
    if TYPE_CHECKING:

        @property
        def document(self) -> Document: ...

    def show_node_data(self, path: str | os.PathLike[str]) -> NodeData:
        """Colour this canvas by a Model Explorer node-data file (GraphNodeData, or a ModelNodeData of one graph);
        refused, saying how many keys matched, when none of its keys is a node of this model."""
        if not str(path).strip():
            raise ValueError("Open Node Data…: type the node-data file's path (a Model Explorer .json).")
        from dld_jupyter.widgets.canvas.overlays.node_data import NodeDataOverlay

        found = self.canvas.overlays.get(NodeDataOverlay.name)
        overlay = found if isinstance(found, NodeDataOverlay) else NodeDataOverlay(self.canvas)
        return overlay.show(str(path).strip())

    def clear_node_data(self) -> None:
        from dld_jupyter.widgets.canvas.overlays.node_data import NodeDataOverlay

        found = self.canvas.overlays.get(NodeDataOverlay.name)
        if isinstance(found, NodeDataOverlay) and found.shown:
            found.clear()

    def export_node_data(self, path: str | os.PathLike[str], what: str | None = None) -> pathlib.Path:
        """Write what this canvas shows as Model Explorer node data: `what` "heat" (the heat's metric),
        "divergence" or "diff"; None: the one shown (refused when none or several are)."""
        shown = {name: overlay for name, overlay in self._shown().items() if what in (None, name)}
        if what is not None and what not in KINDS:
            raise ValueError(f"export_node_data: what={what!r} is not one of {KINDS}")
        if len(shown) != 1:
            have = ", ".join(self._shown()) or "none"
            raise ValueError(f"export_node_data: {'nothing' if not shown else 'several things'} to export "
                             f"(shown: {have}); show a heat, divergence or diff, or say which with what=")
        from dld_jupyter.model_compare.node_data import mark_node_data, to_node_data, write_node_data  # when used
        from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
        from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay
        from dld_jupyter.widgets.canvas.overlays.heat import HeatOverlay
        from dld_jupyter.widgets.canvas.overlays.node_data import node_ids_by_explorer_id

        (overlay,) = shown.values()
        ids = node_ids_by_explorer_id(self.document)
        by_node = {node: key for key, node in ids.items()}
        if isinstance(overlay, HeatOverlay):
            from dld_jupyter.reports.heat_node_data import heat_node_data

            assert overlay.heat is not None
            data = heat_node_data(overlay.heat.report, self.document.model.graph, overlay.metric)
        elif isinstance(overlay, DivergenceOverlay):
            assert overlay.divergence is not None
            side = None if overlay.side == "reference" else self._candidate_ids()
            data = to_node_data(overlay.divergence, side)
        else:
            assert isinstance(overlay, DiffOverlay)
            data = mark_node_data(list(ids), {by_node[n]: mark for n, mark in overlay.marks.items() if n in by_node})
        return write_node_data(data, path)

    def _candidate_ids(self) -> dict[str, str]:
        """A comparison's label of each node of this canvas's model -> its Model Explorer id."""
        from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
        from dld_jupyter.model_compare.graph_index import label

        graph = self.document.model.graph
        return {label(node, i): key for i, (node, key) in enumerate(zip(graph, explorer_node_ids(graph), strict=True))}

    def _shown(self) -> dict[str, Any]:
        from dld_jupyter.widgets.canvas.overlays.diff import DiffOverlay
        from dld_jupyter.widgets.canvas.overlays.divergence import DivergenceOverlay
        from dld_jupyter.widgets.canvas.overlays.heat import HeatOverlay

        shown: dict[str, Any] = {}
        for name, kind in zip(KINDS, (HeatOverlay, DivergenceOverlay, DiffOverlay), strict=True):
            overlay = self.canvas.overlays.get(kind.name)
            heat = isinstance(overlay, HeatOverlay) and overlay.heat is not None
            if heat or (isinstance(overlay, DiffOverlay | DivergenceOverlay) and overlay.shown):
                shown[name] = overlay
        return shown
