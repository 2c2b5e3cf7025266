"""The child-document base: the parent's lock (every edit path refused, nothing changed) and confirm as ONE undo step
of the parent. The child here edits a copy of the whole model and writes it back with ReplaceModel, the simplest
real write-back; subgraph and function documents supply their own (test_subgraph_documents.py)."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir
import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits.commands import Command
from dld_jupyter.document.edits.model_commands import ReplaceModel
from dld_jupyter.document.model.events import DirtyChanged, Event, ReadOnlyChanged
from dld_jupyter.document.subgraphs.child_document import ChildDocument

REASON = "Model copy 'test' is open for editing: confirm or close it first."


class WholeModelChild(ChildDocument):
    kind = "subgraph"
    confirm_label = "Confirm Copy Edits"

    def __init__(self, parent: Document) -> None:
        super().__init__(parent, ir.from_proto(ir.to_proto(parent.model)), "copy")
        self.refuse: str | None = None

    @property
    def lock_reason(self) -> str:
        return REASON

    def validate(self) -> None:
        if self.refuse:
            raise DocumentError(self.confirm_label, self.refuse, "Undo the breaking edit.")

    def write_back_command(self) -> Command:
        return ReplaceModel(ir.from_proto(ir.to_proto(self.model)), ())


def relu_doc() -> Document:
    doc = Document.new(opset=21)
    relu = doc.add_node("Relu")
    doc.add_graph_input(relu, 0, "x", "float", [2])
    doc.add_graph_output(relu, 0, "y")
    return doc


def op_types(doc: Document) -> list[str]:
    return [node.op_type for node in doc.model.graph]


def test_open_child_locks_every_edit_path_of_the_parent_and_changes_nothing() -> None:
    doc = relu_doc()
    relu = next(n.id for n in doc.nodes() if n.kind == "op")
    history = list(doc.history)
    assert doc.read_only is None and doc.open_children == []
    told: list[list[Event]] = []
    doc.subscribe(told.append)
    child = WholeModelChild(doc)
    assert doc.read_only == REASON and doc.open_children == [child]
    assert told == [[ReadOnlyChanged(REASON)]]  # the parent's views learn it is locked
    edits = [
        lambda: doc.add_node("Abs"),
        lambda: doc.rename_node(relu, "renamed"),
        lambda: doc.remove_nodes([relu]),
        lambda: doc.set_metadata("k", "v"),
        lambda: doc.create_initializer("w", np.zeros(2, np.float32)),
        lambda: doc.move_nodes({relu: (1.0, 2.0)}),
        lambda: doc.arrange(),
        lambda: doc.edit("Anything", lambda ctx, do: None),
        doc.undo,
        doc.redo,
    ]
    for edit in edits:
        with pytest.raises(DocumentError) as refused:
            edit()
        assert refused.value.why == REASON
    with pytest.raises(DocumentError, match="open for editing"), doc.transaction("Grouped"):
        pass
    assert op_types(doc) == ["Relu"] and doc.history == history and doc.model.metadata_props == {}
    assert doc.node(relu).name == "Relu_0"
    assert told == [[ReadOnlyChanged(REASON)]]  # refused edits sent nothing
    child.close()
    assert child.closed and doc.read_only is None and doc.open_children == []
    assert told[-1] == [ReadOnlyChanged(None)]
    doc.rename_node(relu, "free_again")
    assert doc.node(relu).name == "free_again"


def test_confirm_is_one_undo_step_of_the_parent_and_marks_the_child_saved() -> None:
    doc = relu_doc()
    steps = len(doc.history)
    child = WholeModelChild(doc)
    seen: list[list[Event]] = []
    child.subscribe(seen.append)
    child.add_node("Abs")
    child.add_node("Neg")
    assert child.dirty and len(child.history) == 2
    child.confirm()
    assert op_types(doc) == ["Relu", "Abs", "Neg"]
    assert doc.history[-1] == "Confirm Copy Edits" and len(doc.history) == steps + 1
    assert not child.dirty and seen[-1] == [DirtyChanged(False)] and not child.closed
    assert doc.read_only == REASON  # still open: still locked
    child.close()
    assert doc.undo() == "Confirm Copy Edits"
    assert op_types(doc) == ["Relu"]
    assert doc.redo() == "Confirm Copy Edits"
    assert op_types(doc) == ["Relu", "Abs", "Neg"]


def test_refused_confirm_leaves_the_parent_unchanged() -> None:
    doc = relu_doc()
    history = list(doc.history)
    child = WholeModelChild(doc)
    child.add_node("Abs")
    child.refuse = "the copy breaks the contract."
    with pytest.raises(DocumentError, match="breaks the contract"):
        child.confirm()
    assert op_types(doc) == ["Relu"] and doc.history == history and child.dirty


def test_closed_child_refuses_edits_and_confirm_and_a_child_is_never_saved() -> None:
    doc = relu_doc()
    child = WholeModelChild(doc)
    with pytest.raises(DocumentError, match="Confirm the edits"):
        child.save("x.onnx")
    child.close()
    child.close()  # twice is fine
    with pytest.raises(DocumentError, match="closed"):
        child.add_node("Abs")
    with pytest.raises(DocumentError, match="closed"):
        child.confirm()


def test_a_nested_child_locks_its_parent_child_and_confirm_waits_for_it() -> None:
    doc = relu_doc()
    child = WholeModelChild(doc)
    grandchild = WholeModelChild(child)
    assert child.read_only == REASON and doc.read_only == REASON
    with pytest.raises(DocumentError, match="open for editing"):
        child.confirm()
    grandchild.add_node("Abs")
    grandchild.confirm()
    assert op_types(child) == ["Relu", "Abs"] and child.history[-1] == "Confirm Copy Edits"
    assert op_types(doc) == ["Relu"]
    child.close()  # closes the grandchild too
    assert grandchild.closed and doc.read_only is None
