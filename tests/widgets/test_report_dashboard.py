"""The report viewer's Dashboard tab from Python: its default tab, its data trait and the aggregation range, on a
real CPU profile of the MobileNetV3 export and on the real trtexec ResNet-50 profile (a GPU run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.api import profile
from dld_jupyter.reports.trtexec import import_trtexec
from dld_jupyter.widgets.report.report_viewer import compare_reports, show_report

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
TRT = Path(__file__).resolve().parents[1] / "data" / "trt" / "tf-resnet50-rtx3090-fp16.engine"


@pytest.fixture(scope="module")
def cpu_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dash") / "mobilenet.dld-report.json"
    profile(str(REAL), iterations=5, warmup=1, threads=1, output=str(path))
    return path


def test_cpu_report_opens_on_layers_and_its_dashboard_says_why_gpu_panels_are_absent(cpu_path: Path) -> None:
    viewer = show_report(cpu_path)
    assert viewer.tab == "layers"
    data = viewer.dashboard
    assert data["range"] == [0, 4] and data["has_kernels"] is False
    assert "no GPU ran" in data["absent"]["utilization"] and data["utilization"] == []
    assert len(data["tables"]["ops"]["rows"]) == len(viewer.report.layers)


def test_the_range_set_in_the_viewer_reaggregates_and_a_bad_one_is_refused(cpu_path: Path) -> None:
    viewer = show_report(cpu_path, tab="dashboard")
    assert viewer.tab == "dashboard"
    viewer.dashboard_range = [1, 2]
    assert viewer.dashboard["range"] == [1, 2]
    assert dict(viewer.dashboard["summary"])["Profiled Iterations"] == "2"
    sent: list[dict[str, object]] = []
    viewer.send = lambda message, buffers=None: sent.append(message)  # type: ignore[method-assign]
    viewer.dashboard_range = [3, 9]
    assert viewer.dashboard["range"] == [1, 2] and viewer.dashboard_range == [1, 2]  # back to the range shown
    assert sent and "outside the measured passes 0..4" in str(sent[-1]["text"])
    assert viewer.dashboard_panels(0, 0).range.count == 1
    text = viewer.dashboard_csv("op_types")
    assert isinstance(text, str) and text.startswith("Op Type,Ops,Calls")
    conv = next(line.split(",") for line in text.splitlines() if line.startswith("Conv,"))
    assert int(conv[2]) == 2 * int(conv[1])  # calls over the 2 passes of the range [1, 2]


def test_tensorrt_profile_opens_on_layers_and_comparisons_get_columns(cpu_path: Path) -> None:
    trt = import_trtexec(f"{TRT}.profile.json", f"{TRT}.graph.json")
    assert show_report(trt).tab == "layers"  # an engine profile: its per-layer GPU times are the table
    assert show_report(trt, tab="dashboard").dashboard["top_ops_time"] == "GPU ms"
    both = compare_reports(cpu_path, trt)
    columns = both.dashboard["compare"]["columns"]
    assert columns[0] == "Metric" and len(columns) == 3
    assert len(both.dashboard["gpus"]["rows"]) == 1
