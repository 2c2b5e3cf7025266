"""Subgraph documents in the notebook Designer (issue 19) on the real scripted-GRU export (a Loop with an If inside):
the glyph's intents list and open the Loop body in a child designer shown in the root designer's document tabs; the
parent is read-only meanwhile and says why; an edit in the body confirmed with Confirm Subgraph Edits lands in the
parent as one undo step; closing with unconfirmed edits asks; the parameter editor links, creates and opens
subgraphs; Extract Model Subgraph writes a model onnxruntime runs."""

from __future__ import annotations

from pathlib import Path

import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.document import DocumentError
from dld_jupyter.frontdoor.children import CONFIRM_EDITS, OPEN_SUBGRAPH
from dld_jupyter.widgets.designer.designer import Designer, open_designer

GRU = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"


def intent(designer: Designer, action: str, **args: object) -> dict[str, object]:
    return designer.canvas.handle_intent({"request": 1, "action": action, "args": args})


def loop_id(designer: Designer) -> str:
    return next(n.id for n in designer.document.nodes() if n.op_type == "Loop")


def body_names(designer: Designer) -> set[str]:
    body = designer.document.ir_node(loop_id(designer)).attributes["body"].value
    return {node.name for node in body}


def test_open_edit_confirm_undo_from_the_canvas() -> None:
    d = open_designer(GRU)
    loop = loop_id(d)
    assert d.canvas.view.node_data(loop)["subgraphs"] == ["body"]  # the glyph shows its open button
    slots = intent(d, "subgraph_slots", node=loop)
    assert slots["ok"] and slots["data"] == {
        "slots": [{"attribute": "body", "index": None, "name": "sub_graph", "node_count": 60}]
    }
    reply = intent(d, "open_subgraph", node=loop, attribute="body", index=None)
    assert reply["ok"], reply["error"]
    child = d.family.active
    assert child is not d and child.parent_designer is d and child.document.kind == "subgraph"
    assert "Read-only" in d.banner.value and "open for editing" in d.banner.value
    assert d.side_dock.body.layout.display == "none" and child.layout.display is None  # the body is the shown document
    assert "▸" in d.family.bar.children[0].value and d.family.bar.layout.display == ""
    # The parent refuses edits and says why, in the reply the canvas shows.
    refused = intent(d, "rename", node=loop, name="renamed")
    assert not refused["ok"] and "open for editing" in str(refused["error"])
    # Outer references are their own nodes ("outer: x"), not graph inputs.
    child.canvas._send_snapshot()
    outer = [n for n in child.canvas.view.sent_nodes.values() if n["kind"] == "outer"]
    assert outer and all(n["name"].startswith("outer: ") for n in outer)
    assert "initializers" in child.editors.disabled_tabs
    info = child.editors.params["child"]  # no node selected: what the document is, not model fields
    assert info["kind"] == "subgraph" and "x" in info["outer"] and info["confirm"] == "Confirm Subgraph Edits"
    first = next(n for n in child.document.nodes() if n.kind == "op")
    assert intent(child, "rename", node=first.id, name="renamed_in_body")["ok"]
    assert "renamed_in_body" not in body_names(d)
    CONFIRM_EDITS(child)
    assert "renamed_in_body" in body_names(d)
    assert d.document.history[-1] == "Confirm Subgraph Edits" and not child.document.dirty
    child.close()
    assert d.family.members == [d] and d.document.read_only is None and d.banner.value == ""
    assert d.side_dock.body.layout.display is None  # the model shown again: its canvas and dock
    d.document.undo()
    assert "renamed_in_body" not in body_names(d)


def test_close_with_unconfirmed_edits_asks() -> None:
    d = open_designer(GRU)
    child = d.open_subgraph("/Loop", "body")  # a node name works as well as an id
    first = next(n for n in child.document.nodes() if n.kind == "op")
    child.document.rename_node(first.id, "edited")
    child.request_close()
    ask = child.ask.children[0]
    assert "unconfirmed edits" in ask.children[0].value
    buttons = {b.description: b for b in ask.children[1].children}
    assert set(buttons) == {"Confirm Subgraph Edits", "Discard", "Cancel"}
    buttons["Cancel"].click()
    assert child.ask.children == () or (list(child.ask.children) == [] and not child.document.closed)
    child.request_close()
    {b.description: b for b in child.ask.children[0].children[1].children}["Discard"].click()
    assert child.document.closed and d.family.members == [d] and "edited" not in body_names(d)


