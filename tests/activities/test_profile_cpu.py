"""Profile real generated models on the CPU through the whole engine (worker process, report file)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from dld_jupyter.activities import OrtProfileSpec, run_activity
from dld_jupyter.activities.runtimes.onnxruntime.inputs import model_inputs
from dld_jupyter.document import Document
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report

ITERATIONS = 12


def _profile(path: Path, **options: object) -> Report:
    spec = OrtProfileSpec(model=str(path), iterations=ITERATIONS, warmup=2, threads=1, **options)  # type: ignore[arg-type]
    result = run_activity(spec)
    assert result.ok, (result.error, [line.message for line in result.logs][-5:])
    assert result.report_path == str(path.with_name(path.stem + ".dld-report.json"))
    return load_report(result.report_path)


def _check_accounting(report: Report, model_path: Path) -> None:
    nodes = [node.name for node in onnx.load(str(model_path), load_external_data=False).graph.node]
    in_layers = [name for layer in report.layers for name in layer.onnx_nodes]
    assert len(in_layers) == len(set(in_layers)), "an ONNX node is claimed by two layers"
    assert set(in_layers).isdisjoint(report.removed_nodes)
    assert set(in_layers) | set(report.removed_nodes) == set(nodes)


def _check_times(report: Report) -> None:
    s = report.summary
    assert len(report.passes_ms) == s.passes == ITERATIONS
    assert s.min_ms <= s.median_ms <= s.max_ms and s.median_ms == report.passes_ms[s.median_pass_index]
    assert s.profiled_median_ms is not None and s.profiling_overhead_ms is not None
    layer_sum = sum(layer.median_ms for layer in report.layers)
    # Sequential executor: layers of the median profiled pass fit inside that pass (ORT's own clock vs ours).
    assert 0 < layer_sum <= s.profiled_median_ms * 1.05
    assert layer_sum >= 0.05 * s.profiled_median_ms
    assert sum(layer.percent for layer in report.layers) == pytest.approx(100.0)
    assert len(report.timeline) >= len([layer for layer in report.layers if layer.median_ms > 0])
    assert all(event.start_ms >= 0 and event.duration_ms >= 0 for event in report.timeline)
    starts = [event.start_ms for event in report.timeline]
    assert starts == sorted(starts)


@pytest.mark.parametrize("optimize", [True, False])
def test_resnet_like_every_node_accounted(resnet_path: Path, optimize: bool) -> None:
    report = _profile(resnet_path, optimize=optimize)
    _check_accounting(report, resnet_path)
    _check_times(report)
    s = report.summary
    assert (s.backend, s.provider, s.optimization) == (
        "onnxruntime",
        "CPUExecutionProvider",
        "all" if optimize else "disabled",
    )
    assert s.device.startswith("CPU: ")
    assert {layer.precision for layer in report.layers} == {"FP32"}
    assert all(layer.provider == "CPUExecutionProvider" for layer in report.layers)
    if optimize:  # Conv+BN+Relu fuse: fewer layers than nodes, some layers with several sources
        assert any(len(layer.onnx_nodes) > 1 for layer in report.layers)
    else:
        assert all(len(layer.onnx_nodes) == 1 for layer in report.layers)
    assert report.system["cpu_cores"] >= 1 and "onnxruntime" in report.system["libraries"]
    assert "CPUExecutionProvider" in report.system["providers"]
    assert s.settings["iterations"] == ITERATIONS and "output" not in s.settings


@pytest.mark.parametrize("optimize", [True, False])
def test_transformer_like_every_node_accounted(transformer_path: Path, optimize: bool) -> None:
    report = _profile(transformer_path, optimize=optimize)
    _check_accounting(report, transformer_path)
    _check_times(report)
    conv = [layer for layer in report.layers if layer.type == "MatMul"]
    assert conv and all(layer.input_dims and layer.output_dims for layer in conv)


def test_constant_and_unnamed_nodes_are_accounted(tmp_path: Path) -> None:
    from tests.activities import _models

    model = _models.transformer_like(layers=1)
    model.graph.node[5].name = ""  # ORT reports by name: the profiler names it as opening the model does
    path = tmp_path / "t.onnx"
    onnx.save(model, str(path))
    report = _profile(path, optimize=False)
    assert "const_one" in report.removed_nodes  # ORT turns Constant nodes into initializers
    named = {name for layer in report.layers for name in layer.onnx_nodes}
    assert "node" in named and Document.open(path).model.graph.node(5).name == "node"


def test_input_folder_with_real_pb_files(resnet_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    graph = onnx.load(str(resnet_path)).graph
    for value in model_inputs(graph):
        array = np.full((3, 3, 32, 32), 0.5, np.float32)  # batch 3 for the free leading dimension
        (folder / f"{value.name}.pb").write_bytes(numpy_helper.from_array(array, value.name).SerializeToString())
    report = _profile(resnet_path, input_folder=str(folder))
    assert report.layers[0].input_dims[0][0] == 3
    assert report.summary.settings["input_folder"] == str(folder)


def test_inferred_batch_size_reaches_the_layers(resnet_path: Path) -> None:
    report = _profile(resnet_path, batch_size=2, optimize=False)
    assert report.layers[0].input_dims[0] == [2, 3, 32, 32]


def test_hide_non_compute_runs_the_passes_through_io_binding(resnet_path: Path) -> None:
    """With outputs bound (not fetched to numpy each pass) the passes still run and every node is accounted for;
    on a CPU no copy rows are added in either mode."""
    report = _profile(resnet_path, hide_non_compute=True)
    _check_accounting(report, resnet_path)
    assert report.summary.settings["hide_non_compute"] is True
    assert not [layer for layer in report.layers if layer.type == "Memcpy"]
