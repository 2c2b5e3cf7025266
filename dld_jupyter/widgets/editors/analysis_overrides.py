"""Editor edits during analysis (seed 001 §4.3 "Runtime options"): while the designer analyses its model, an edit in
the Parameter editor (an attribute) or the tensor editor (an initializer, a tensor attribute) is an *analysis
override*: `Analysis.override` applies it to the running session only (never the document, never saved) and reruns
the model, so the Analysis panel's outputs and inspector follow. The views mark each overridden field ("override")
with its override value, and `revert_override` takes it back.

In a child document (a subgraph tab: an If branch, a Loop or Scan body, nested too) opened while analysing, an
attribute edit is an override of that node inside the analysed model's subgraph (`Analysis.override(...,
inside=(attribute, inner node name, …))`), and so is a tensor edit: a node's tensor attribute (a Constant's value)
or an initializer of the body (named through the first body node that reads it). Edits in a local function's body
(every call would change) are refused saying so.

Why one module beside `panels.EditorPanels._dispatch`: that is the one place every editor edit passes through; it
asks `route` first, so no field needs a case of its own, and the document's own edit code never sees an override.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dld_jupyter.document import ChildDocument, Document, SubgraphDocument
from dld_jupyter.document.edits.literals import format_literal, parse_array
from dld_jupyter.document.edits.tensors import MAX_EDIT_ELEMENTS

from . import parameters
from .attribute_text import from_text, to_text
from .edit_error import EditError, as_edit_error
from .initializers import load_npy
from .tensor_editor import TensorRef, _current

ROUTED = frozenset({"set_attr", "reset_attr", "revert_override", "tensor_set", "tensor_load"})
RESET_REFUSED = (
    "Resetting an attribute to its default is an edit of the model: Stop Analysis to reset it, or type the "
    "default value to override it for this analysis only."
)


def live_analysis(host: Any, doc: Document) -> Any:
    """The designer's live analysis of `doc`; for a child document, the live analysis holding its root; else None."""
    analysis = getattr(host, "analysis", None) if host is not None else None
    if analysis is not None and getattr(analysis, "live", False) and analysis.document is doc:
        return analysis
    root = doc
    while isinstance(root, ChildDocument):
        root = root.parent
    holders = doc._lock.holders if root is not doc else []
    live = [h for h in holders if getattr(h, "live", False) and hasattr(h, "override_values")]  # an Analysis
    return next((h for h in live if h.document is root), None)


def child_target(doc: Document, node_id: str, key: str = "attr") -> tuple[str, tuple[str, ...]]:
    """(the root document's node id, the subgraph path to it) of a node of `doc`; (node_id, ()) in the root."""
    node = doc.ir_node(node_id)
    name, inside, current = (node.name if node is not None else "") or "", list[str](), doc
    while isinstance(current, ChildDocument):
        if not isinstance(current, SubgraphDocument) or current.index is not None:
            raise EditError(key, "Analysis overrides reach subgraph documents only: a local function's body is "
                                 "shared by every call. Override the calling node's attributes instead.")
        if not name:
            raise EditError(key, "This node has no name, so the analysed model cannot find it: name it, then launch.")
        inside = [current.attribute, name, *inside]
        name, parent = current.owner.name or "", current.parent
        if not isinstance(parent, ChildDocument):
            return parent.node_id(current.owner), tuple(inside)
        current = parent
    return node_id, ()


def _held_key(analysis: Any, doc: Document, node_id: str) -> str | None:
    """How `analysis.override_values` names `doc`'s node (None: it cannot be overridden)."""
    try:
        root_id, inside = child_target(doc, node_id)
    except EditError:
        return None
    return str(analysis.member_key(root_id, inside)) if inside else root_id


def _reader(doc: Document, value_id: str) -> tuple[str, str]:
    """(a node that reads the initializer `value_id`, its name): an initializer override names a node reading it."""
    value = next((v for v in doc.model.graph.initializers.values() if doc.value_id(v) == value_id), None)
    users = [use.node for use in value.uses()] if value is not None else []
    main = [node for node in users if node.graph is doc.model.graph]
    if value is None or not main:
        raise EditError("tensor", "No node of this graph reads this initializer: nothing to override.")
    return doc.node_id(main[0]), str(value.name)


def _target(doc: Document, ref: TensorRef) -> tuple[str, str]:
    if ref.value_id is not None:
        return _reader(doc, ref.value_id)
    assert ref.node_id is not None and ref.attribute is not None
    return ref.node_id, ref.attribute


def _child_target(doc: Document, ref: TensorRef) -> tuple[str, tuple[str, ...], str]:
    """(root node id, subgraph path, member) of the open tensor of a child document: always the same node for an
    initializer (its first reader in the body), so one override of it is found again to revert or show."""
    node, member = _target(doc, ref)
    return (*child_target(doc, node, "tensor"), member)


