"""The report viewer's Dashboard tab in a real JupyterLab: a real CPU profile of the MobileNetV3 export (GPU panels
absent with their reason, the Iterations view's range re-aggregated by the kernel) and the CUDA report fixture with
kernel records (opens on the Dashboard, Kernels by Op from an iteration to an op to its kernels). Screenshots go to
test-artifacts/screenshots/dashboard_*.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dld_jupyter.activities.api import profile
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
    pane.locator(".dld-d-view[data-view='Iterations']").click()
    body = pane.locator(".dld-d-view-body[data-view='Iterations']")
    body.locator("input.dld-d-start").fill("1")
    body.locator("input.dld-d-stop").fill("2")
    body.locator("button.dld-d-apply").click()
    expect(pane.locator(".dld-d-badges")).to_contain_text("Profiled 2 · Start 1 · Stop 2", timeout=30_000)
    assert kernel_value(page, jupyter, "v.dashboard_range") == [1, 2]
    assert kernel_value(page, jupyter, "dict(v.dashboard['summary'])['Profiled Iterations']") == "2"
    expect(pane.locator(".dld-d-view-body")).to_have_attribute("data-view", "Iterations")  # the view stays
    bars = pane.locator("svg.dld-d-itchart rect[data-index]")
    expect(bars).to_have_count(6)
    fills = [bars.nth(i).get_attribute("fill") for i in range(6)]
    assert fills == ["#bbbbbb", "#E69F00", "#E69F00", "#bbbbbb", "#bbbbbb", "#bbbbbb"]
    screenshot(page, "dashboard_cpu_iterations", VIEWER)
    # Op Type Summary: sorted by a click on a header, filtered; the Layers tab still works.
    pane.locator(".dld-d-view[data-view='Op Type Summary']").click()
    table = pane.locator(".dld-d-table[data-table='op_types']")
    table.locator(".dld-d-filter").fill("conv")
    expect(table.locator(".dld-d-count")).to_contain_text("1 of")
    viewer.locator(".dld-r-vtab[data-tab='layers']").click()
    expect(viewer.locator(".dld-r-pane[data-tab='layers'] .dld-r-filter")).to_be_visible()
    assert kernel_value(page, jupyter, "v.tab") == "layers"
