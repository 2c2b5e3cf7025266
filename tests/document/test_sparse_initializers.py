"""A model's sparse initializers are edited dense and saved sparse (issue 41, seed "sparse initializers")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document import Document


def _sparse_model(path: Path) -> None:
    values = numpy_helper.from_array(np.array([1.5, -2.0], np.float32), "W")
    indices = numpy_helper.from_array(np.array([1, 5], np.int64), "W_indices")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "W"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        sparse_initializer=[helper.make_sparse_tensor(values, indices, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _run(path: Path) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": np.ones((2, 3), np.float32)})[0])


def test_a_sparse_initializer_is_dense_in_the_document_and_sparse_in_the_saved_file(tmp_path: Path) -> None:
    """It was lost: onnx-ir reads no sparse_initializer, so `W` had no definition and saving wrote neither form."""
    source, saved = tmp_path / "sparse.onnx", tmp_path / "saved.onnx"
    _sparse_model(source)
    doc = Document.open(source)
    weight = doc.model.graph.initializers["W"].const_value
    assert weight is not None
    assert np.array_equal(weight.numpy(), np.array([[0, 1.5, 0], [0, 0, -2.0]], np.float32))
    doc.save(saved)
    proto = onnx.load(str(saved))
    assert [t.name for t in proto.graph.initializer] == []
    (sparse,) = proto.graph.sparse_initializer
    assert sparse.values.name == "W" and list(sparse.dims) == [2, 3]
    assert numpy_helper.to_array(sparse.indices).tolist() == [1, 5]
    assert numpy_helper.to_array(sparse.values).tolist() == [1.5, -2.0]
    assert np.array_equal(_run(saved), _run(source))