def _child_tensor(analysis: Any, doc: Document, ref: TensorRef | None, kind: str, msg: dict[str, Any]) -> None:
    """A tensor edit (or its revert) in a child document as an override inside the analysed model's subgraph."""
    if ref is None:
        raise EditError("tensor", "No tensor is open.")
    root_id, inside, member = _child_target(doc, ref)
    if kind == "revert_override":
        if (analysis.member_key(root_id, inside), member) in analysis.override_values():
            analysis.revert(root_id, member, inside)
        return
    analysis.override(root_id, member, _edited(doc, ref, kind, msg), inside)


def _edited(doc: Document, ref: TensorRef, kind: str, msg: dict[str, Any]) -> Any:
    """The value a tensor_set (typed literal) or tensor_load (.npy) edit gives the open tensor, in its dtype (a list
    attribute's as a list)."""
    _dtype, current = _current(doc, ref)
    if kind == "tensor_set":
        if current.size > MAX_EDIT_ELEMENTS:
            raise EditError("tensor", f"Tensors above {MAX_EDIT_ELEMENTS:,} elements are replaced from a .npy file.")
        array = parse_array(str(msg.get("text", "")), current.dtype)
    else:
        array = np.asarray(load_npy(str(msg.get("path", "")), "tensor"), dtype=current.dtype)
    listed = ref.node_id is not None and not isinstance(doc.node(ref.node_id).attributes.get(str(ref.attribute)),
                                                        np.ndarray)
    return array.tolist() if listed else array


def route(analysis: Any, doc: Document, selection: Sequence[str], ref: TensorRef | None, msg: dict[str, Any]) -> None:
    """Apply one editor edit as an analysis override (or take one back); EditError when refused."""
    kind = str(msg.get("kind"))
    name = str(msg.get("name") or "")
    key = f"attr:{name}" if name else "tensor"
    try:
        if kind == "reset_attr":
            raise EditError(key, RESET_REFUSED)
        if kind == "set_attr":
            ids = parameters._op_ids(doc, selection)
            values = {nid: from_text(str(msg["text"]), *parameters._attr_type(doc, nid, name)) for nid in ids}
            for nid, value in values.items():
                root_id, inside = child_target(doc, nid, key)
                analysis.override(root_id, name, value, inside)
            return
        if isinstance(doc, ChildDocument):
            if kind != "revert_override" or not name:
                _child_tensor(analysis, doc, ref, kind, msg)
                return
            held = analysis.override_values()
            for nid in parameters._op_ids(doc, selection):
                root_id, inside = child_target(doc, nid, key)
                if (_held_key(analysis, doc, nid), name) in held:
                    analysis.revert(root_id, name, inside)
            return
        if kind == "revert_override":
            held = analysis.override_values()
            keys = [(nid, name) for nid in parameters._op_ids(doc, selection)] if name else []
            if not name and ref is not None:
                node, member = _target(doc, ref)
                keys = [k for k in held if k[1] == member and (k[0] == node or ref.value_id is not None)]
            for held_key in keys:
                if held_key in held:
                    analysis.revert(*held_key)
            return
        if ref is None:
            raise EditError("tensor", "No tensor is open.")
        node, member = _target(doc, ref)
        value = _edited(doc, ref, kind, msg)
        if ref.value_id is not None:  # one override of the initializer, whichever node it was made through
            for held_node, held_name in analysis.override_values():
                if held_name == member:
                    node = held_node
        analysis.override(node, member, value)
    except EditError:
        raise
    except Exception as exc:
        raise as_edit_error(key, exc) from exc


def decorate_params(view: dict[str, Any], analysis: Any, doc: Document | None = None) -> dict[str, Any]:
    """Mark the attribute rows an override of `analysis` holds for every selected node, showing its value."""
    held = analysis.override_values() if analysis is not None else {}
    if view.get("mode") != "nodes" or not held:
        return view
    ids = list(view.get("ids") or [])
    if isinstance(doc, ChildDocument):  # its nodes as the analysis names them
        ids = [_held_key(analysis, doc, nid) or f"{nid} (no override)" for nid in ids]
    for group in ("attributes", "defaults"):
        for row in view.get(group) or []:
            values = [held.get((nid, row["name"]), held) for nid in ids]
            if ids and all(v is not held for v in values):
                text = {
                    to_text(v.tolist() if isinstance(v, np.ndarray) and row["list"] else v, row["type"]) for v in values
                }
                row.update(
                    override=True, set=True, mixed=len(text) > 1, text=next(iter(text)) if len(text) == 1 else ""
                )
    return view


def decorate_tensor(view: dict[str, Any], doc: Document, ref: TensorRef | None, analysis: Any) -> dict[str, Any]:
    """Mark the open tensor when an override of `analysis` holds it, showing the override's values."""
    held = analysis.override_values() if analysis is not None else {}
    if not view.get("open") or ref is None or not held:
        return view
    try:
        if isinstance(doc, ChildDocument):
            root_id, inside, member = _child_target(doc, ref)
            node = analysis.member_key(root_id, inside)
        else:
            node, member = _target(doc, ref)
    except EditError:
        return view
    anywhere = ref.value_id is not None and not isinstance(doc, ChildDocument)  # a main initializer: any reader's
    found = [v for (n, m), v in held.items() if m == member and (n == node or anywhere)]
    if found:
        view.update(override=True, text=format_literal(np.asarray(found[0])), sparse=None, targets=[])
    return view
