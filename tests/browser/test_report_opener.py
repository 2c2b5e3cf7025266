"""A profiling report opens from the JupyterLab file browser into the report viewer (kernel reads the file)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from dld_jupyter.report_format.io import save_report
from dld_jupyter.reports.open import open_report
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, open_notebook, screenshot, write_notebook

TRT = Path(__file__).resolve().parents[1] / "data" / "trt"


def test_open_report_from_the_file_browser(jupyter: JupyterServer, page: Page) -> None:
    report = open_report(TRT / "tf-resnet50-rtx3090-fp16.engine.profile.json")
    save_report(report, jupyter.root_dir / "resnet50.dld-report.json")
    write_notebook(jupyter.root_dir / "reports_host.ipynb", ["1"])
    open_notebook(page, jupyter, "reports_host.ipynb")
    open_from_file_browser(page, "resnet50.dld-report.json", "Open With DL Designer Report Viewer")
    viewer = page.locator(".dld-DesignerDocument .dld-report").first
    expect(viewer).to_be_visible(timeout=90_000)
    expect(viewer).to_contain_text("tensorrt", ignore_case=True)
    expect(viewer).to_contain_text(str(len(report.layers)))
    screenshot(page, "report_opened_from_file_browser")
