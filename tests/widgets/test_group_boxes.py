"""Expanded group boxes as the page draws them never overlap a sibling (issue 42: SSDlite's `anchor_generator` and
`head` boxes did): cytoscape draws a compound node around its children's extent plus the style's padding, so the
kernel's layout must leave that much room."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from dld_jupyter.document import Document
from dld_jupyter.widgets.canvas.canvas_view import CanvasView
from dld_jupyter.widgets.canvas.graph_payload import GROUP_PADDING
from dld_jupyter.widgets.canvas.protocol import NodeData

ROOT = Path(__file__).resolve().parents[2]
SSDLITE = ROOT / "tests" / "data" / "real" / "ssdlite_tiny.onnx"
Box = tuple[float, float, float, float]


def drawn_boxes(nodes: list[NodeData], positions: list[tuple[float, float]]) -> dict[str, Box]:
    """Each expanded group's box the way cytoscape bounds a compound node: its children (nested boxes included)
    plus the padding on every side."""
    at = {node["id"]: (node, point) for node, point in zip(nodes, positions, strict=True)}
    children: dict[str, list[str]] = {}
    for node in nodes:
        if node.get("parent"):
            children.setdefault(str(node["parent"]), []).append(node["id"])
    boxes: dict[str, Box] = {}

    def box(group: str) -> Box:
        if group not in boxes:
            parts = []
            for child in children.get(group, []):
                node, (x, y) = at[child]
                if node["kind"] == "group" and not node.get("collapsed"):
                    parts.append(box(child))
                else:
                    w, h = node["width"] / 2, node["height"] / 2
                    parts.append((x - w, y - h, x + w, y + h))
            boxes[group] = (min(p[0] for p in parts) - GROUP_PADDING, min(p[1] for p in parts) - GROUP_PADDING,
                            max(p[2] for p in parts) + GROUP_PADDING, max(p[3] for p in parts) + GROUP_PADDING)
        return boxes[group]

    for node in nodes:
        if node["kind"] == "group" and not node.get("collapsed"):
            box(node["id"])
    return boxes


def overlap(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_sibling_group_boxes_of_the_expanded_detector_do_not_overlap() -> None:
    view = CanvasView(Document.open(SSDLITE), grouping="auto")
    for path in list(view.grouping.by_id.values()):
        view.grouping.expand(path)
    nodes, _edges, positions = view.snapshot()
    boxes = drawn_boxes(nodes, positions)
    parent = {node["id"]: node.get("parent") for node in nodes}
    assert {"g:anchor_generator", "g:head"} <= set(boxes) and len(boxes) > 100
    clashes = [(a, b) for a, b in itertools.combinations(sorted(boxes), 2) if parent[a] == parent[b]
               and overlap(boxes[a], boxes[b])]
    assert not clashes, f"sibling group boxes overlap: {clashes[:5]}"


def test_the_padding_is_the_one_the_page_draws() -> None:
    style = (ROOT / "js" / "src" / "widgets" / "canvas" / "style.ts").read_text()
    expanded = style[style.index('selector: "node.group.expanded"'):]
    drawn = re.search(r'padding: "(\d+)px"', expanded)
    assert drawn and float(drawn.group(1)) == GROUP_PADDING
