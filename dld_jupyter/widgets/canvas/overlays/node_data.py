"""The node-data overlay (js mirror: overlays/node_data.ts): a Model Explorer node-data file drawn on the canvas.
`designer.show_node_data(path)` and the "Open Node Data…" command land here.

The file's keys are Model Explorer ids (document/layout/explorer_ids.py: what its ONNX adapter calls each node), so a
file written by Model Explorer, by a plugin of it or by `dld … --node-data` lands on the same nodes here. Each node with
a value gets the file's colour for it, else its value's colour on the file's gradient (Model Explorer's default green →
red when it has none); the legend shows the gradient with the smallest and largest value, the file, and how many of its
keys matched a node. A file none of whose keys is a node of this model is refused, saying so. """

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from dld_jupyter.document import Document
from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
from dld_jupyter.widgets.canvas.overlays.marks import MarksOverlay, group_marks

if TYPE_CHECKING:
    from dld_jupyter.model_compare.node_data import NodeData

SHOWN_MISSING = 5  # keys of the file with no node, named in the legend at most (the count is always given)


def node_ids_by_explorer_id(document: Document) -> dict[str, str]:
    """Model Explorer id -> canvas node id, for every node of the document's main graph."""
    node_id = document.node_id
    graph = document.model.graph
    return {key: node_id(node) for key, node in zip(explorer_node_ids(graph), graph, strict=True)}


class NodeDataOverlay(MarksOverlay):
    """The node data shown on one canvas (`data` None when none is)."""

    name: ClassVar[str] = "node_data"
    label: ClassVar[str] = "Node data"
    again: ClassVar[str] = "open the node data again"
    data: NodeData | None = None
    source = ""

    def show(self, path: str | os.PathLike[str]) -> NodeData:
        """Read the file, match its keys to this model's nodes and draw it; ValueError when no key matches."""
        from dld_jupyter.model_compare.node_data import read_node_data_file  # its reader: not on a first view

        data = read_node_data_file(path)
        ids = node_ids_by_explorer_id(self.graph_canvas.document)
        matched = [key for key in data.values if key in ids]
        if not matched:
            sample = ", ".join(list(ids)[:3])
            raise ValueError(f"node data {os.fspath(path)}: 0 of its {len(data.values)} keys match a node of this "
                             f"model ({len(ids)} nodes, named like {sample}): it was written for another model, or "
                             "with other node names; export it again from this model")
        self.data, self.source, self.ids = data, Path(path).name, ids
        self.redraw()
        return data

    def payload(self) -> dict[str, Any]:
        from dld_jupyter.model_compare.node_data import gradient

        data = self.data
        assert data is not None
        ids = self.ids
        values = {ids[key]: value for key, value in data.values.items() if key in ids}
        colours = {ids[key]: colour for key, colour in data.colours.items() if key in ids}
        missing = [key for key in data.values if key not in ids]
        stops = data.gradient or [(item["stop"], item["bgColor"]) for item in gradient()]
        return {
            "source": self.source,
            "values": values,
            "colours": colours,
            "names": {ids[key]: key for key in data.values if key in ids},
            "gradient": [[stop, colour] for stop, colour in stops],
            "matched": len(values),
            "keys": len(data.values),
            "missing": missing[:SHOWN_MISSING],
            "groups": group_marks(self.graph_canvas.view.grouping, dict.fromkeys(values, "valued")),
        }
