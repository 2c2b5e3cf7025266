"""Keyboard shortcuts reach the canvas right after a click on a node, even when the editor panels re-render."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dld_jupyter.document import Document
from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import run_notebook, screenshot

CY = "[...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy"


def test_click_a_node_then_ctrl_s_saves(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE_MODEL, jupyter.root_dir / "keys.onnx")
    run_notebook(page, jupyter, "keys.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('keys.onnx')\nd.document.add_node('Relu', name='added_relu')\nd",
    ])
    page.wait_for_function(
        f"() => {{ try {{ return {CY}.nodes().length > 20; }} catch (e) {{ return false; }} }}", timeout=60_000
    )
    page.locator(".dld-canvas").first.scroll_into_view_if_needed()
    for _ in range(5):  # the check's relabelling may still move the glyphs under a click: aim again
        box = page.evaluate(
            f"() => {{ const cy = {CY}; const n = cy.nodes().filter(n => n.data('kind') === 'op')[0];"
            " cy.center(n); const p = n.renderedPosition(); const r = cy.container().getBoundingClientRect();"
            " return {x: r.left + p.x, y: r.top + p.y, id: n.id()}; }"
        )
        page.mouse.click(box["x"], box["y"])
        try:
            page.wait_for_function(f"(id) => {CY}.$(':selected').map(n => n.id()).includes(id)", arg=box["id"],
                                   timeout=5_000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError("a click on a node never selected it")
    page.wait_for_timeout(500)  # let the editor panels re-render for the new selection
    page.keyboard.press("Control+s")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-designer small')].some(s => s.textContent.includes('keys.onnx')"
        " && !s.textContent.includes('•'))",
        timeout=30_000,
    )
    screenshot(page, "canvas_ctrl_s_after_click")
    saved = Document.open(jupyter.root_dir / "keys.onnx")
    assert any(node.name == "added_relu" for node in saved.nodes())
    assert Path(jupyter.root_dir / "keys.ipynb").exists()  # the notebook was not what Ctrl+S saved
