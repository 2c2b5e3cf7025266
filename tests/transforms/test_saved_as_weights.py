"""Issue 31, finding 2: after "Save As" into another folder, every reader takes the weights the open model holds.

Folder A holds `model.onnx` whose weights `W` (all 1.0) live in an external file; folder B holds an unrelated file of
the same name (all 7.0). The document opened from A and saved as `B/new.onnx` still reads its tensors from A (onnx-ir
keeps each tensor's folder); FP16 conversion, Sanitize, Convert Tensors, the output comparison, extraction and
profiling must all see 1.0. The model computes `y = x @ (W + 1)`, so a run on ones gives 128 with A's
weights and 512 with B's, and Sanitize's constant folding bakes `W + 1` (2.0, never 8.0) into the result.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnx_ir as ir
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import convert_model_to_external_data

from dld_jupyter.activities.api import profile
from dld_jupyter.document import Document
from dld_jupyter.transforms.compare import compare_models
from dld_jupyter.transforms.extract import ExtractSubgraph
from dld_jupyter.transforms.fp16 import convert_to_fp16
from dld_jupyter.transforms.model_source import model_proto
from dld_jupyter.transforms.postcondition import runtime_problem
from dld_jupyter.transforms.sanitize import sanitize
from dld_jupyter.transforms.tensor_candidates import list_initializers
from dld_jupyter.transforms.tensor_conversion import convert_tensors

N = 64
RIGHT, WRONG = 1.0, 7.0  # A's weights, B's unrelated file
EXPECTED_Y = (RIGHT + 1) * N  # y = ones @ (W + 1)


def _model() -> onnx.ModelProto:
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["W", "one"], ["w1"], name="add_one"),
            helper.make_node("MatMul", ["x", "w1"], ["y"], name="matmul"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, N])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N])],
        [numpy_helper.from_array(np.full((N, N), RIGHT, np.float32), "W"), helper.make_tensor("one", 1, [], [1.0])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _folders(tmp_path: Path, location: str) -> tuple[Path, Path]:
    """A/model.onnx with W in A/<location>; B/<location>: an unrelated file of the same size, all 7.0."""
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    model = _model()
    convert_model_to_external_data(model, location=location, size_threshold=1024)
    onnx.save(model, a / "model.onnx")
    (b / location).write_bytes(np.full((N, N), WRONG, np.float32).tobytes())
    return a / "model.onnx", b


def _saved_as(tmp_path: Path, location: str = "weights.bin") -> tuple[Document, Path, Path]:
    source, b = _folders(tmp_path, location)
    doc = Document.open(source)
    doc.save(b / "new.onnx")
    assert doc.path == b / "new.onnx"
    return doc, source, b


def _y(model: onnx.ModelProto | str | Path) -> np.ndarray:
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    result: np.ndarray = session.run(["y"], {"x": np.ones((1, N), np.float32)})[0]
    return result


def _weights(doc: Document, name: str) -> np.ndarray:
    tensor = doc.model.graph.initializers[name].const_value
    assert tensor is not None
    return np.asarray(tensor.numpy(), np.float32)


def test_the_saved_file_and_the_documents_protobuf_hold_the_opened_weights(tmp_path: Path) -> None:
    doc, _source, b = _saved_as(tmp_path)
    assert np.all(_y(b / "new.onnx") == EXPECTED_Y)  # Save As wrote A's weights beside the new file
    proto = model_proto(doc)
    assert np.all(numpy_helper.to_array(proto.graph.initializer[0]) == RIGHT)
    assert np.all(_y(proto) == EXPECTED_Y)


@pytest.mark.parametrize("location", ["weights.bin", "model.onnx.data"])
def test_fp16_after_save_as_converts_the_opened_weights(tmp_path: Path, location: str) -> None:
    doc, _source, _b = _saved_as(tmp_path, location)
    result = convert_to_fp16(doc)
    assert result.largest_abs == RIGHT
    assert result.comparison is not None and result.comparison.within(1e-2)
    assert np.all(_weights(doc, "W") == RIGHT)
    assert np.all(_y(model_proto(doc)) == EXPECTED_Y)


@pytest.mark.parametrize("location", ["weights.bin", "model.onnx.data"])
def test_sanitize_after_save_as_folds_the_opened_weights(tmp_path: Path, location: str) -> None:
    doc, _source, _b = _saved_as(tmp_path, location)
    result = sanitize(doc)
    assert result.comparison is not None and result.comparison.within(1e-4)
    folded = [v for v in doc.model.graph.initializers.values() if v.name not in ("W", "one")]
    assert folded and all(np.all(np.asarray(v.const_value.numpy()) == RIGHT + 1) for v in folded if v.const_value)
    assert np.all(_y(model_proto(doc)) == EXPECTED_Y)


def test_convert_tensors_after_save_as_keeps_the_opened_weights(tmp_path: Path) -> None:
    """Whether Convert Tensors converts W or refuses it (external initializers must be loaded first, seed 002), the
    document's W holds A's values afterwards, in the model and in its protobuf."""
    doc, _source, _b = _saved_as(tmp_path)
    convert_tensors(doc, "float16", [c.value_id for c in list_initializers(doc) if c.name == "W"], [])
    assert np.all(_weights(doc, "W") == RIGHT)
    assert np.all(numpy_helper.to_array(model_proto(doc).graph.initializer[0]) == RIGHT)


def test_the_output_comparison_runs_the_opened_weights(tmp_path: Path) -> None:
    """The comparison's original side is the document's protobuf: it matches the model in A, not B's weights."""
    doc, source, b = _saved_as(tmp_path)
    same = compare_models(model_proto(doc), onnx.load(str(source)))
    assert same.error is None and same.max_abs == 0.0
    with_b = onnx.load(str(source), load_external_data=False)
    onnx.external_data_helper.load_external_data_for_model(with_b, str(b))
    moved = compare_models(model_proto(doc), with_b)
    assert moved.outputs[0].max_rel == pytest.approx((WRONG - RIGHT) / (RIGHT + 1))  # it tells 8x from 2x


