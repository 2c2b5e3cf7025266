"""Kernel records of a CUDA profile through the whole engine (worker process, report file), issue 32: runs only
where onnxruntime-gpu, cupti-python and an NVIDIA GPU exist (the lent H100: benchmarks/kernel_records_gpu.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import onnxruntime
import pytest

from dld_jupyter.activities import OrtProfileSpec, run_activity
from dld_jupyter.report_format.io import load_report

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        "CUDAExecutionProvider" not in onnxruntime.get_available_providers()
        or importlib.util.find_spec("cupti") is None,
        reason="needs onnxruntime-gpu with the CUDA execution provider, cupti-python and an NVIDIA GPU",
    ),
]


def test_every_kernel_is_tied_to_the_node_that_launched_it(resnet_path: Path) -> None:
    result = run_activity(OrtProfileSpec(model=str(resnet_path), provider="cuda", iterations=20, batch_size=8))
    assert result.ok, result.error
    assert result.report_path is not None
    report = load_report(result.report_path)
    kernels = [k for k in report.kernels if k.kind == "kernel"]
    capture = report.kernel_capture
    # recorded in 10 kernel passes of their own after the 20 profiled ones (issue 35), each pass's wall time kept
    assert capture["source"] == "cupti" and capture["series"] == "kernel" and capture["passes"] == 10
    assert len(capture["passes_ms"]) == 10 and {k.pass_index for k in report.kernels} == set(range(10))
    assert len(report.passes_ms) == 20
    assert kernels and all(report.layers[k.layer].onnx_nodes for k in kernels)
    assert {k.copy_kind for k in report.kernels if k.kind == "memcpy"} >= {"HtoD", "DtoH"}
    assert all(k.launch_ms is not None and k.launch_ms <= k.start_ms for k in kernels)
    off = run_activity(
        OrtProfileSpec(model=str(resnet_path), provider="cuda", iterations=5, kernel_records=False)
    )
    assert off.ok and off.report_path is not None and load_report(off.report_path).kernels == []
