"""The analysis debugger on real exports (issue 29): every inspected tensor equals a plain ONNX Runtime run that
outputs it, breakpoints / step / resume follow the execution order, overrides change outputs and revert exactly,
and memory stays bounded (windows of values, an LRU of kept tensors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.activities.analysis.engine import AnalysisEngine
from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs
from dld_jupyter.activities.errors import SpecError

REAL = Path(__file__).resolve().parents[2] / "data" / "real"
MODELS = ["mobilenet_v3_small_w05", "bert_tiny", "gru_scripted", "ssdlite_tiny"]  # a detector: 1,601 nodes


def _feeds(path: Path) -> dict[str, Any]:
    feeds = load_inputs(model_input_specs(path), seed=3)
    if "input_ids" in feeds:  # token ids over the whole vocabulary, a real mask
        feeds["input_ids"] = np.arange(7, dtype=np.int64).reshape(1, 7) * 97 % 1000
        feeds["attention_mask"] = np.ones((1, 7), dtype=np.int64)
    return feeds


def _plain_run(path: Path, names: list[str], feeds: dict[str, Any]) -> dict[str, np.ndarray]:
    """The oracle: the original model, these values marked as outputs, optimizations off, one plain run."""
    model = onnx.load(str(path))
    declared = {o.name for o in model.graph.output}
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names if n not in declared)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return dict(zip(names, session.run(names, feeds), strict=True))


@pytest.mark.parametrize("name", MODELS)
def test_every_inspected_tensor_equals_a_plain_run(name: str) -> None:
    path = REAL / f"{name}.onnx"
    feeds = _feeds(path)
    with AnalysisEngine(path, feeds, window=8, keep_bytes=1 << 20) as engine:
        values = [n for i in engine.graph.order for n in engine.graph.nodes[i].output if n]
        oracle = _plain_run(path, values, feeds)
        visited = []
        while engine.step() is not None:
            visited.append(engine.position)
            for value in engine.graph.nodes[engine.position].output:
                if value:
                    assert np.allclose(engine.tensor(value), oracle[value], equal_nan=True), value
        assert visited == engine.graph.order and engine.state == "finished"
        widest = max(len(n.output) for n in engine.graph.nodes)
        assert engine.most_outputs <= 8 * widest + max(len(engine.graph.frontier(s)) for s in range(len(visited)))
        assert engine.most_outputs < len(values) or len(values) <= 8 * widest  # never every value
        assert engine.segments_run == engine.sessions_built - 1  # stepping on: segments; the outputs: a prefix
        for value in values[:: max(1, len(values) // 10)]:  # long evicted from the LRU: computed again exactly
            assert np.allclose(engine.tensor(value), oracle[value], equal_nan=True), value
        assert sum(a.nbytes for a in engine._values.values()) <= (1 << 20) or len(engine._values) == 1
        for output, array in engine.outputs().items():
            assert np.allclose(array, oracle[output], equal_nan=True)


def test_breakpoints_run_and_resume_in_execution_order() -> None:
    path = REAL / "mobilenet_v3_small_w05.onnx"
    with AnalysisEngine(path, _feeds(path)) as engine:
        order = engine.graph.order
        chosen = [order[120], order[7], order[60]]  # added out of order
        for node in chosen:
            engine.add_breakpoint(engine.node_key(node))
        assert engine.run() == order[7] and engine.position == order[7]
        assert engine.step() == order[8]
        assert engine.resume() == order[60]
        with pytest.raises(SpecError, match="not computed yet: step or resume past node"):
            engine.tensor(engine.graph.nodes[order[61]].output[0])
        engine.remove_breakpoint(order[120])
        assert engine.resume() is None and engine.state == "finished"
        assert engine.run() == order[7]  # run starts over
        windows = engine.sessions_built
        for _ in range(10):
            engine.step()
        assert engine.sessions_built - windows == 1  # a window of 8 values answers the next steps
        assert engine.segments_run == 1  # after the jump to the breakpoint (a prefix), the next window is a segment
        assert engine.position == order[17] and engine.tensor(order[17]).shape


def test_overrides_change_outputs_and_revert_exactly() -> None:
    path = REAL / "mobilenet_v3_small_w05.onnx"
    with AnalysisEngine(path, _feeds(path)) as engine:
        before = engine.outputs()["logits"]
        hard_sigmoid = next(i for i, n in enumerate(engine.graph.nodes) if n.op_type == "HardSigmoid")
        engine.add_breakpoint(hard_sigmoid)
        engine.run()
        stopped = engine.tensor(hard_sigmoid).copy()
        engine.override(hard_sigmoid, "alpha", 0.5)
        assert not np.allclose(engine.tensor(hard_sigmoid), stopped)  # the current stop is computed again
        after = engine.outputs()["logits"]  # untrained weights: logits near 1e-8, so compare relatively
        assert np.abs(after - before).max() > 1e-3 * np.abs(before).max()
        conv = next(n for n in engine.graph.nodes if n.op_type == "Conv")
        weight = conv.input[1]
        engine.override(conv.name, weight, engine.tensor(weight) * 2.0)
        assert [(o.name, o.kind) for o in engine.overrides()] == [("alpha", "attribute"), (weight, "initializer")]
        engine.revert(hard_sigmoid, "alpha")
        engine.revert_all()
        assert engine.overrides() == []
        assert np.array_equal(engine.outputs()["logits"], before)
        assert np.array_equal(engine.tensor(hard_sigmoid), stopped)
        engine.override(hard_sigmoid, "beta", 0.25)  # left at its default in the file: made explicit, then removed
        assert not np.array_equal(engine.tensor(hard_sigmoid), stopped)
        engine.revert(hard_sigmoid, "beta")
        assert [a.name for a in engine.graph.nodes[hard_sigmoid].attribute] == ["alpha"]
        assert np.array_equal(engine.tensor(hard_sigmoid), stopped)
        with pytest.raises(SpecError, match=r"neither an attribute \['alpha'\]"):
            engine.override(hard_sigmoid, "gamma", 1.0)
        with pytest.raises(SpecError, match="differs from"):
            engine.override(conv.name, weight, np.zeros(3, dtype=np.float32))
    assert onnx.load(str(path)).graph.node[hard_sigmoid].attribute[0].f == pytest.approx(1 / 6)  # file untouched


def test_loop_model_breaks_on_the_loop_and_inspects_its_outputs() -> None:
    path = REAL / "gru_scripted.onnx"
    feeds = _feeds(path)
    with AnalysisEngine(path, feeds) as engine:
        loop = next(i for i, n in enumerate(engine.graph.nodes) if n.op_type == "Loop")
        engine.add_breakpoint(loop)
        assert engine.run() == loop
        name = engine.graph.nodes[loop].output[0]
        assert np.allclose(engine.tensor(loop), _plain_run(path, [name], feeds)[name])


def test_a_sequence_alive_across_steps_is_recomputed_not_fed(tmp_path: Path) -> None:
    """A frontier value that is a sequence (no tensor input of a segment can take it) sends the window to a prefix."""
    h = onnx.helper
    nodes = [
        h.make_node("SplitToSequence", ["x"], ["parts"], axis=0, keepdims=0),
        h.make_node("Relu", ["x"], ["relu"]),
        h.make_node("SequenceAt", ["parts", "one"], ["row"]),
        h.make_node("Add", ["relu", "row"], ["y"]),
    ]
    graph = h.make_graph(
        nodes,
        "sequence_across_steps",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3, 4])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(np.array(1, dtype=np.int64), "one")],
    )
    path = tmp_path / "sequence_across_steps.onnx"
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=8), str(path))
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    with AnalysisEngine(path, {"x": x}, window=1) as engine:
        while engine.step() is not None:
            pass
        assert np.array_equal(engine.tensor("y"), np.maximum(x, 0) + x[1])
        assert engine.segments_run < engine.sessions_built - 1  # the window after SplitToSequence was a prefix


def test_a_provider_not_installed_is_said_before_any_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The windows engine checks the provider first (runtimes/onnxruntime/windows.py): an analysis on CUDA with the
    CPU build of ONNX Runtime is UnavailableError naming the build to install, and no private copy is written."""
    import tempfile

    from dld_jupyter.activities.errors import UnavailableError

    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("this onnxruntime has the CUDA provider")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = REAL / "mobilenet_v3_small_w05.onnx"
    with pytest.raises(UnavailableError, match="gpu"):
        AnalysisEngine(path, _feeds(path), provider="CUDAExecutionProvider")
    assert not list(tmp_path.iterdir())
