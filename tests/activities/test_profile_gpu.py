"""CUDA execution provider profile with GPU metrics: runs only where onnxruntime-gpu and an NVIDIA GPU exist."""

from __future__ import annotations

from pathlib import Path

import onnxruntime
import pytest

from dld_jupyter.activities import OrtProfileSpec, run_activity
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
