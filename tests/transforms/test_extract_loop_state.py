"""Extract selection of a scripted GRU's Loop whose final state is an inner value (issue 26, item 5): ONNX inference
leaves the rank of '/Loop_output_0' unknown (the If inside the body rebinds the state), and the extraction was
refused ("the type or shape of '/Loop_output_0' is unknown"); the rank now comes from the initial state."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from dld_jupyter import transforms
from dld_jupyter.document import Document

GRU = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted_head.onnx"  # 64 hidden, a head after


def test_extract_the_loop_of_a_scripted_gru_with_a_head(tmp_path: Path) -> None:
    model = tmp_path / "gru.onnx"
    shutil.copy(GRU, model)
    doc = Document.open(model)
    loop = next(n.id for n in doc.nodes() if n.op_type == "Loop")
    path = transforms.get("extract").apply(doc, node_ids=[loop], path=str(tmp_path / "loop.onnx"))
    extracted = onnx.load(str(path))
    onnx.checker.check_model(extracted, full_check=True)
    (state,) = extracted.graph.output
    assert state.name == "/Loop_output_0"
    dims = state.type.tensor_type.shape.dim
    assert len(dims) == 2 and not dims[0].HasField("dim_value") and not dims[0].dim_param  # batch: unknown
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3, 8)).astype(np.float32)
    mask = np.array([1, 0, 1, 1], np.float32)
    h0 = rng.standard_normal((3, 64)).astype(np.float32)
    whole = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    expected = whole.run(None, {"x": x, "mask": mask, "h0": h0})[0]
    loop_only = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    source = onnx.load(str(model))
    constants = {n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t) for n in source.graph.node
                 if n.op_type == "Constant"}
    feed = {i.name: constants[i.name] for i in loop_only.get_inputs() if i.name in constants}
    feed.update({"x": x, "mask": mask, "h0": h0, "/Gather_output_0": np.array(len(x), np.int64)})
    (h,) = loop_only.run(None, feed)
    np.testing.assert_allclose(np.maximum(h, 0) * 2.0, expected, rtol=1e-5, atol=1e-6)  # the head: relu(h) * 2
