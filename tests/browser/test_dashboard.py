"""The report viewer's Dashboard tab in a real JupyterLab: a real CPU profile of the MobileNetV3 export (GPU panels
absent with their reason, the Iterations view's range re-aggregated by the kernel) and the CUDA report fixture with
kernel records (opens on the Dashboard, Kernels by Op from an iteration to an op to its kernels). Screenshots go to
test-artifacts/screenshots/dashboard_*.png."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from dld_jupyter.activities.api import profile
from dld_jupyter.report_format.io import load_report
from dld_jupyter.reports.dashboard.panels import dashboard
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, open_notebook, run_all, screenshot, write_notebook

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"
VIEWER = ".dld-report[data-ready='1']"


@pytest.fixture(scope="module")
def cpu_report(jupyter: JupyterServer) -> Path:
    path = jupyter.root_dir / "mobilenet_dash.dld-report.json"
    profile(str(MODEL), iterations=6, warmup=1, threads=1, output=str(path))
    return path


def show(page: Page, jupyter: JupyterServer, name: str, report: Path) -> None:
    write_notebook(jupyter.root_dir / name, [f"import dld_jupyter as dld\nv = dld.report({str(report)!r})\nv"])
    open_notebook(page, jupyter, name)
    run_all(page)
    page.wait_for_selector(VIEWER, timeout=60_000)


def set_range(pane: Locator, start: int, stop: int) -> None:
    """In the Iterations view, type the range and reaggregate; wait for the kernel's panels (the badges)."""
    pane.locator(".dld-d-view[data-view='Iterations']").click()
    body = pane.locator(".dld-d-view-body[data-view='Iterations']")
    body.locator("input.dld-d-start").fill(str(start))
    body.locator("input.dld-d-stop").fill(str(stop))
    body.locator("button.dld-d-apply").click()
    counted = f"Profiled {stop - start + 1} · Start {start} · Stop {stop}"
    expect(pane.locator(".dld-d-badges")).to_contain_text(counted, timeout=30_000)


def test_cpu_dashboard_says_why_and_the_range_reaggregates(
    jupyter: JupyterServer, page: Page, cpu_report: Path
) -> None:
    show(page, jupyter, "dash_cpu.ipynb", cpu_report)
    viewer = page.locator(VIEWER).first
    expect(viewer).to_have_attribute("data-tab", "layers")  # a CPU run opens on its layers
    viewer.locator(".dld-r-vtab[data-tab='dashboard']").click()
    expect(viewer).to_have_attribute("data-tab", "dashboard")
    pane = viewer.locator(".dld-r-pane[data-tab='dashboard']")
    # the GPU panels are said absent once, with the reason, and not drawn empty
    absent = pane.locator(".dld-d-absent[data-panels='utilization kernel_time tc_efficiency idle']")
    expect(absent).to_contain_text("GPU Utilization, Total Kernel GPU Time, Tensor Core Kernel Efficiency, GPU Idle")
    expect(absent).to_contain_text("not shown: this run used CPUExecutionProvider: no GPU ran")
    expect(pane.locator(".dld-d-panel[data-panel='utilization']")).to_have_count(0)
    expect(pane.locator(".dld-d-panel[data-panel='breakdown']")).to_contain_text("Host/CPU (op time)")
    expect(pane.locator(".dld-d-panel[data-panel='top_ops'] tr")).to_have_count(11)
    screenshot(page, "dashboard_cpu_overview", VIEWER)
    # The Iterations view: set the range 1..2 and reaggregate; the kernel recomputes, the badges and bars follow.
    set_range(pane, 1, 2)
    assert kernel_value(page, jupyter, "v.dashboard_range") == [1, 2]
    assert kernel_value(page, jupyter, "dict(v.dashboard['summary'])['Profiled Iterations']") == "2"
    expect(pane.locator(".dld-d-view-body")).to_have_attribute("data-view", "Iterations")  # the view stays
    bars = pane.locator("svg.dld-d-itchart rect[data-index]")
    expect(bars).to_have_count(6)
    fills = [bars.nth(i).get_attribute("fill") for i in range(6)]
    assert fills == ["#dddddd", "#7f8c9a", "#7f8c9a", "#dddddd", "#dddddd", "#dddddd"]
    screenshot(page, "dashboard_cpu_iterations", VIEWER)
    # Op Type Summary: sorted by a click on a header, filtered; the Layers tab still works.
    pane.locator(".dld-d-view[data-view='Op Type Summary']").click()
    table = pane.locator(".dld-d-table[data-table='op_types']")
    table.locator(".dld-d-filter").fill("conv")
    expect(table.locator(".dld-d-count")).to_contain_text("1 of")
    viewer.locator(".dld-r-vtab[data-tab='layers']").click()
    expect(viewer.locator(".dld-r-pane[data-tab='layers'] .dld-r-filter")).to_be_visible()
    assert kernel_value(page, jupyter, "v.tab") == "layers"


