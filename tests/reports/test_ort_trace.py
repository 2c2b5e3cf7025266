"""ONNX Runtime profile import on real traces made here with onnxruntime."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.report_format.io import ReportError, load_report, save_report
from dld_jupyter.reports.open import detect, open_report
from dld_jupyter.reports.ort_trace import import_ort_trace
from tests.models import resnet_like


def small_model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32), "w")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["a"], name="mm"),
        helper.make_node("Relu", ["a"], ["b"], name="relu"),
        helper.make_node("Add", ["b", "x"], ["c"], name="add"),
        helper.make_node("Cast", ["c"], ["y"], name="to_fp16", to=TensorProto.FLOAT16),
    ]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4, 16])], [w])  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def profile(model: onnx.ModelProto, folder: Path, runs: int, optimize: bool = False) -> tuple[Path, Path]:
    path = folder / f"{model.graph.name}.onnx"
    onnx.save(model, path)
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(folder / "ort_profile")
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    inp = session.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    feed = {inp.name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    for _ in range(runs):
        session.run(None, feed)
    return Path(session.end_profiling()), path


def test_small_model(tmp_path: Path) -> None:
    trace, model = profile(small_model(), tmp_path, runs=6)
    report = import_ort_trace(trace, model, warmup=1)
    assert [layer.name for layer in report.layers] == ["mm", "relu", "add", "to_fp16"]
    assert [layer.type for layer in report.layers] == ["MatMul", "Relu", "Add", "Cast"]
    assert all(layer.provider == "CPUExecutionProvider" for layer in report.layers)
    assert report.layers[2].input_dims == [[4, 16], [4, 16]] and report.layers[0].precision == "FP32"
    assert report.layers[3].output_dims == [[4, 16]]
    assert all(layer.onnx_nodes == [layer.name] for layer in report.layers)
    assert report.removed_nodes == []
    s = report.summary
    assert (s.backend, s.provider, s.device, s.passes, s.warmup_passes) == (
        "onnxruntime", "CPUExecutionProvider", "CPU", 5, 1)  # fmt: skip
    assert len(report.passes_ms) == 5 and report.passes_ms[s.median_pass_index] == s.median_ms
    assert s.min_ms <= s.median_ms <= s.max_ms
    assert sum(layer.percent for layer in report.layers) == pytest.approx(100.0)
    for layer in report.layers:
        assert layer.min_ms <= layer.median_ms <= layer.max_ms and layer.min_ms <= layer.mean_ms <= layer.max_ms
    starts = [e.start_ms for e in report.timeline]
    assert starts == sorted(starts) and starts[0] >= 0
    assert all(e.start_ms + e.duration_ms <= s.median_ms + 1e-3 for e in report.timeline)  # inside the pass
    assert sum(layer.median_ms for layer in report.layers) <= s.median_ms + 1e-3
    assert load_report(save_report(report, tmp_path / "r.dld-report.json")) == report


def test_resnet_like_with_optimization(tmp_path: Path) -> None:
    model = resnet_like()
    trace, path = profile(model, tmp_path, runs=4, optimize=True)
    report = open_report(trace)  # detected by content
    assert detect(trace) == "onnxruntime"
    assert len(report.layers) > 5 and report.summary.passes == 4
    # with optimization some nodes are fused away; with the model they are listed as removed
    linked = import_ort_trace(trace, path)
    names = {node.name for node in model.graph.node}
    executed = {n for layer in linked.layers for n in layer.onnx_nodes}
    assert executed | set(linked.removed_nodes) == names
    assert not executed & set(linked.removed_nodes)


def test_trace_without_run_markers_is_one_pass(tmp_path: Path) -> None:
    trace, _ = profile(small_model(), tmp_path, runs=1)
    events = [e for e in json.loads(trace.read_text()) if e.get("name") != "model_run"]
    stripped = tmp_path / "stripped.json"
    stripped.write_text(json.dumps({"traceEvents": events}))
    report = import_ort_trace(stripped)
    assert report.summary.passes == 1 and len(report.layers) == 4
    assert report.summary.model == "stripped" and report.layers[0].onnx_nodes == ["mm"]


def test_bad_traces(tmp_path: Path) -> None:
    def file(content: object) -> Path:
        path = tmp_path / f"t{len(list(tmp_path.iterdir()))}.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return path

    cases = [
        (tmp_path / "missing.json", "no such ONNX Runtime profile"),
        (file("{oops"), "not JSON"),
        (file({"a": 1}), "expected a JSON list of trace events"),
        (file([{"cat": "Session", "name": "model_run", "ts": 0, "dur": 1}]), 'no "Node" events'),
    ]
    for path, message in cases:
        with pytest.raises(ReportError, match=message):
            import_ort_trace(path)
    trace, _ = profile(small_model(), tmp_path, runs=2)
    with pytest.raises(ReportError, match=r"cannot drop 2 warm-up run\(s\): the profile holds 2"):
        import_ort_trace(trace, warmup=2)
    with pytest.raises(ReportError, match="not a readable ONNX model"):
        import_ort_trace(trace, file("not a model"))
