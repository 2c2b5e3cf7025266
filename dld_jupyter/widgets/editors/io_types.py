"""The type of a graph input or output in the parameter editor (issue 26, item 4): its name, element type and
shape, edited as one undo step each. Before, a graph input added in the UI was float with no shape and could not
be retyped, so a model built from scratch (an int64 index input, say) stayed invalid.

Shape text: dims separated by commas, each a size (3), a symbolic name (batch) or ? (unknown); "scalar" for rank 0;
empty for an unknown rank. The view is a JSON dict drawn by js/src/widgets/editors/parameters.ts (mode "io").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.ids import kind_of

from .edit_error import EditError, as_edit_error

DTYPES = [t.name.lower() for t in ir.DataType if t != ir.DataType.UNDEFINED]


def io_id(doc: Document, selection: Sequence[str]) -> str | None:
    """The selected graph input or output when it is the only node selected."""
    if len(selection) != 1 or kind_of(selection[0]) not in ("input", "output"):
        return None
    try:
        doc.node(selection[0])
    except DocumentError:
        return None
    return selection[0]


def shape_text(shape: ir.Shape | None) -> str:
    if shape is None:
        return ""
    if len(shape) == 0:
        return "scalar"
    return ", ".join("?" if d is None else str(d) if isinstance(d, int) else str(d.value or "?") for d in shape)


def parse_shape(text: str) -> list[int | str | None] | None:
    """Shape text -> dims (None: unknown rank); raises EditError naming the bad dim."""
    text = text.strip().strip("[]()").strip()
    if not text:
        return None
    if text.lower() == "scalar":
        return []
    dims: list[int | str | None] = []
    for part in (p.strip() for p in text.split(",")):
        if part in ("?", ""):
            dims.append(None)
        elif part.isdigit():
            dims.append(int(part))
        elif part.isidentifier():
            dims.append(part)
        else:
            raise EditError("io:shape", f"{part!r} is not a dimension: use a size (3), a name (batch) or ?.")
    return dims


def view(doc: Document, node_id: str) -> dict[str, Any]:
    name, graph = doc.node(node_id).name, doc.model.graph
    value = next(v for v in (graph.inputs if kind_of(node_id) == "input" else graph.outputs) if v.name == name)
    dtype = value.dtype.name.lower() if value.dtype is not None else ""
    return {
        "mode": "io",
        "ids": [node_id],
        "kind": kind_of(node_id),
        "name": value.name or "",
        "dtype": dtype,
        "shape": shape_text(value.shape),
        "dtypes": DTYPES,
    }


def handle(doc: Document, node_id: str, msg: dict[str, Any]) -> None:
    """rename{text} | set_io_type{dtype, shape}: one undo step; raises EditError (document unchanged)."""
    kind = msg.get("kind")
    key = "name" if kind == "rename" else "io:shape" if "shape" in msg else "io:dtype"
    try:
        if kind == "rename":
            doc.rename_node(node_id, str(msg["text"]).strip())
        elif kind == "set_io_type":
            current = view(doc, node_id)
            dtype = str(msg.get("dtype", current["dtype"])) or "float"
            doc.set_io_type(node_id, dtype, parse_shape(str(msg.get("shape", current["shape"]))))
        else:
            raise EditError(key, f"A graph {kind_of(node_id)} has no {kind!r} edit.")
    except Exception as exc:
        raise as_edit_error(key, exc) from exc