KERNELS = REPO / "tests" / "data" / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


def test_cuda_report_opens_on_the_dashboard_and_kernels_by_op(jupyter: JupyterServer, page: Page) -> None:
    """The kernel-records fixture recorded on the H100 (ResNet-50 FP16): every panel drawn, then Kernels by Op
    from iteration 33 to /conv1/Conv to its kernels, each row the kernel computed."""
    report = jupyter.root_dir / KERNELS.name
    report.write_bytes(KERNELS.read_bytes())
    show(page, jupyter, "dash_cuda.ipynb", report)
    viewer = page.locator(VIEWER).first
    expect(viewer).to_have_attribute("data-tab", "dashboard")  # a CUDA report opens on its dashboard
    pane = viewer.locator(".dld-r-pane[data-tab='dashboard']")
    for panel in ("utilization", "breakdown", "kernel_time", "tc_efficiency", "idle", "summary", "iterations",
                  "top_ops", "system", "recommendations", "guidance"):
        expect(pane.locator(f".dld-d-panel[data-panel='{panel}']")).to_have_count(1)
    expect(pane.locator(".dld-d-absent")).to_have_count(0)
    expect(pane.locator(".dld-d-panel[data-panel='utilization']")).to_contain_text("Using GPU")
    expect(pane.locator(".dld-d-panel[data-panel='idle']")).to_contain_text("Host-bound")
    expect(pane.locator(".dld-d-panel[data-panel='top_ops']")).to_contain_text("/conv1/Conv")
    screenshot(page, "dashboard_cuda_overview", VIEWER)
    pane.locator(".dld-d-view[data-view='Kernels by Op']").click()
    iterations = pane.locator(".dld-d-table[data-table='iterations']")
    iterations.locator(".dld-d-filter").fill("33")
    iterations.locator("tbody tr").filter(has=page.locator("td:first-child", has_text=re.compile("^33$"))).click()
    ops = pane.locator(".dld-d-table[data-table='ops_in_iteration']")
    ops.locator(".dld-d-filter").fill("/conv1/Conv")  # also matches its input cast and /layerN.../conv1/Conv
    ops.locator("tbody tr").filter(has=page.locator("td", has_text=re.compile("^/conv1/Conv$"))).click()
    kernels = pane.locator(".dld-d-table[data-table='kernels_in_op']")
    expected = kernel_value(page, jupyter, "[k.name for k in v.report.kernels if k.pass_index == 33 and "
                                           "v.report.layers[k.layer].name == '/conv1/Conv']")
    expect(kernels.locator("tbody tr")).to_have_count(len(expected))
    assert sorted(kernels.locator("tbody tr td:first-child").all_inner_texts()) == sorted(expected)
    screenshot(page, "dashboard_cuda_kernels_by_op", VIEWER)
    # the Iterations view of the recorded passes: the range set to the median pass alone
    set_range(pane, 33, 33)
    summary = kernel_value(page, jupyter, "dict(v.dashboard['summary'])")
    assert summary["Passes with kernel records"].startswith("32, 33 (1 counted")
    screenshot(page, "dashboard_cuda_iterations", VIEWER)


def test_comparison_dashboard_has_a_column_per_report(jupyter: JupyterServer, page: Page, cpu_report: Path) -> None:
    """The CUDA fixture beside the CPU profile: one column per report, the reason where the CPU run has none, and
    the GPUs view listing the H100 only."""
    cuda = jupyter.root_dir / KERNELS.name
    cuda.write_bytes(KERNELS.read_bytes())
    call = f"dld.compare({str(cuda)!r}, {str(cpu_report)!r}, labels=['h100', 'cpu'])"
    cells = [f"import dld_jupyter as dld\nv = {call}\nv"]
    write_notebook(jupyter.root_dir / "dash_compare.ipynb", cells)
    open_notebook(page, jupyter, "dash_compare.ipynb")
    run_all(page)
    viewer = page.locator(VIEWER).first
    expect(viewer).to_have_attribute("data-tab", "dashboard")
    runs = viewer.locator(".dld-d-table[data-table='compare_dashboard']")
    expect(runs.locator("th")).to_have_text(["Metric", "h100", "cpu"])
    utilization = runs.locator("tbody tr").filter(has_text="GPU utilization %")
    using = dashboard(load_report(KERNELS)).utilization[0].percent  # the single report's panel figure
    expect(utilization.locator("td").nth(1)).to_have_text(f"{using:.4f}")
    expect(utilization.locator("td").nth(2)).to_have_text("")  # none for the CPU run, not 0
    expect(runs.locator("tbody tr").filter(has_text="Not shown")).to_contain_text("no GPU ran")
    gpus = viewer.locator(".dld-d-table[data-table='gpus']")
    expect(gpus.locator("tbody tr")).to_have_count(1)
    expect(gpus.locator("tbody tr")).to_contain_text("NVIDIA H100 80GB HBM3")
    screenshot(page, "dashboard_compare", VIEWER)
