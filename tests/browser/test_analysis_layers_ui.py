"""Analysis layers in a real JupyterLab (issue 37): a designer of an image-to-image model, Launch Analysis, the
Parameter Editor tab's Analysis category inserting a Mix of the model's input and output, and the factor slider
moved with the keyboard (Home, then End) changing the Analysis Output's mix image in the page, the kernel's option
following. Screenshots, looked at: test-artifacts/screenshots/analysis_layers_*.png."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, open_notebook, run_all, screenshot, write_notebook
from tests.frontdoor.test_analysis_layers import _denoiser

PANEL = ".dld-analysis-panel"
MIX = f"""() => {{
  const s = [...document.querySelectorAll('{PANEL} .dld-ao-image-output')]
    .find(e => e.querySelector('.dld-ao-heading').textContent.includes('/analysis/Mix1'));
  const c = s && s.querySelector('canvas'); return c ? c.toDataURL() : null; }}"""


def mix_pixels(page: Page) -> str | None:
    value = page.evaluate(MIX)
    return str(value) if value is not None else None


def wait_kernel(page: Page, jupyter: JupyterServer, expression: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while kernel_value(page, jupyter, f"bool({expression})") is not True:
        assert time.monotonic() < deadline, f"the kernel never got to: {expression}"
        page.wait_for_timeout(250)


def test_mix_slider_changes_the_analysis_output(jupyter: JupyterServer, page: Page) -> None:
    path = _denoiser(jupyter.root_dir / "denoiser.onnx")
    saved = path.read_bytes()
    write_notebook(jupyter.root_dir / "layers.ipynb", [f"import dld_jupyter as dld\nd = dld.open({str(path)!r})\nd"])
    open_notebook(page, jupyter, "layers.ipynb")
    run_all(page, timeout_s=240)
    page.locator(".dld-launch-analysis").click()
    expect(page.locator(".dld-readonly-banner")).to_be_visible(timeout=120_000)
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Parameter Editor").first.click()
    page.locator(f"{PANEL} .dld-an-layer-a input").fill("image")
    page.locator(f"{PANEL} .dld-an-layer-b input").fill("clean")
    page.locator(f"{PANEL} .dld-an-layer-b input").press("Enter")
    wait_kernel(page, jupyter, "d.analysis_mode.panel.layers.second.value == 'clean'")
    page.locator(f"{PANEL} .dld-an-layer-insert").click()
    handle = page.locator(f"{PANEL} .dld-an-option-factor .noUi-handle").first
    expect(handle).to_be_visible(timeout=120_000)
    screenshot(page, "analysis_layers_inserted", PANEL)

    handle.focus()
    handle.press("Home")  # factor 0: the mix is the input
    wait_kernel(page, jupyter, "d.analysis.analysis_layers[0].options['factor'] == 0")
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Analysis Output").first.click()
    page.wait_for_function(f"() => ({MIX})() !== null", timeout=60_000)
    at_zero = mix_pixels(page)
    screenshot(page, "analysis_layers_factor0", PANEL)
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Parameter Editor").first.click()
    handle.focus()
    handle.press("End")  # factor 1: the mix is the output
    wait_kernel(page, jupyter, "d.analysis.analysis_layers[0].options['factor'] == 1")
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Analysis Output").first.click()
    page.wait_for_function(f"(before) => ({MIX})() !== before", arg=at_zero, timeout=60_000)
    screenshot(page, "analysis_layers_factor1", PANEL)
    assert mix_pixels(page) != at_zero
    assert kernel_value(page, jupyter, "not d.document.dirty") is True
    assert path.read_bytes() == saved
