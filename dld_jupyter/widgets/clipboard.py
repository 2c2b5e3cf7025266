"""Copy / cut / paste of canvas nodes, kept in the kernel (one clipboard per kernel: paste into another model works).

Copied: op type, domain, attributes, relative positions, the links between copied nodes, and initializer bindings
(re-bound on paste into the same document). Links to nodes outside the selection are not copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.document import Document, DocumentError


@dataclass
class _Item:
    op_type: str
    domain: str
    attributes: dict[str, Any]
    offset: tuple[float, float]
    initializers: dict[int, str] = field(default_factory=dict)  # input index -> value id


@dataclass
class _Clip:
    source: int  # id() of the document copied from
    items: list[_Item]
    links: list[tuple[int, int, int, int]]  # (src item, output, dst item, input)


_clip: _Clip | None = None


def copy(doc: Document, node_ids: list[str]) -> int:
    global _clip
    views = [doc.node(n) for n in node_ids if not n.startswith("g:")]
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
    items: list[_Item] = []
    links: list[tuple[int, int, int, int]] = []
    for i, (v, p) in enumerate(zip(views, points, strict=True)):
        item = _Item(v.op_type, v.domain, dict(v.attributes), (p[0] - cx, p[1] - cy))
        for t in v.inputs:
            if t.value_id in produced:
                src, out = produced[t.value_id]
                links.append((src, out, i, t.index))
            elif t.state == "initializer" and t.value_id:
                item.initializers[t.index] = t.value_id
        items.append(item)
    _clip = _Clip(id(doc), items, links)
    return len(items)


def paste(doc: Document, at: tuple[float, float]) -> list[str]:
    if _clip is None:
        raise DocumentError("Paste", "the clipboard is empty.", "Copy or cut nodes first.")
    clip = _clip
    new: list[str] = []
    with doc.transaction(f"Paste {len(clip.items)} node{'s' if len(clip.items) != 1 else ''}"):
        for item in clip.items:
            nid = doc.add_node(item.op_type, item.domain, position=(at[0] + item.offset[0], at[1] + item.offset[1]))
            new.append(nid)
            for name, value in item.attributes.items():
                if isinstance(value, str) and value.startswith("@"):
                    continue  # a reference attribute only means something inside its function
                doc.set_attribute(nid, name, value)
            if clip.source == id(doc):
                for index, value_id in item.initializers.items():
                    doc.connect_initializer(value_id, nid, index)
        for src, out, dst, inp in clip.links:
            doc.connect(new[src], out, new[dst], inp)
    return new
