"""The recorded kernel-records report (tests/data/kernels, an H100 run): it loads as version 2, every kernel links to
a layer whose ONNX nodes launched it, and version 1 reports still load (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dld_jupyter.report_format.io import ReportError, load_report, report_from_data, report_to_json

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


def test_recorded_kernels_load_and_link_to_onnx_nodes() -> None:
    report = load_report(FIXTURE)
    kernels = [k for k in report.kernels if k.kind == "kernel"]
    assert report.version == 2 and len(kernels) > 100
    assert {k.pass_index for k in report.kernels} == set(report.kernel_capture["kept_passes"])
    assert all(report.layers[k.layer].onnx_nodes for k in kernels)  # every kernel tied to one ONNX node's layer
    assert any(k.tensor_core for k in kernels) and report.kernel_capture["tensor_core_check"]["agrees"] is True
    copies = [k for k in report.kernels if k.kind == "memcpy"]
    assert {k.copy_kind for k in copies} == {"HtoD", "DtoH"}
    assert all(k.launch_ms is not None and k.start_ms >= k.launch_ms for k in kernels)  # launched, then ran
    assert json.loads(report_to_json(report))["kernels"][0] == json.loads(FIXTURE.read_text())["kernels"][0]


def test_version_1_reports_load_without_kernels() -> None:
    data = json.loads(FIXTURE.read_text())
    data["version"] = 1
    for key in ("kernels", "kernel_capture"):
        del data[key]
    report = report_from_data(data)
    assert report.kernels == [] and report.kernel_capture == {} and report.version == 2


def test_a_kernel_pointing_past_the_layers_is_refused() -> None:
    data = json.loads(FIXTURE.read_text())
    data["kernels"][0]["layer"] = len(data["layers"])
    with pytest.raises(ReportError, match=r"\$\.kernels\[0\]\.layer: is \d+ but there are only"):
        report_from_data(data)
