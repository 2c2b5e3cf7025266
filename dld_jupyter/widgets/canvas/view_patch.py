"""The patch that brings the browser from what it was sent to what is visible now: the canvas view's resync after
an expand, a collapse, shown constants or an arrange. A node whose parent or compound-ness changed is re-created
(cytoscape cannot change them), and with it its links.
"""

from __future__ import annotations

from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData
from dld_jupyter.widgets.canvas.view_events import Point

Drawn = tuple[dict[str, NodeData], dict[str, EdgeData], dict[str, Point]]  # nodes, edges, positions


def patch_between(sent: Drawn, now: Drawn) -> gp.PatchBuilder:
    """The patch from ``sent`` to ``now``."""
    old_n, old_e, old_pos = sent
    nodes, edges, pos = now
    pb = gp.PatchBuilder()
    recreated = [n for n in nodes if n in old_n and _reshaped(old_n[n], nodes[n])]
    # Removing a node removes its links in the browser: links of re-created nodes are sent again.
    again = set(recreated)
    redo = {e for e, d in edges.items() if e in old_e and (d["source"] in again or d["target"] in again)}
    pb.remove_edges([e for e in old_e if e not in edges or _recreated(old_e[e], edges[e]) or e in redo])
    pb.remove_nodes([n for n in old_n if n not in nodes])
    pb.add_nodes([nodes[n] for n in nodes if n not in old_n or n in recreated], pos)
    pb.update_nodes([nodes[n] for n in nodes if n in old_n and n not in recreated and old_n[n] != nodes[n]])
    pb.add_edges([d for e, d in edges.items() if e not in old_e or _recreated(old_e[e], d) or e in redo])
    pb.update_edges([d for e, d in edges.items()
                     if e in old_e and e not in redo and not _recreated(old_e[e], d) and old_e[e] != d])
    pb.move({n: p for n, p in pos.items() if n in old_n and n not in recreated and old_pos.get(n) != p})
    return pb


def _reshaped(old: NodeData, new: NodeData) -> bool:
    """A node whose element must be re-created (cytoscape cannot change a node's parent or compound-ness)."""
    return old["parent"] != new["parent"] or old["collapsed"] != new["collapsed"] or old["kind"] != new["kind"]


def _recreated(old: EdgeData, new: EdgeData) -> bool:
    return old["source"] != new["source"] or old["target"] != new["target"]

