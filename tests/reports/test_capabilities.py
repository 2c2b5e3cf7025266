"""Report capabilities (issue 38): a report carries what it holds (`device_kind`, the layer columns it fills), derived
in report_format from its backend once, and the views read them instead of the runtime's name. A real ONNX Runtime
profile and the real trtexec sample give the right ones, they travel in the saved JSON, a report written before them
(no `capabilities`) gets the same derived and still renders, and a report stating other capabilities is drawn by
them (the views used to test `backend == "tensorrt"` and would ignore them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dld_jupyter.activities.api import profile
from dld_jupyter.report_format.capabilities import BUILD_PRECISION, DEVICE_MS, HOST_MS, PROVIDER, Capabilities
from dld_jupyter.report_format.io import load_report, save_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.kernels import ran_on_gpu
from dld_jupyter.reports.dashboard.panels import dashboard
from dld_jupyter.reports.dashboard.tables import ops_table
from dld_jupyter.reports.export import to_csv
from dld_jupyter.reports.html_report import to_html
from dld_jupyter.reports.recommendations import recommend
from dld_jupyter.reports.summary_text import ran_on
from dld_jupyter.reports.table import columns
from dld_jupyter.reports.trtexec import import_trtexec

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(scope="module")
def ort_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("caps") / "mobilenet.dld-report.json"
    profile(str(MODEL), iterations=3, warmup=1, threads=1, output=str(path))
    return path


@pytest.fixture(scope="module")
def trt_report(trt_prefix: Path) -> Report:
    return import_trtexec(f"{trt_prefix}.profile.json", f"{trt_prefix}.graph.json")


def _older(report_path: Path, folder: Path) -> Path:
    """The same report as a release before capabilities wrote it: no `capabilities` in its JSON."""
    data = json.loads(report_path.read_text())
    assert "capabilities" in data
    del data["capabilities"]
    older = folder / "older.dld-report.json"
    older.write_text(json.dumps(data))
    return older


def test_an_ort_report_runs_on_the_cpu_with_providers_and_host_times(ort_path: Path) -> None:
    report = load_report(ort_path)
    assert report.capabilities == Capabilities("cpu", [PROVIDER, HOST_MS])
    stored = json.loads(ort_path.read_text())["capabilities"]
    assert stored == {"device_kind": "cpu", "columns": ["provider", "host_ms"]}
    assert "Execution Provider" in columns(report) and ("Execution Provider", "CPUExecutionProvider") in ran_on(report)
    assert not ran_on_gpu(report) and dashboard(report).top_ops_time == "CPU ms"


def test_a_tensorrt_report_runs_on_the_gpu_with_device_times_and_built_precisions(
    trt_report: Report, tmp_path: Path
) -> None:
    assert trt_report.capabilities == Capabilities("gpu", [DEVICE_MS, BUILD_PRECISION])
    loaded = load_report(save_report(trt_report, tmp_path / "trt.dld-report.json"))
    assert loaded.capabilities == trt_report.capabilities
    assert "Execution Provider" not in columns(loaded) and ran_on(loaded)[0][0] == "Inference Device"
    ops = ops_table(loaded, [], dashboard(loaded).range)
    gpu_ms, cpu_ms = ops.columns.index("GPU ms"), ops.columns.index("CPU ms")
    assert [row[gpu_ms] for row in ops.rows] == [layer.median_ms for layer in loaded.layers]
    assert all(row[cpu_ms] is None for row in ops.rows) and dashboard(loaded).top_ops_time == "GPU ms"


def test_reports_written_before_capabilities_get_them_derived_and_render(
    ort_path: Path, trt_report: Report, tmp_path: Path
) -> None:
    for path in (ort_path, save_report(trt_report, tmp_path / "trt.dld-report.json")):
        current = load_report(path)
        older = load_report(_older(path, tmp_path))
        assert older.capabilities == current.capabilities
        assert to_html(older) == to_html(current) and to_csv(older) == to_csv(current)
        assert [r.id for r in recommend(older)] == [r.id for r in recommend(current)]
        assert dashboard(older).top_ops_time == dashboard(current).top_ops_time


def test_the_views_follow_a_reports_stated_capabilities_not_its_backend(ort_path: Path, tmp_path: Path) -> None:
    data = json.loads(ort_path.read_text())  # an ONNX Runtime report stating a device's layer times, no providers
    data["capabilities"] = {"device_kind": "gpu", "columns": [DEVICE_MS]}
    stated = tmp_path / "stated.dld-report.json"
    stated.write_text(json.dumps(data))
    report = load_report(stated)
    assert report.summary.backend == "onnxruntime" and report.capabilities == Capabilities("gpu", [DEVICE_MS])
    assert "Execution Provider" not in columns(report) and ran_on(report)[0][0] == "Inference Device"
    assert ran_on_gpu(report) and dashboard(report).top_ops_time == "GPU ms"
    assert "<th>Execution Provider</th>" not in to_html(report)
    assert "<th>Execution Provider</th>" in to_html(load_report(ort_path))
