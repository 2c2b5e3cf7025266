"""The dashboard (reports/dashboard/) from real reports: a CPU profile of the real MobileNetV3 export with the product's
ONNX Runtime profiler, and the real trtexec ResNet-50 profile (a GPU run without kernel records). Each panel that
cannot apply is absent with its reason; no GPU figure appears for a run without one."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from dld_jupyter.activities.api import profile
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.data import dashboard_data
from dld_jupyter.reports.dashboard.html import dashboard_html
from dld_jupyter.reports.dashboard.iterations import Gap, Range, aggregation_range, idle_gaps, union_ms
from dld_jupyter.reports.dashboard.kernels import Kernel, absence, kernels_of
from dld_jupyter.reports.dashboard.many import compare_dashboard, gpus_view
from dld_jupyter.reports.dashboard.panels import dashboard
from dld_jupyter.reports.dashboard.table_csv import table_csv
from dld_jupyter.reports.dashboard.tables import kernels_by_op, op_type_summary, ops_table
from dld_jupyter.reports.dashboard.text import dashboard_text
from dld_jupyter.reports.trtexec import import_trtexec

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
GPU_PANELS = ("utilization", "kernel_time", "tc_efficiency", "idle")


@pytest.fixture(scope="module")
def cpu_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = tmp_path_factory.mktemp("dash") / "mobilenet.dld-report.json"
    profile(str(MODEL), iterations=6, warmup=1, threads=1, output=str(path))
    return load_report(path)


@pytest.fixture(scope="module")
def trt_report(trt_prefix: Path) -> Report:
    return import_trtexec(f"{trt_prefix}.profile.json", f"{trt_prefix}.graph.json")


def test_cpu_report_shows_what_applies_and_says_why_the_rest_is_absent(cpu_report: Report) -> None:
    board = dashboard(cpu_report)
    assert kernels_of(cpu_report) == [] and board.kernels == []
    for panel in GPU_PANELS:
        assert "CPUExecutionProvider" in board.absent[panel] and "no GPU ran" in board.absent[panel]
    assert board.utilization == [] and board.kernel_time == [] and board.tc_efficiency is None and board.idle == []
    # the breakdown that applies: host (op) time and the rest of the profiled pass, summing to 100 %
    assert [s.label for s in board.breakdown] == ["Host/CPU (op time)", "Other (outside ops)"]
    assert sum(s.percent for s in board.breakdown) == pytest.approx(100.0)
    assert board.breakdown[0].ms == pytest.approx(sum(layer.median_ms for layer in cpu_report.layers))
    summary = dict(board.summary)
    assert summary["GPU Utilization"] == "-" and summary["Tensor Core Kernel Efficiency"] == "-"
    assert summary["Profiled Iterations"] == "6" and summary["Total Iterations"] == "6 (+1 warm-up)"
    assert dict(board.system)["GPU Count"] == "0 (no GPU used)"
    # top ops ranked by CPU time, said so; no GPU column filled
    assert board.top_ops_time == "CPU ms" and "top_gpu_ops" in board.absent
    assert board.top_ops is not None and len(board.top_ops.rows) == 10
    cpu = [row[4] for row in board.top_ops.rows]
    assert cpu == sorted(cpu, reverse=True) and all(row[5] is None for row in board.top_ops.rows)
    # nothing on a CPU can use a Tensor Core: no "eligible" tick, and CPU advice instead of Tensor Core advice
    assert {row[6] for row in board.top_ops.rows} == {None}
    assert board.guidance[0].startswith("This run used the CPU") and "multiples of 8" not in " ".join(board.guidance)


def test_aggregation_range_counts_only_its_passes(cpu_report: Report) -> None:
    board = dashboard(cpu_report, 2, 4)
    assert board.range == Range(2, 4)
    assert [i.in_range for i in board.iterations] == [False, False, True, True, True, False]
    summary = dict(board.summary)
    assert summary["Wall Clock Time"] == f"{sum(cpu_report.passes_ms[2:5]):.3f} ms"
    assert summary["Average Iteration Time"] == f"{sum(cpu_report.passes_ms[2:5]) / 3:.3f} ms"
    assert ops_table(cpu_report, [], board.range).rows[0][3] == 3  # calls: the passes that count
    for start, stop in ((3, 2), (-1, 2), (0, 6)):
        with pytest.raises(ValueError, match=r"outside the measured passes 0\.\.5"):
            aggregation_range(cpu_report, start, stop)


def test_tables_filter_sort_and_csv(cpu_report: Report) -> None:
    ops = ops_table(cpu_report, [], aggregation_range(cpu_report))
    assert len(ops.rows) == len(cpu_report.layers)
    gemm = ops.filter("gemm", "Op Type")
    assert gemm.rows and all(row[2] == "Gemm" for row in gemm.rows)
    by_time = ops.sort("CPU ms")
    assert [r[4] for r in by_time.rows] == sorted((r[4] for r in ops.rows), reverse=True)
    types = op_type_summary(ops)
    conv = next(row for row in types.rows if row[0] == "Conv")
    assert conv[1] == sum(layer.type == "Conv" for layer in cpu_report.layers)
    assert conv[3] == pytest.approx(sum(layer.median_ms for layer in cpu_report.layers if layer.type == "Conv"))
    assert conv[7] is None  # no GPU time on a CPU run, not 0
    text = table_csv(gemm)
    assert text.splitlines()[0].startswith("#,Op Name,Op Type,Calls,CPU ms,GPU ms")
    with pytest.raises(ValueError, match="no column 'Nope'"):
        ops.sort("Nope")
    with pytest.raises(ValueError, match="not one of the report's"):
        kernels_by_op(cpu_report, [], aggregation_range(cpu_report), 10_000)


def test_csv_cells_of_hostile_names_are_inert(cpu_report: Report) -> None:
    hostile = Report(cpu_report.summary, cpu_report.passes_ms, [*cpu_report.layers])
    hostile.layers[0] = type(hostile.layers[0])(**{**vars(hostile.layers[0]), "name": "=HYPERLINK(\"x\")"})
    line = table_csv(ops_table(hostile, [], aggregation_range(hostile))).splitlines()[1]
    assert "'=HYPERLINK" in line


def test_gpu_run_without_kernel_records_says_so(trt_report: Report) -> None:
    board = dashboard(trt_report)
    why = absence(trt_report)
    assert "no kernel records" in why
    assert board.absent["kernel_time"] == why and board.absent["tc_efficiency"] == why and board.kernels == []
    # TensorRT layer times are GPU times: top ops by GPU ms, and the op table's GPU column holds them
    assert board.top_ops_time == "GPU ms" and "top_gpu_ops" not in board.absent
    assert board.top_ops is not None and board.top_ops.rows[0][5] == max(layer.median_ms for layer in trt_report.layers)
    assert any(row[6] is True for row in board.top_ops.rows)  # a GPU run marks its Tensor Core eligible ops


def test_idle_gaps_split_host_and_gpu_bound() -> None:
    """Three kernels: the second was launched while the first ran (queued: a GPU-bound gap), the third only after
    the second ended (the GPU waited for the host)."""
    kernels = [Kernel("a", "kernel", 0, 1.0, 1.0, True), Kernel("b", "kernel", 1, 2.5, 1.0, False),
               Kernel("c", "kernel", 2, 5.0, 0.5, False)]
    gaps = idle_gaps(kernels, 6.0, [0.5, 1.5, 4.0])
    assert gaps == [Gap(0.0, 1.0, "host"), Gap(2.0, 2.5, "gpu"), Gap(3.5, 5.0, "host"), Gap(5.5, 6.0, "host")]
    assert union_ms([(0, 2), (1, 3), (5, 6)]) == 4


def test_text_html_and_payload_carry_the_panels(cpu_report: Report) -> None:
    text = dashboard_text(cpu_report, 1, 3)
    assert "Performance Summary" in text and "passes 1..3 of 6" in text and "Not shown" in text
    assert "GPU Utilization, Total Kernel GPU Time, Tensor Core Kernel Efficiency" in text
    page = dashboard_html(cpu_report)
    assert 'id="dashboard"' in page and "Op Type Summary" in page and "no GPU ran" in page
    data = dashboard_data(cpu_report, 0, 2)
    assert data["range"] == [0, 2] and data["has_kernels"] is False and data["kernel_rows"]["rows"] == []
    assert set(data["tables"]) == {"op_types", "ops", "kernels"} and data["absent"]["utilization"]


def test_comparison_and_gpus_view_columns(cpu_report: Report, trt_report: Report) -> None:
    table = compare_dashboard([cpu_report, trt_report], ["cpu", "trt"])
    assert table.columns == ("Metric", "cpu", "trt")
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["Median pass ms"] == (cpu_report.summary.median_ms, trt_report.summary.median_ms)
    assert rows["GPU utilization %"] == (None, None)  # neither run has a measured utilization
    assert "no GPU ran" in rows["Not shown"][0] and "no kernel records" in rows["Not shown"][1]
    gpus = gpus_view(["cpu", "trt"], [cpu_report, trt_report])
    assert len(gpus.rows) == 1 and gpus.rows[0][2] == 1 and gpus.rows[0][5] == 1  # the CPU run is no GPU's


KERNELS = Path(__file__).resolve().parents[1] / "data" / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


@pytest.fixture(scope="module")
def gpu_report() -> Report:
    """Recorded on the H100 (tests/data/kernels/README.md): ResNet-50 FP16, CUPTI records of passes 32 and 33."""
    return load_report(KERNELS)


def test_kernel_records_render_every_panel(gpu_report: Report) -> None:
    board = dashboard(gpu_report)
    assert board.absent == {}  # nothing is missing from a CUDA report with kernel records
    records = gpu_report.kernels
    assert len(board.kernels) == len(records) == 496
    # Total kernel time: every record's GPU time, split Tensor Core / memory / other
    total = sum(r.duration_ms for r in records)
    assert sum(s.ms for s in board.kernel_time) == pytest.approx(total)
    tc = sum(r.duration_ms for r in records if r.tensor_core)
    assert board.kernel_time[0].ms == pytest.approx(tc)
    assert tc == pytest.approx(gpu_report.kernel_capture["tensor_core_check"]["tensor_core_ms"])
    # The five breakdown parts and busy + idle each cover the passes' time exactly
    assert sum(s.percent for s in board.breakdown) == pytest.approx(100.0)
    assert sum(s.percent for s in board.utilization) == pytest.approx(100.0)
    assert board.idle_ms("host") > 0 and board.idle_ms("gpu") > 0
    busy = next(s.ms for s in board.utilization if s.label == "Using GPU")
    assert busy + board.idle_ms("host") + board.idle_ms("gpu") == pytest.approx(sum(s.ms for s in board.breakdown))
    # Tensor Core efficiency as DLProf defines it: TC kernel time of eligible ops over all their kernel time
    layers = gpu_report.layers
    eligible = [r for r in records if r.kind == "kernel" and r.layer >= 0 and layers[r.layer].type in ("Conv", "Gemm")]
    expected = 100 * sum(r.duration_ms for r in eligible if r.tensor_core) / sum(r.duration_ms for r in eligible)
    assert board.tc_efficiency == pytest.approx(expected)
    # Top 10 ops by kernel time per counted pass (2 passes recorded), the slowest first
    assert board.top_ops is not None and board.top_ops_time == "GPU ms"
    first = board.top_ops.rows[0]
    own = [r for r in records if r.layer == first[0] and r.kind == "kernel"]
    assert first[5] == pytest.approx(sum(r.duration_ms for r in own) / 2) and first[7] is True
    # Iterations: kernels only on the recorded passes, the median marked
    recorded = [it for it in board.iterations if it.kernels is not None]
    assert [it.index for it in recorded] == [32, 33] and next(it for it in recorded if it.median).index == 33
    assert dict(board.system)["GPU Name(s)"] == "NVIDIA H100 80GB HBM3"
    assert {r.id for r in board.recommendations} >= {"tensor-core-use", "host-bound"}


def test_kernel_tables_and_range(gpu_report: Report) -> None:
    chosen = aggregation_range(gpu_report, 33, 33)
    ops = ops_table(gpu_report, kernels_of(gpu_report), chosen)
    conv1 = next(row for row in ops.rows if row[1] == "/conv1/Conv")
    by_op = kernels_by_op(gpu_report, kernels_of(gpu_report), chosen, conv1[0])
    own = [r for r in gpu_report.kernels if r.layer == conv1[0] and r.pass_index == 33]
    assert sum(row[2] for row in by_op.rows) == len(own)  # every activity of the op in pass 33, grouped by name
    assert conv1[8] == sum(r.kind == "kernel" for r in own)
    assert conv1[5] == pytest.approx(sum(r.duration_ms for r in own if r.kind == "kernel"))
    assert any(row[1] for row in by_op.rows)  # one of them on Tensor Cores
    # a range without recorded passes: kernel panels absent, saying why
    early = dashboard(gpu_report, 0, 10)
    assert "cover passes outside the aggregation range 0..10" in early.absent["kernel_time"]
    text = dashboard_text(gpu_report, rows=3)
    assert "Passes with kernel records       32, 33" in text and "host-bound" in text
    page = dashboard_html(gpu_report)
    assert "Tensor Core kernels" in page and "<h3>Kernels</h3>" in page and "no GPU ran" not in page


def test_cuda_run_without_kernel_records_shows_nvml_utilization_only(gpu_report: Report) -> None:
    """The H100 recording as a run without cupti-python writes it (no kernels, no capture): utilization from NVML's
    own samples, said to be that; the kernel panels absent with how to get them."""
    bare = load_report(KERNELS)
    bare.kernels, bare.kernel_capture = [], {}
    board = dashboard(bare)
    samples = next(s.values for s in bare.gpu_metrics if s.name == "sm_utilization")
    assert board.utilization[0].percent == pytest.approx(sum(samples) / len(samples))
    assert "NVML SM utilization" in board.utilization_source and "not kernel records" in board.utilization_source
    for panel in ("breakdown", "kernel_time", "tc_efficiency", "idle"):
        assert "no kernel records" in board.absent[panel] and "cupti-python" in board.absent[panel]
    assert board.top_ops_time == "CPU ms" and "ranked by CPU (host) time" in board.absent["top_gpu_ops"]
    page = str(dashboard_html(bare))
    utilization = page.split("<h3>GPU Utilization</h3>")[1].split("<h3>")[0]
    assert f"Using GPU: {board.utilization[0].percent:.1f} %" in utilization
    assert " ms" not in utilization.split("<p>")[0]


def test_gpus_view_has_a_row_per_gpu_of_a_two_gpu_sweep(gpu_report: Report, cpu_report: Report) -> None:
    """Points of a sweep on GPUs 0 and 1 (the recorded H100 report, and the same report as it would come from
    device 1) and a CPU point: one row per GPU, the CPU point in none; shown as a table in a notebook."""
    second = load_report(KERNELS)
    second.system = {**second.system, "gpu_index": 1}
    gpus = gpus_view(["a", "b", "cpu"], [gpu_report, second, cpu_report])
    assert [(row[0], row[1], row[2]) for row in gpus.rows] == [(0, "NVIDIA H100 80GB HBM3", 1),
                                                              (1, "NVIDIA H100 80GB HBM3", 1)]
    assert gpus.rows[0][3] == pytest.approx(dashboard(gpu_report).utilization[0].percent)
    html = gpus._repr_html_()
    assert html.startswith('<table class="dld-dashboard-table">') and html.count("<tr>") == 3


def test_many_passes_of_kernels_stay_fast(gpu_report: Report) -> None:
    """The fixture's 496 records repeated over 50 recorded passes of 5,040: grouping by pass once took 30 s when every
    iteration scanned every kernel; the viewer computes this when a report opens."""
    import dataclasses
    import time

    big = load_report(KERNELS)
    records = gpu_report.kernels
    big.kernels = [dataclasses.replace(k, pass_index=k.pass_index + 100 * i) for i in range(50) for k in records]
    big.kernel_capture = {**big.kernel_capture, "passes": 5040}
    big.passes_ms = big.passes_ms * 84
    started = time.perf_counter()
    data = dashboard_data(big)
    assert time.perf_counter() - started < 10.0
    assert len(data["kernel_rows"]["rows"]) == 24_800
    assert sum(i["kernels"] is not None for i in data["iterations"]) == 100


def test_text_of_200_recorded_passes_prints_ranges_and_rows_iterations(gpu_report: Report) -> None:
    """Every pass recorded: "Passes with kernel records" listed 200 numbers and every iteration was printed
    whatever --rows said; now runs of passes, and the first and last `rows` iterations with the median."""
    import dataclasses
    import re

    big = load_report(KERNELS)
    one = [k for k in gpu_report.kernels if k.pass_index == 33]
    big.kernels = [dataclasses.replace(k, pass_index=p) for p in range(200) for k in one]
    big.kernel_capture = {**big.kernel_capture, "passes": 200}
    big.passes_ms = (big.passes_ms * 10)[:205]
    text = dashboard_text(big, rows=3)
    assert re.search(r"Passes with kernel records +0-199 \(", text)
    shown = re.findall(r"^  [* ][m ] +(\d+) ", text, re.MULTILINE)
    assert len(shown) <= 7 and shown[:3] == ["0", "1", "2"] and shown[-3:] == ["202", "203", "204"]
    assert "  ... " in text


def test_kernel_passes_of_their_own_are_measured_by_their_own_wall_times(gpu_report: Report) -> None:
    """Kernel records from kernel passes (issue 35: `kernel_capture.series` "kernel") are judged against each pass's
    own wall time, CUPTI's cost included, not against the profiled median pass recorded without CUPTI."""
    own = copy.deepcopy(gpu_report)
    walls = [1.0] * 34
    walls[32], walls[33] = 20.0, 30.0  # longer than the fixture's passes, so the idle tail is the difference
    own.kernel_capture = {**own.kernel_capture, "series": "kernel", "passes_ms": walls}
    board = dashboard(own)
    assert sum(s.ms for s in board.breakdown) == pytest.approx(50.0)
    assert "2 passes, 50.000 ms in all (kernel passes, CUPTI on)" in board.utilization_source
    host_bound = next(r for r in board.recommendations if r.id == "host-bound")
    assert "of the 30.000 ms median kernel pass" in host_bound.problem
    assert f"against {own.summary.profiled_median_ms:.3f} ms without" in host_bound.problem
    older = dashboard(gpu_report)  # no passes_ms: each pass is the profiled median pass, or its last activity's end
    assert sum(s.ms for s in older.breakdown) < 2 * 10.0
