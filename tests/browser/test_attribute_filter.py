"""Filter the layer explorer by any attribute, in a real JupyterLab (issue 41, seed 000 advanced filters): on the
bundled ResNet-8, `kernel_shape=[3, 3]` keeps the seven 3x3 convolutions, the gear's badge counts the filter, a bad
term is explained under the field, and clearing it shows every layer again."""

from __future__ import annotations

import shutil

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import run_notebook, screenshot
from tests.browser.sidebar_driver import PANEL, expect_layers, open_sidebar
from tests.browser.test_sidebar import SAMPLE


def test_filter_layers_by_an_attribute(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "resnet8.onnx")
    run_notebook(page, jupyter, "attrs.ipynb", ["import dld_jupyter as dld\nd = dld.open('resnet8.onnx')\nd"])
    page.wait_for_selector(".dld-canvas", timeout=60_000)
    open_sidebar(page)
    panel = page.locator(PANEL)
    count = panel.locator(".dld-Explorer-count")
    expect_layers(page, "29 of 29 layers", 30_000)
    panel.locator(".dld-Explorer-gear").click()
    field = panel.locator(".dld-Explorer-attrInput")
    field.fill("kernel_shape=[3, 3]")
    field.press("Enter")
    expect(count).to_contain_text("7 of 29 layers", timeout=30_000)
    expect(panel.locator(".dld-Explorer-attrNote")).to_contain_text("7 layers match")
    expect(panel.locator(".dld-Explorer-badge")).to_have_text("1")
    screenshot(page, "explorer_attribute_filter")
    field = panel.locator(".dld-Explorer-attrInput")
    field.fill("=3")
    field.press("Enter")
    expect(panel.locator(".dld-Explorer-attrNote")).to_contain_text("is not a term")
    field.fill("")
    field.press("Enter")
    expect(count).to_contain_text("29 of 29 layers", timeout=30_000)
