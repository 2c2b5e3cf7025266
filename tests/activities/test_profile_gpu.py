"""CUDA execution provider profile with GPU metrics: runs only where onnxruntime-gpu and an NVIDIA GPU exist."""

from __future__ import annotations

from pathlib import Path

import onnxruntime
import pytest

from dld_jupyter.activities import OrtProfileSpec, run_activity
from dld_jupyter.activities.runtimes.onnxruntime.report import COPY_ROWS, GAPS_ROW, HOST_ROW
from dld_jupyter.report_format.io import load_report

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        "CUDAExecutionProvider" not in onnxruntime.get_available_providers(),
        reason="needs onnxruntime-gpu with the CUDA execution provider and an NVIDIA GPU",
    ),
]


@pytest.mark.parametrize("lock_clocks", [False, True])
def test_cuda_profile_has_gpu_metrics(resnet_path: Path, lock_clocks: bool) -> None:
    # Enough passes to span several 100 ms GPM intervals.
    spec = OrtProfileSpec(
        model=str(resnet_path), provider="cuda", iterations=400, batch_size=64, lock_clocks=lock_clocks
    )
    result = run_activity(spec)
    assert result.ok, result.error
    assert result.report_path is not None
    report = load_report(result.report_path)
    assert report.summary.provider == "CUDAExecutionProvider" and report.summary.device.startswith("NVIDIA")
    assert any(layer.provider == "CUDAExecutionProvider" for layer in report.layers)
    assert report.system["gpu"].startswith("NVIDIA") and report.system["driver"]
    names = {series.name for series in report.gpu_metrics}
    assert {"sm_utilization", "gpm_sm_activity", "pcie_rx"} <= names, names
    assert all(any(v > 0 for v in s.values) for s in report.gpu_metrics if s.name.startswith("gpm_sm")), names
    if lock_clocks:
        assert any("clocks restored" in line.message for line in result.logs)
    rows = {layer.name for layer in report.layers}
    assert {*COPY_ROWS, GAPS_ROW, HOST_ROW} <= rows, "the non-compute work of a GPU pass has its rows"
    pass_ms = report.summary.profiled_median_ms
    assert pass_ms and abs(sum(layer.median_ms for layer in report.layers) / pass_ms - 1) <= 0.05
    gpm = [m for m in report.gpu_metrics if m.name.startswith("gpm_sm")]  # busy to the end: no false last 0
    assert gpm and all(m.values[-1] > 0 for m in gpm), [(m.name, m.values[-3:]) for m in gpm]
