"""Check against original as a run of the activity worker in a real JupyterLab (issues 30, 35): the designer shows
the shared job widget under its toolbar while the divergence runs (bar and "window k/n: … from <node>"), its Cancel
stops the worker (the window in flight ends), the bar turns to "cancelled" and no overlay is drawn; the toolbar button
starts a run the same way and, left alone, draws the overlay. Screenshots:
test-artifacts/screenshots/divergence_job_running.png, divergence_job_cancelled.png."""

from __future__ import annotations

import onnx
from playwright.sync_api import Page, expect

from tests import models
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_notebook, screenshot

JOB = ".dld-tool-job"


def test_check_against_original_shows_progress_and_cancel_works(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(models.transformer_like(layers=6), str(jupyter.root_dir / "job_model.onnx"))
    cells = ["import dld_jupyter as dld\nd = dld.open('job_model.onnx', grouping='none')\nd",
             "run = d.start_check_against_original(window=1)"]  # one tensor per window: hundreds of windows
    run_notebook(page, jupyter, "job.ipynb", cells)
    job = page.locator(JOB).first
    expect(job).to_be_visible(timeout=60_000)
    expect(job.locator(".widget-html-content")).to_contain_text("window ", timeout=60_000)
    expect(job.locator(".widget-html-content")).to_contain_text(" from /", timeout=10_000)  # the node, by ONNX name
    screenshot(page, "divergence_job_running", JOB)
    job.locator("button.dld-run-cancel").click()
    expect(job.locator(".widget-html-content")).to_have_text("cancelled", timeout=60_000)
    expect(job.locator("button.dld-run-cancel")).to_be_disabled()
    state = kernel_value(page, jupyter, "[run.status.value, run.progress.fraction, "
                         "bool(d.canvas.overlays.get('divergence') and d.canvas.overlays.get('divergence').shown)]")
    assert state[0] == "cancelled" and 0.0 < state[1] < 1.0 and state[2] is False
    expect(page.locator(".dld-tool-error")).to_contain_text("Check against original: cancelled")
    screenshot(page, "divergence_job_cancelled", JOB)
    page.locator(".dld-designer button", has_text="Check against original").first.click()  # the toolbar: a run too
    page.wait_for_selector(".dld-canvas[data-divergence='1']", timeout=120_000)
    expect(job.locator(".widget-html-content")).to_have_text("done")
