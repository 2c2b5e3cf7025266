"""The Sweep form in a real JupyterLab (issue 28): a 2 models x 2 batch sizes grid built in the form runs, the live
table shows every point done, the Pareto chart draws the four points, and two chosen points open in the report
comparison. Screenshots: test-artifacts/screenshots/sweep_form.png, sweep_form_pareto.png,
sweep_form_compare.png.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from playwright.sync_api import Page, expect

from tests.activities import _models as models
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook

REPO = Path(__file__).resolve().parents[2]


def test_build_run_chart_and_compare_a_sweep(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    onnx.save(models.resnet_like(blocks=1, channels=4, size=8), str(root / "sweep_a.onnx"))
    onnx.save(models.resnet_like(blocks=1, channels=8, size=8), str(root / "sweep_b.onnx"))
    write_notebook(root / "sweep_form.ipynb", [
        f"import os, sys\nsys.path.insert(0, {str(REPO)!r})\nos.environ['PYTHONPATH'] = {str(REPO)!r}\n"
        "import dld_jupyter as dld\nf = dld.sweep_form('sweep_a.onnx', batch='1', out='sweep_out', iterations=3)\nf",
    ])
    open_notebook(page, jupyter, "sweep_form.ipynb")
    run_all(page)
    panel = page.locator(".dld-sweep-panel").first
    expect(panel).to_be_visible(timeout=120_000)
    models_box = panel.locator("textarea").first
    models_box.fill(f"{root / 'sweep_a.onnx'}\n{root / 'sweep_b.onnx'}")
    batch = panel.locator(".widget-text input").first
    batch.fill("1,2")
    batch.press("Enter")
    panel.locator(".dld-run-progress button.mod-primary").click()
    expect(panel.locator(".dld-run-progress")).to_contain_text("4 done", timeout=240_000)
    expect(panel.locator("table.dld-sweep tr.dld-sweep-done")).to_have_count(4)
    panel.get_by_role("button", name="Pareto chart").click()
    expect(panel.locator(".scatterlayer .points path")).to_have_count(4, timeout=120_000)
    panel.locator(".scatterlayer").first.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_pareto")
    chosen = panel.locator("select").last
    options = chosen.locator("option")
    expect(options).to_have_count(4)
    chosen.select_option([options.nth(0).inner_text(), options.nth(3).inner_text()])
    panel.get_by_role("button", name="Compare").click()
    expect(panel.locator(".dld-report").first).to_be_visible(timeout=120_000)
    expect(panel.locator(".dld-report").first).to_contain_text("000-sweep_a-b1-cpu-fp32")
    screenshot(page, "sweep_form")
    panel.locator(".dld-report").first.scroll_into_view_if_needed()
    screenshot(page, "sweep_form_compare")
