"""Graph inputs and outputs get their type in the parameter editor, and Save As of an invalid model says what is
invalid before it writes a draft (issue 26, item 4)."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from dld_jupyter.document import Document
from dld_jupyter.frontdoor.operations import InvalidModel, operations
from dld_jupyter.widgets.editors import io_types, parameters
from dld_jupyter.widgets.editors.edit_error import EditError
from tests.frontdoor.fakes import FakeDesigner


def gather_model() -> tuple[Document, str, str]:
    """A model built from scratch as in the UI: Gather with two graph inputs (float, no shape) and an output."""
    doc = Document.new(opset=21)
    gather = doc.add_node("Gather")
    data = doc.add_graph_input(gather, 0, "data")
    indices = doc.add_graph_input(gather, 1, "indices")
    doc.add_graph_output(gather, 0, "picked")
    return doc, data, indices


def test_the_editor_shows_and_sets_an_inputs_type_and_shape() -> None:
    doc, data, indices = gather_model()
    shown = parameters.view(doc, [indices])
    assert shown["mode"] == "io" and shown["kind"] == "input" and shown["name"] == "indices"
    assert shown["dtype"] == "float" and shown["shape"] == "" and "int64" in shown["dtypes"]
    parameters.handle(doc, [indices], {"kind": "set_io_type", "dtype": "int64"})
    parameters.handle(doc, [indices], {"kind": "set_io_type", "shape": "batch, 2, ?"})
    assert parameters.view(doc, [indices])["dtype"] == "int64"
    assert parameters.view(doc, [indices])["shape"] == "batch, 2, ?"
    parameters.handle(doc, [data], {"kind": "set_io_type", "shape": "scalar"})
    assert parameters.view(doc, [data])["shape"] == "scalar"
    doc.undo()
    assert parameters.view(doc, [data])["shape"] == "", "each edit is one undo step"
    parameters.handle(doc, [indices], {"kind": "rename", "text": "idx"})
    assert parameters.view(doc, [indices])["name"] == "idx"


def test_a_bad_dimension_is_refused_with_the_field_and_the_fix() -> None:
    doc, _data, indices = gather_model()
    with pytest.raises(EditError, match="'2x' is not a dimension") as error:
        parameters.handle(doc, [indices], {"kind": "set_io_type", "shape": "1, 2x"})
    assert error.value.key == "io:shape"
    assert io_types.parse_shape("[1, 3, 224, 224]") == [1, 3, 224, 224]
    assert io_types.parse_shape("") is None


def test_save_as_refuses_an_invalid_model_until_a_draft_is_asked_for(tmp_path: Path) -> None:
    target = FakeDesigner("m1", None)
    doc, data, indices = gather_model()
    target.canvas.document_if_loaded = doc
    with pytest.raises(InvalidModel, match=r"not valid: .*draft") as refused:
        operations.run("save_as", target, path=str(tmp_path / "draft.onnx"))
    assert refused.value.problems and target.canvas.saved == []
    operations.run("save_as", target, path=str(tmp_path / "draft.onnx"), draft=True)
    assert target.canvas.saved == [str(tmp_path / "draft.onnx")]

    parameters.handle(doc, [indices], {"kind": "set_io_type", "dtype": "int64", "shape": "2"})
    parameters.handle(doc, [data], {"kind": "set_io_type", "shape": "4, 3"})
    picked = next(n.id for n in doc.nodes() if n.kind == "output")
    assert parameters.view(doc, [picked])["dtype"] == ""
    parameters.handle(doc, [picked], {"kind": "set_io_type", "dtype": "float", "shape": "2, 3"})
    operations.run("save_as", target, path=str(tmp_path / "valid.onnx"))
    doc.save(tmp_path / "valid.onnx")
    onnx.checker.check_model(onnx.load(tmp_path / "valid.onnx"), full_check=True)
