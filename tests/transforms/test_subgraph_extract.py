"""Extract Model Subgraph and extract-selection of Loop/If nodes, on the real scripted-GRU export (a Loop over time
steps with an If inside): standalone models that pass the full checker and compute in onnxruntime what the model
computes."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort
import pytest

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms import extract_model_subgraph

GRU = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"
RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 2, 8)).astype(np.float32)
MASK = np.array([1, 1, 0, 1], np.float32)
H0 = RNG.standard_normal((2, 16)).astype(np.float32)


def session(path: Path) -> ort.InferenceSession:
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def gru(x: np.ndarray, mask: np.ndarray, h0: np.ndarray) -> np.ndarray:
    return np.asarray(session(GRU).run(None, {"x": x, "mask": mask, "h0": h0})[0])


def constants() -> dict[str, np.ndarray]:
    """The values of the model's Constant nodes and initializers, by name."""
    model = onnx.load(str(GRU))
    found = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            found[node.output[0]] = onnx.numpy_helper.to_array(node.attribute[0].t)
    return found


def op(doc: Document, op_type: str) -> str:
    return next(n.id for n in doc.nodes() if n.op_type == op_type)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "gru.onnx"
    shutil.copy(GRU, path)
    return path


def test_loop_body_as_a_model_computes_one_step(model: Path) -> None:
    doc = Document.open(model)
    steps = len(doc.history)
    path = extract_model_subgraph(doc, op(doc, "Loop"), "body", None)
    assert path == model.with_name("gru_body.onnx").resolve()  # default name beside the model
    run = session(path)
    names = [i.name for i in run.get_inputs()]
    assert names[:3] == ["t.1", "cond", "h.31"]  # the body's own inputs first, then its outer references
    assert {"x", "mask", "x2h.weight", "h2h.bias", "/Constant_1_output_0"} <= set(names[3:])
    feed = {name: value for name, value in constants().items() if name in names}
    feed.update({"t.1": np.array(0, np.int64), "cond": np.array(True), "h.31": H0, "x": X, "mask": MASK})
    condition, state = run.run(None, feed)
    assert bool(condition)
    np.testing.assert_allclose(state, gru(X[:1], MASK[:1], H0), rtol=1e-5, atol=1e-6)
    assert len(doc.history) == steps and not doc.dirty  # a new file, the document unchanged
    again = extract_model_subgraph(doc, op(doc, "Loop"), "body", None)
    assert again.name == "gru_body_2.onnx"


def test_nested_if_branch_from_the_body_document(model: Path, tmp_path: Path) -> None:
    doc = Document.open(model)
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    path = extract_model_subgraph(body, op(body, "If"), "then_branch", None, tmp_path / "then.onnx")
    run = session(path)
    assert [i.name for i in run.get_inputs()] == ["/Sigmoid_1_output_0", "/Tanh_output_0", "h.31"]
    z, n, h = (RNG.random((2, 16), dtype=np.float32) for _ in range(3))
    (out,) = run.run(None, {"/Sigmoid_1_output_0": z, "/Tanh_output_0": n, "h.31": h})
    np.testing.assert_allclose(out, (1 - z) * n + z * h, rtol=1e-6, atol=1e-6)  # the GRU's state update
    assert doc.read_only is not None and body.dirty is False  # extracting edits nothing


def test_refusals_name_the_problem(model: Path) -> None:
    doc = Document.open(model)
    loop = op(doc, "Loop")
    with pytest.raises(DocumentError, match="no subgraph attribute 'then_branch'"):
        extract_model_subgraph(doc, loop, "then_branch", None)
    with pytest.raises(DocumentError, match="holds one graph"):
        extract_model_subgraph(doc, loop, "body", 2)
    with pytest.raises(DocumentError, match="not in the graph"):
        extract_model_subgraph(doc, "n999", "body", None)
    assert transforms.get("extract_model_subgraph").writes_new_file


def test_extract_selection_of_the_loop_carries_what_its_body_reads(model: Path, tmp_path: Path) -> None:
    """Used to fail: the Extractor does not look into bodies, so the weights and constants only the Loop body
    reads were missing and the checker refused the model."""
    doc = Document.open(model)
    everything = transforms.get("extract").apply(
        doc, node_ids=[n.id for n in doc.nodes() if n.kind == "op"], path=str(tmp_path / "all.onnx")
    )
    run = session(everything)
    np.testing.assert_allclose(run.run(None, {"x": X, "mask": MASK, "h0": H0})[0], gru(X, MASK, H0), rtol=1e-6)
    loop_only = transforms.get("extract").apply(doc, node_ids=[op(doc, "Loop")], path=str(tmp_path / "loop.onnx"))
    run = session(loop_only)
    names = {i.name for i in run.get_inputs()}
    assert {"x", "mask", "h0", "/Gather_output_0"} <= names and "x2h.weight" not in names  # weights stay weights
    feed = {name: value for name, value in constants().items() if name in names}
    feed.update({"x": X, "mask": MASK, "h0": H0, "/Gather_output_0": np.array(len(X), np.int64)})
    np.testing.assert_allclose(run.run(None, feed)[0], gru(X, MASK, H0), rtol=1e-6)