def test_nested_subgraph_and_a_refused_confirm_shown_in_the_widget() -> None:
    d = open_designer(GRU)
    body = OPEN_SUBGRAPH(d, node=loop_id(d), attribute="body")
    assert isinstance(body, Designer)
    inner = next(n for n in body.document.nodes() if n.subgraphs)
    branch = body.open_subgraph(inner.id, inner.subgraphs[0])
    assert branch.parent_designer is body and d.family.active is branch and len(d.family.members) == 3
    assert " ▸ " in d.family.bar.children[0].value
    with pytest.raises(DocumentError):  # a child of the body is still open
        body.confirm()
    assert "dld-child-error" in body.ask.children[0].value
    body.close()  # closes the branch too
    assert d.family.members == [d] and branch.document.closed


def test_parameter_editor_links_create_and_open() -> None:
    d = open_designer(GRU)
    loop = loop_id(d)
    d.canvas.selection = [loop]
    row = next(r for r in d.editors.params["attributes"] if r["name"] == "body")
    assert row["subgraphs"] == [{"index": None, "name": "sub_graph", "node_count": 60}]
    assert d.editors.handle({"kind": "open_subgraph", "attribute": "body", "index": None})
    child = d.family.active
    assert child.document.title.endswith("body")
    child.close()
    # "+": a fresh body with a unique name, opened at once; one undo step of the model.
    assert d.editors.handle({"kind": "create_subgraph", "attribute": "body", "name": "fresh_body", "open": True})
    assert d.family.active.document.kind == "subgraph"
    d.family.active.close()
    assert d.document.ir_node(loop).attributes["body"].value.name == "fresh_body"
    d.document.undo()
    assert d.document.ir_node(loop).attributes["body"].value.name == "sub_graph"


def test_extract_model_subgraph_dialog(tmp_path: Path) -> None:
    d = open_designer(GRU)
    dialog = d.child_panel("extract_model_subgraph")
    assert d.tools.children == (dialog,)
    assert dialog.subgraph.value == ("body", None)
    dialog.path.value = str(tmp_path / "body.onnx")
    written = dialog.extract()
    onnx.checker.check_model(onnx.load(written), full_check=True)
    session = ort.InferenceSession(str(written), providers=["CPUExecutionProvider"])  # loads: ORT accepts it
    assert "x" in {i.name for i in session.get_inputs()}  # the outer reference became an input
    assert "Extracted to" in dialog.message.value


def test_a_child_opened_through_the_document_api_shows_the_banner() -> None:
    d = open_designer(GRU)
    body = d.document.subgraphs.open(loop_id(d), "body")  # not through the designer
    assert "open for editing" in d.banner.value
    body.close()
    assert d.banner.value == ""


def test_create_a_duplicate_of_another_branch() -> None:
    d = open_designer(GRU)
    body = d.open_subgraph("/Loop", "body")
    branch_if = next(n.id for n in body.document.nodes() if n.op_type == "If")
    body.canvas.selection = [branch_if]
    row = next(r for r in body.editors.params["attributes"] if r["name"] == "else_branch")
    then = next(x["slot"] for x in row["duplicates"] if x["label"].startswith("then_branch"))
    assert body.editors.handle(
        {"kind": "create_subgraph", "attribute": "else_branch", "name": "else_copy", "duplicate_of": then}
    )
    slots = {s.attribute: s for s in body.document.subgraphs.slots(branch_if)}
    assert slots["else_branch"].name == "else_copy" and slots["else_branch"].node_count == 6


def test_a_child_designer_docks_where_its_parent_does() -> None:
    d = open_designer(GRU, dock="bottom")
    child = d.open_subgraph("/Loop", "body")
    assert child.side_dock.side == "bottom"  # the dock option used to be dropped for children
    child.close_document()
