"""The debugger speaks ONNX node names (issue 37): breakpoints set by name stop at and report that name as a `Stop`,
`execution_order` lists names, and `outputs()` leaves the debugger at the end so every inner value is available and
equals a plain ONNX Runtime run (a ResNet-like export and the real BERT export)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.document import Document
from dld_jupyter.frontdoor.analysis import Stop, analyse
from tests.models import resnet_like

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _plain(model: onnx.ModelProto, name: str, feeds: dict[str, np.ndarray]) -> np.ndarray:
    model = onnx.ModelProto.FromString(model.SerializeToString())
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return np.asarray(ort.InferenceSession(model.SerializeToString(), options).run([name], feeds)[0])


def test_resnet_breakpoints_by_onnx_name(tmp_path: Path) -> None:
    model = resnet_like(4)
    path = tmp_path / "resnet.onnx"
    onnx.save(model, str(path))
    image = np.random.default_rng(3).standard_normal((1, 3, 32, 32)).astype(np.float32)
    convs = [n.name for n in model.graph.node if n.op_type == "Conv" and n.name.startswith("/layer2/conv2/")]
    relu = next(n for n in model.graph.node if n.op_type == "Relu" and n.name.startswith("/layer3/"))
    with analyse(Document.open(path), inputs={"input": image}) as a:
        assert a.execution_order[0] == model.graph.node[0].name  # names, not document ids
        assert set(a.execution_order) == {n.name for n in model.graph.node}
        a.add_breakpoint(relu.name)
        a.add_breakpoint(convs[0])
        assert a.breakpoints == [convs[0], relu.name]  # in execution order
        stop = a.run()
        assert stop == Stop(convs[0], "Conv", a.execution_order.index(convs[0]))
        assert a.position == convs[0] and convs[0] in repr(a)
        following = a.step()
        assert following is not None and following.name == a.execution_order[stop.index + 1]
        assert following.index == stop.index + 1
        assert a.resume() == Stop(relu.name, "Relu", a.execution_order.index(relu.name))
        later = model.graph.node[-2].output[0]  # the pooled features, past the stop
        with pytest.raises(SpecError, match=r"not computed yet.*outputs\(\) does"):
            a.tensor(later)
        outputs = a.outputs()
        assert a.state == "finished" and a.position is None
        assert np.allclose(a.tensor(later), _plain(model, later, {"input": image}), atol=1e-5)
        assert np.allclose(outputs["logits"], _plain(model, "logits", {"input": image}), atol=1e-5)
        a.remove_breakpoint(relu.name)
        assert a.breakpoints == [convs[0]]
        with pytest.raises(SpecError, match="no-such-node"):
            a.add_breakpoint("no-such-node")


def test_bert_outputs_leave_every_value_available() -> None:
    path = REAL / "bert_tiny.onnx"
    model = onnx.load(str(path))
    ids = np.array([[101, 7, 42, 999, 3, 102]], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    matmuls = [n for n in model.graph.node if n.op_type == "MatMul"]
    with analyse(path, inputs=feeds) as a:
        a.add_breakpoint(matmuls[2].name)
        assert a.run() == Stop(matmuls[2].name, "MatMul", a.execution_order.index(matmuls[2].name))
        a.outputs(finish=False)  # the Analysis Output view while paused: the stop is kept
        assert a.position == matmuls[2].name
        a.outputs()
        assert a.state == "finished"
        inner = matmuls[-1].output[0]
        assert np.allclose(a.tensor(matmuls[-1].name), _plain(model, inner, feeds), atol=1e-5)