def test_extract_after_save_as_copies_the_opened_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc, _source, b = _saved_as(tmp_path)
    monkeypatch.chdir(b)  # the working folder holds B's file too
    ids = [n.id for n in doc.nodes() if n.kind == "op"]
    target = ExtractSubgraph().apply(doc, node_ids=ids, path=str(tmp_path / "extract.onnx"))
    assert np.all(_y(target) == EXPECTED_Y)


def test_profiling_a_saved_as_document_runs_the_opened_weights(tmp_path: Path) -> None:
    """Clean: the saved file in B is profiled; dirty: a copy of the edits (kept beside the report, as asked).
    Either file, run in onnxruntime, computes with A's weights."""
    doc, _source, b = _saved_as(tmp_path)
    clean = profile(doc, iterations=2, warmup=0, threads=1)
    assert clean.summary.model_path == str(b / "new.onnx")
    assert np.all(_y(clean.summary.model_path) == EXPECTED_Y)
    doc.rename_node(next(n.id for n in doc.nodes() if n.name == "matmul"), "matmul_edited")
    assert doc.dirty
    dirty = profile(doc, iterations=2, warmup=0, threads=1, keep_model=True)
    assert Path(dirty.summary.model_path).name == "new-2.profiled.onnx"  # beside new-2.dld-report.json, the second
    assert np.all(_y(dirty.summary.model_path) == EXPECTED_Y)


def _external(tensor: onnx.TensorProto, folder: Path, location: str = "weights.bin") -> onnx.TensorProto:
    """``tensor`` moved to ``folder/location`` (appended), as an external reference."""
    data = folder / location
    offset = data.stat().st_size if data.exists() else 0
    with data.open("ab") as handle:
        handle.write(tensor.raw_data)
    onnx.external_data_helper.set_external_data(tensor, location, offset=offset, length=len(tensor.raw_data))
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    return tensor


def _attribute_model(a: Path) -> Path:
    """y = x + K1 + K2: K1 a Constant of the main graph, K2 one inside local function `local.AddK`, both external."""
    k1 = _external(numpy_helper.from_array(np.full((N, N), RIGHT, np.float32), "K1"), a)
    k2 = _external(numpy_helper.from_array(np.full((N, N), RIGHT, np.float32), "K2"), a)
    function = helper.make_function(
        "local",
        "AddK",
        ["X"],
        ["Y"],
        [helper.make_node("Constant", [], ["k"], value=k2), helper.make_node("Add", ["X", "k"], ["Y"])],
        [helper.make_opsetid("", 17)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k1"], name="const_k1", value=k1),
            helper.make_node("Add", ["x", "k1"], ["s"], name="add_k1"),
            helper.make_node("AddK", ["s"], ["y"], name="add_k2", domain="local"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N, N])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, N])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8, functions=[function])
    onnx.save(model, a / "model.onnx")
    return a / "model.onnx"


def _y_square(model: onnx.ModelProto | Path) -> np.ndarray:
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    result: np.ndarray = session.run(["y"], {"x": np.zeros((N, N), np.float32)})[0]
    return result


def test_tensor_attributes_and_function_constants_come_from_their_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """External Constant values, in the main graph and in a local function (onnx-ir's set_base_dir skips those):
    Save As embeds them in the new file (relative locations would name B's file), the protobuf of the document
    reads them from A even with B as the working folder, and the open model keeps its own references."""
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    source = _attribute_model(a)
    (b / "weights.bin").write_bytes(np.full((2, N, N), WRONG, np.float32).tobytes())
    monkeypatch.chdir(tmp_path)
    doc = Document.open(source.relative_to(tmp_path))  # a relative path: a later chdir must not move the weights
    doc.save(b / "new.onnx")
    monkeypatch.chdir(b)
    assert np.all(_y_square(b / "new.onnx") == 2 * RIGHT)
    assert np.all(_y_square(model_proto(doc)) == 2 * RIGHT)
    const = next(node for node in doc.model.graph if node.name == "const_k1").attributes["value"].value
    assert isinstance(const, ir.ExternalTensor) and Path(const.base_dir) == a  # the open model is unchanged
    result = sanitize(doc)
    assert result.comparison is not None and result.comparison.within(1e-4)
    assert np.all(_y_square(model_proto(doc)) == 2 * RIGHT)


def test_the_post_condition_loads_external_constants_from_their_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The onnxruntime load that every transform's result must pass finds Constant values stored externally (no
    external initializer at all) in the model's folder, not in the working folder, and after a Save As too."""
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    doc = Document.open(_attribute_model(a))
    monkeypatch.chdir(b)
    assert runtime_problem(doc.model) is None
    doc.save(b / "new.onnx")
    assert runtime_problem(doc.model) is None
