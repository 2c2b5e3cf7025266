"""The kernel's clipboard of canvas nodes: what Copy/Cut put there and the `paste` transform reads.

One clipboard per kernel, so a paste into another model works. Copied: op type, domain, attributes, relative
positions, the links between copied nodes, and initializer bindings (re-bound on paste into the same document).
Links to nodes outside the selection are not copied. Copying changes no document, so it is no transform itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.ids import kind_of


@dataclass
class ClipItem:
    op_type: str
    domain: str
    attributes: dict[str, Any]
    offset: tuple[float, float]
    initializers: dict[int, str] = field(default_factory=dict)  # input index -> value id


@dataclass
class Clip:
    source: int  # id() of the document copied from
    items: list[ClipItem]
    links: list[tuple[int, int, int, int]]  # (src item, output, dst item, input)


_clip: Clip | None = None


def has_clip() -> bool:
    return _clip is not None


def current_clip() -> Clip | None:
    return _clip


def copy_selection(doc: Document, node_ids: list[str]) -> int:
    """Put the selected operators on the clipboard; returns how many were copied."""
    global _clip
    views = [doc.node(n) for n in node_ids if kind_of(n) != "group"]
    views = [v for v in views if v.kind == "op"]
    if not views:
        raise DocumentError("Copy", "no operator is selected.", "Select nodes (inputs/outputs are not copied).")
    points = [v.position or (i * 180.0, 0.0) for i, v in enumerate(views)]
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    produced: dict[str, tuple[int, int]] = {}
    for i, v in enumerate(views):
        for t in v.outputs:
            if t.value_id:
                produced[t.value_id] = (i, t.index)
    items: list[ClipItem] = []
    links: list[tuple[int, int, int, int]] = []
    for i, (v, p) in enumerate(zip(views, points, strict=True)):
        item = ClipItem(v.op_type, v.domain, dict(v.attributes), (p[0] - cx, p[1] - cy))
        for t in v.inputs:
            if t.value_id in produced:
                src, out = produced[t.value_id]
                links.append((src, out, i, t.index))
            elif t.state == "initializer" and t.value_id:
                item.initializers[t.index] = t.value_id
        items.append(item)
    _clip = Clip(id(doc), items, links)
    return len(items)
