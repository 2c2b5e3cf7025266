"""Double-clicking our files in JupyterLab's file browser opens them in the DL Designer (js/src/lab/default_open.ts):
an .onnx in a designer tab, without the browser ever downloading the model; a report in the report viewer; a
.trt.json or a trtexec --exportLayerInfo .graph.json as an engine graph (the .graph.json opened in the JSON viewer
before). Before, an .onnx double-click downloaded the model into the text editor and failed
with "File Load Error … is not UTF-8 encoded"."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page, Request, expect

from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.report_format.io import save_report
from dld_jupyter.reports.open import open_report
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.tab_driver import TAB, double_click, open_workspace, wait_canvas

TRT = Path(__file__).resolve().parents[1] / "data" / "trt"


def test_double_click_opens_models_reports_and_engines_in_the_designer(jupyter: JupyterServer, page: Page) -> None:
    (jupyter.root_dir / "clicked.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    report = open_report(TRT / "tf-resnet50-rtx3090-fp16.engine.profile.json")
    save_report(report, jupyter.root_dir / "clicked.dld-report.json")
    shutil.copy(TRT / "tf-resnet50-rtx3090-fp16.engine.graph.json", jupyter.root_dir / "clicked.trt.json")
    shutil.copy(TRT / "tf-resnet50-rtx3090-fp16.engine.graph.json", jupyter.root_dir / "trtexec.graph.json")
    contents: list[str] = []

    def record(request: Request) -> None:
        if "/api/contents/clicked.onnx" in request.url:
            contents.append(request.url)

    page.on("request", record)
    open_workspace(page, jupyter)

    double_click(page, "clicked.onnx")
    wait_canvas(page, 20)
    expect(page.locator("li.lm-TabBar-tab", has_text="clicked.onnx")).to_have_count(1)
    expect(page.locator(".jp-Dialog", has_text="File Load Error")).to_have_count(0)
    screenshot(page, "default_open_onnx")
    assert contents, "JupyterLab asked the server about the file"
    assert not [url for url in contents if "content=1" in url], f"the model was downloaded: {contents}"

    double_click(page, "clicked.onnx")  # again: its tab comes forward, no second one
    expect(page.locator("li.lm-TabBar-tab", has_text="clicked.onnx")).to_have_count(1)

    double_click(page, "clicked.dld-report.json")
    viewer = page.locator(f"{TAB} .dld-report").first
    expect(viewer).to_be_visible(timeout=90_000)
    expect(viewer).to_contain_text(str(len(report.layers)))
    expect(page.locator(".jp-JSONEditor, .jp-RenderedJSON")).to_have_count(0)

    double_click(page, "clicked.trt.json")
    expect(page.locator("li.lm-TabBar-tab", has_text="clicked.trt.json")).to_have_count(1, timeout=90_000)
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('{TAB} .dld-canvas *')]
                 .some(e => e._cyreg && e._cyreg.cy.nodes().length >= 80)""",
        timeout=90_000,
    )
    screenshot(page, "default_open_engine")

    double_click(page, "trtexec.graph.json")  # trtexec's own name for the layer information
    expect(page.locator("li.lm-TabBar-tab", has_text="trtexec.graph.json")).to_have_count(1, timeout=90_000)
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('{TAB} .dld-canvas *')]
                 .filter(e => e._cyreg && e._cyreg.cy.nodes().length >= 80).length >= 2""",  # both engine tabs
        timeout=90_000,
    )
    expect(page.locator(".jp-JSONEditor, .jp-RenderedJSON")).to_have_count(0)


def test_notebook7_opens_a_model_from_its_file_page_in_the_designer(jupyter: JupyterServer, page: Page) -> None:
    # Notebook 7 opens a file clicked in its tree on /edit/<path>, with the file type's default factory.
    (jupyter.root_dir / "nb7_clicked.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    page.goto(f"{jupyter.url}/edit/nb7_clicked.onnx?token={jupyter.token}")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-canvas *')].some(e => e._cyreg && e._cyreg.cy.nodes().length > 20)",
        timeout=90_000,
    )
    expect(page.locator(".jp-Dialog", has_text="File Load Error")).to_have_count(0)
    screenshot(page, "default_open_notebook7")
