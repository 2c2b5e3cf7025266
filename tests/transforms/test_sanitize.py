"""Sanitize on real exports: constant chains folded, outputs equal, options, one undo step, cancel between passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms.compare import random_inputs
from dld_jupyter.transforms.progress import Cancelled, CancelToken
from dld_jupyter.transforms.sanitize import sanitize

REAL = Path(__file__).parents[1] / "data" / "real"


def _chain(tmp_path: Path) -> Path:
    """x + Reshape(Identity(c), Concat(Shape(c))) and an unused Neg: a constant chain and a dead node."""
    c = helper.make_tensor("c", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    nodes = [
        helper.make_node("Identity", ["c"], ["c_id"], name="alias"),
        helper.make_node("Shape", ["c_id"], ["c_shape"], name="shape"),
        helper.make_node("Reshape", ["c_id", "c_shape"], ["c_flat"], name="reshape"),
        helper.make_node("Add", ["x", "c_flat"], ["y"], name="add"),
        helper.make_node("Neg", ["x"], ["unused"], name="dead"),
    ]
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [c],
    )
    path = tmp_path / "chain.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9), path)
    return path


def test_folds_the_chain_and_removes_the_dead_node(tmp_path: Path) -> None:
    result = sanitize(_chain(tmp_path), tmp_path / "out.onnx")
    assert (result.nodes_before, result.nodes_after) == (5, 1)
    assert sorted(result.folded) == ["alias", "reshape", "shape"] and result.removed == ["dead"]
    assert result.outputs_equal is True and result.output == (tmp_path / "out.onnx").resolve()
    onnx.checker.check_model(onnx.load(str(tmp_path / "out.onnx")), full_check=True)
    off = sanitize(_chain(tmp_path), tmp_path / "off.onnx", fold=False)
    assert off.nodes_after == 4 and off.removed == ["dead"] and off.pass_counts == []


@pytest.mark.parametrize("name", ["bert_tiny", "gpt2_tiny", "mobilenet_v3_small_w05"])
def test_real_exports_keep_their_outputs(name: str, tmp_path: Path) -> None:
    source, out = REAL / f"{name}.onnx", tmp_path / "s.onnx"
    result = sanitize(source, out)
    assert result.nodes_after < result.nodes_before and result.folded
    assert result.outputs_equal is True
    feeds = random_inputs(onnx.load(str(source)), 0)
    a = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(None, feeds)
    b = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, feeds)
    assert all(np.allclose(x, y, rtol=0, atol=1e-5) for x, y in zip(a, b, strict=True))


def test_options_passes_and_threshold() -> None:
    bert = REAL / "bert_tiny.onnx"
    one = transforms.get("sanitize").apply(Document.open(bert), passes=1, compare=False)
    assert len(one.pass_counts) == 1
    full = transforms.get("sanitize").apply(Document.open(bert), compare=False)
    assert full.nodes_after < one.nodes_after and full.pass_counts[-1] == full.pass_counts[-2]
    tiny = transforms.get("sanitize").apply(Document.open(bert), size_threshold=0, compare=False)
    assert tiny.nodes_after > full.nodes_after  # nothing larger than 0 bytes may be folded
    for bad in ({"passes": 0}, {"size_threshold": -1}):
        with pytest.raises(DocumentError):
            transforms.get("sanitize").apply(Document.open(bert), **bad)


def test_designer_sanitize_is_one_undo_step_and_cancels_between_passes() -> None:
    doc = Document.open(REAL / "bert_tiny.onnx")
    count = len(doc.nodes())
    result = transforms.get("sanitize").apply(doc)
    assert doc.history == ["Sanitize graph"] and len(doc.nodes()) < count and result.output is None
    doc.undo()
    assert len(doc.nodes()) == count and not doc.dirty
    token = CancelToken()
    messages: list[str] = []

    def progress(fraction: float | None, message: str) -> None:
        messages.append(message)
        if message.startswith("constant folding pass 2"):
            token.cancel()

    with pytest.raises(Cancelled):
        transforms.get("sanitize").apply(doc, progress=progress, cancel=token)
    assert messages[-1].startswith("constant folding pass 2") and len(doc.nodes()) == count
