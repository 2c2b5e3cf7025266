"""`analyse` as the front doors drive it (issue 29): the analysis session kind in a real worker process, spoken to
in the document's element ids (which it still takes; its answers are ONNX names: test_analysis_names.py), with the
document and its child documents read-only while it is live."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.activities.errors import RunFailed, SpecError
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.frontdoor.analysis import LOCK_REASON, analyse

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _plain(path: Path, name: str, feeds: dict[str, np.ndarray]) -> np.ndarray:
    model = onnx.load(str(path))
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return np.asarray(ort.InferenceSession(model.SerializeToString(), options).run([name], feeds)[0])


def test_bert_in_the_worker_by_document_ids(tmp_path: Path) -> None:
    path = REAL / "bert_tiny.onnx"
    doc = Document.open(path)
    ids = np.array([[101, 7, 42, 999, 3, 102]], dtype=np.int64)
    np.save(tmp_path / "ids.npy", ids)
    a = analyse(doc, inputs={"input_ids": str(tmp_path / "ids.npy"), "attention_mask": np.ones_like(ids)})
    try:
        matmuls = [n for n in a.order_ids if doc.node(n).op_type == "MatMul"]
        a.add_breakpoint(matmuls[3])
        a.add_breakpoint(matmuls[0])
        assert a.breakpoint_ids == matmuls[:1] + matmuls[3:4]
        assert a.breakpoints == [doc.ir_node(n).name for n in (matmuls[0], matmuls[3])]
        assert a.run() is not None and a.position_id == matmuls[0]
        order = a.order_ids
        assert a.step() is not None and a.position_id == order[order.index(matmuls[0]) + 1]
        assert a.resume() is not None and a.position_id == matmuls[3]
        value = next(iter(doc.ir_node(matmuls[3]).outputs)).name
        expected = _plain(path, value, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
        assert np.allclose(a.tensor(matmuls[3]), expected)
        assert np.allclose(a.tensor(value), expected)
        assert a.summary(matmuls[3])["shape"] == list(expected.shape)
        with pytest.raises(DocumentError, match=LOCK_REASON + ".*Stop the analysis"):
            doc.rename_node(matmuls[0], "renamed")
        with pytest.raises(DocumentError, match=LOCK_REASON):
            doc.undo()
        assert doc.read_only == LOCK_REASON
        outputs = a.outputs(finish=False)
        assert set(outputs) == {o.name for o in doc.model.graph.outputs}
        assert a.shapes()[value] == list(expected.shape)  # what the Network Overview labels
        dense = next(n for n in matmuls if getattr(doc.ir_node(n).inputs[1], "const_value", None) is not None)
        weight = doc.ir_node(dense).inputs[1]
        assert weight is not None and weight.const_value is not None
        assert list(a.weights(dense)) == [weight.name]  # the Channel Inspector's weights of a node
        assert np.array_equal(a.weights(dense)[weight.name], weight.const_value.numpy())
        a.set_inputs({"input_ids": ids[:, ::-1].copy()})  # the Model Inputs window changed one input
        assert a.position_id == matmuls[3] and not np.allclose(a.tensor(value), expected)
        changed = a.outputs(finish=False)
        assert not all(np.allclose(changed[k], v) for k, v in outputs.items())
    finally:
        a.stop()
    assert a.state == "stopped" and doc.read_only is None and a.activity.done
    doc.rename_node(matmuls[0], "renamed")  # editable again


def test_children_are_read_only_and_overrides_never_reach_the_document() -> None:
    doc = Document.open(REAL / "gru_scripted.onnx")
    loop = next(n.id for n in doc.nodes() if n.op_type == "Loop")
    body = doc.subgraphs.open(loop, "body")
    with analyse(doc, inputs={"h0": "zeros"}) as a:
        constants = [n for n in a.order_ids if doc.node(n).op_type == "Constant"]
        first = a.outputs()
        assert a.run() is None and a.state == "finished"  # no breakpoint: to the end, every value inspectable
        index = next(n for n in constants if a.tensor(n).dtype == np.int64 and a.tensor(n).ndim == 0)
        with pytest.raises(SpecError, match=r"was reverted: .*Loop"):  # an index past the sequence's end
            a.override(index, "value", np.int64(99))
        assert a.overrides == [] and all(np.array_equal(first[k], v) for k, v in a.outputs().items())
        a.override(loop, "h2h.bias", a.tensor("h2h.bias") + 1)  # an outer weight the loop body reads
        assert not all(np.array_equal(first[k], v) for k, v in a.outputs().items())
        assert a.overrides == [{"node": "/Loop", "name": "h2h.bias", "kind": "initializer"}]
        a.revert_all()
        assert all(np.array_equal(first[k], v) for k, v in a.outputs().items())
        with pytest.raises(DocumentError, match=LOCK_REASON):
            body.rename_node(next(n.id for n in body.nodes()), "renamed")  # the open child is held too
        with pytest.raises(DocumentError, match=LOCK_REASON):
            body.confirm()  # its write-back is no way past the analysis
    assert not doc.dirty and doc.read_only is not None  # the open child still locks its parent, as before
    body.close()
    assert doc.read_only is None


def test_a_dead_worker_stops_the_analysis_and_frees_the_document() -> None:
    doc = Document.open(REAL / "mobilenet_v3_small_w05.onnx")
    a = analyse(doc)
    assert a.activity.pid is not None and doc.read_only == LOCK_REASON
    os.kill(a.activity.pid, signal.SIGKILL)  # as the kernel's OOM killer would
    a.activity.wait(30.0)
    with pytest.raises(RunFailed, match=r"killed by SIGKILL.*the analysis has stopped and the model is editable"):
        a.step()
    assert a.state == "stopped" and doc.read_only is None
