"""Convert Tensors: candidates for the two panels, one undo step over many tensors, per-tensor errors, warnings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms.progress import Cancelled, CancelToken
from dld_jupyter.transforms.tensor_candidates import list_attributes, list_initializers
from dld_jupyter.transforms.tensor_conversion import convert_tensors

REAL = Path(__file__).parents[1] / "data" / "real"


def _model(tmp_path: Path) -> Path:
    inits = [
        numpy_helper.from_array(np.array([1.0, 70000.0, 0.1], dtype=np.float32), "w_big"),
        numpy_helper.from_array(np.array([0.5, 0.25], dtype=np.float32), "w_small"),
        numpy_helper.from_array(np.array([3, 4], dtype=np.int64), "shape_i64"),
        numpy_helper.from_array(np.array([True, False]), "flags"),
    ]
    nodes = [
        helper.make_node(
            "Constant", [], ["k"], name="const_k", value=numpy_helper.from_array(np.array([1.5], np.float32))
        ),
        helper.make_node("Constant", [], ["axes"], name="const_axes", value_ints=[0, 1]),
        helper.make_node("Add", ["x", "k"], ["y"], name="add"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        inits,
    )
    path = tmp_path / "tensors.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9), path)
    return path


def test_candidates_filter_by_name_and_type(tmp_path: Path) -> None:
    doc = Document.open(_model(tmp_path))
    assert [c.name for c in list_initializers(doc)] == ["w_big", "w_small", "shape_i64", "flags"]
    assert [c.name for c in list_initializers(doc, name="^w_", dtype="float32")] == ["w_big", "w_small"]
    assert [c.name for c in list_initializers(doc, dtype="int64")] == ["shape_i64"]
    assert not next(c for c in list_initializers(doc) if c.name == "flags").convertible
    rows = list_attributes(doc)
    assert [(r.node_name, r.attribute, r.kind, r.dtype) for r in rows] == [
        ("const_k", "value", "tensor", "float"),
        ("const_axes", "value_ints", "ints", "int64"),
    ]
    assert [r.node_name for r in list_attributes(doc, name="axes")] == ["const_axes"]
    assert [r.node_name for r in list_attributes(doc, dtype="float")] == ["const_k"]
    assert list_initializers(doc)[0].to_dict()["shape"] == [3]


def test_one_undo_step_with_warnings_and_per_tensor_errors(tmp_path: Path) -> None:
    doc = Document.open(_model(tmp_path))
    selected = [c.value_id for c in list_initializers(doc)]
    attrs = [(r.node_id, r.attribute) for r in list_attributes(doc)]
    before = {n: (v.dtype, v.const_value.numpy().copy()) for n, v in doc.model.graph.initializers.items()}
    result = convert_tensors(doc, "float16", selected, [*attrs, ("n999", "value")])
    assert doc.history == ["Convert tensors to float16"]
    by_label = {o.label: o for o in result.outcomes}
    assert any("overflowed the range of float16" in w for w in by_label["w_big"].warnings)
    assert any("lost precision" in w for w in by_label["w_big"].warnings)
    assert "cannot be converted" in (by_label["flags"].error or "")
    assert by_label["n999/value"].error == "no node has this id."
    # Issue 31, finding 5: conversions that break a reader's type constraints are refused, naming node and types.
    assert "node 'add' (Add), input 1 'B' shares type T with input 0 'x', which is float" in (
        by_label["const_k.value"].error or ""
    )
    assert "attribute 'value_ints' of node 'const_axes' (Constant) must be INTS" in (
        by_label["const_axes.value_ints"].error or ""
    )
    assert {o.label for o in result.converted} == {"w_big", "w_small", "shape_i64"}
    assert result.verdict is not None and result.verdict.ok
    graph = doc.model.graph
    assert graph.initializers["w_small"].dtype == onnx.TensorProto.FLOAT16
    assert graph.initializers["shape_i64"].const_value.numpy().dtype == np.float16
    const_k = next(n for n in graph if n.name == "const_k")
    assert const_k.attributes["value"].as_tensor().dtype == onnx.TensorProto.FLOAT
    doc.undo()
    for name, (dtype, values) in before.items():
        value = graph.initializers[name]
        assert value.dtype == dtype and np.array_equal(value.const_value.numpy(), values)
    assert next(n for n in graph if n.name == "const_k").attributes["value"].as_tensor().dtype == onnx.TensorProto.FLOAT
    assert result.to_dict()["converted"] == 3 and result.log[0].startswith("3 tensors converted to float16")


def test_lists_follow_the_target_kind(tmp_path: Path) -> None:
    doc = Document.open(_model(tmp_path))
    axes = next(r for r in list_attributes(doc) if r.attribute == "value_ints")
    result = transforms.get("convert_tensors").apply(doc, to="int32", attributes=[(axes.node_id, "value_ints")])
    assert not result.errors
    node = next(n for n in doc.model.graph if n.name == "const_axes")
    assert node.attributes["value_ints"].type == 7 and list(node.attributes["value_ints"].value) == [0, 1]
    # A Constant's value_ints is INTS by its schema: a FLOATS list there is a type-broken model (issue 31, finding 5).
    floats = convert_tensors(doc, "float", attributes=[(axes.node_id, "value_ints")])
    assert "must be INTS at opset 17" in (floats.errors[0].error or "") and len(doc.history) == 1
    assert node.attributes["value_ints"].type == 7
    refused = convert_tensors(doc, "bool", attributes=[(axes.node_id, "value_ints")])
    assert "cannot hold bool" in (refused.errors[0].error or "") and len(doc.history) == 1  # nothing recorded


def test_refusals_and_cancel_roll_back(tmp_path: Path) -> None:
    doc = Document.open(REAL / "bert_tiny.onnx")
    with pytest.raises(DocumentError, match="no valid target type"):
        convert_tensors(doc, "float17", [])
    selected = [c.value_id for c in list_initializers(doc, dtype="float")]
    token = CancelToken()
    seen: list[str] = []

    def progress(fraction: float | None, message: str) -> None:
        seen.append(message)
        if len(seen) == 5:
            token.cancel()

    with pytest.raises(Cancelled):
        convert_tensors(doc, "float16", selected, progress=progress, cancel=token)
    assert doc.history == [] and all(c.dtype == "float" for c in list_initializers(doc, dtype="float"))
    assert len(list_initializers(doc, dtype="float")) == len(selected)
