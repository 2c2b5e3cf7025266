"""Context menus stay inside the window and go away when the user turns elsewhere: the canvas menu opened at the
window's bottom-right corner flips left and up, closes on Escape, on a click elsewhere and on the wheel; the layer
explorer's menu near the window bottom flips up and closes on Escape."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas

MENU = ".dld-menu"
EXPLORER_MENU = ".dld-ExplorerMenu"


def _inside_window(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None
    size = page.viewport_size
    assert size is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], (box, size)
    return box


def test_context_menus_stay_inside_the_window_and_close(jupyter: JupyterServer, page: Page) -> None:
    (jupyter.root_dir / "menus.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    open_workspace(page, jupyter)
    open_from_file_browser(page, "menus.onnx", "Open With DL Designer")
    wait_canvas(page, 10)
    # the dock hidden (toolbar's Panels): the canvas reaches the window's right edge, where a menu must flip
    page.locator(f"{TAB} .dld-dock-toggle").first.click()
    expect(page.locator(f"{TAB} .dld-dock").first).to_be_hidden()
    page.wait_for_timeout(300)
    stage = page.locator(f"{TAB} .dld-stage").first.bounding_box()
    assert stage is not None
    # The canvas background at its bottom-right corner, a few pixels from the canvas and near the window edge.
    # The lowest visible point of the canvas: a designer taller than its tab scrolls inside it, cut at the tab's edge.
    x = stage["x"] + stage["width"] - 6
    y = page.evaluate(
        """([x, top, bottom]) => { for (let y = Math.min(bottom, innerHeight) - 1; y > top; y -= 2) {
               const hit = document.elementFromPoint(x, y); if (hit && hit.closest('.dld-stage')) return y - 4; }
             return bottom - 6; }""",
        [x, stage["y"], stage["y"] + stage["height"]],
    )
    page.evaluate(
        """() => { const cy = [...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy;
                   cy.pan({x: 20, y: 20}); cy.zoom(0.3); }"""
    )  # keep the graph away from the corner: the click lands on the background
    page.mouse.click(x, y, button="right")
    expect(page.locator(MENU)).to_be_visible()
    box = _inside_window(page, MENU)
    assert box["x"] + box["width"] <= x + 1 and box["y"] + box["height"] <= y + 1, "flipped left and up"
    expect(page.locator(MENU)).to_contain_text("Export as PNG")
    screenshot(page, "context_menu_flipped_at_corner")
    page.keyboard.press("Escape")
    expect(page.locator(MENU)).to_have_count(0)

    page.mouse.click(x, y, button="right")
    expect(page.locator(MENU)).to_be_visible()
    page.locator(".jp-DirListing-content").first.click()  # click-away: elsewhere on the page
    expect(page.locator(MENU)).to_have_count(0)

    page.mouse.click(x, y, button="right")
    expect(page.locator(MENU)).to_be_visible()
    page.mouse.move(stage["x"] + 40, stage["y"] + 40)
    page.mouse.wheel(0, 120)
    expect(page.locator(MENU)).to_have_count(0)

    # The layer explorer: a row's menu near the bottom of the window opens upwards.
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    rows = page.locator("#dld-jupyter-sidebar .dld-Explorer-row[data-id]")
    expect(rows.first).to_be_visible(timeout=30_000)
    row = rows.first.bounding_box()
    assert row is not None
    size = page.viewport_size
    assert size is not None
    rows.first.click(button="right", position={"x": 10, "y": 5})
    expect(page.locator(EXPLORER_MENU)).to_be_visible()
    _inside_window(page, EXPLORER_MENU)
    page.keyboard.press("Escape")
    expect(page.locator(EXPLORER_MENU)).to_have_count(0)
    # Opened at the window's bottom edge (as a right-click on the last visible row would), it flips up.
    page.evaluate(
        """([x, y]) => { const row = document.querySelector('#dld-jupyter-sidebar .dld-Explorer-row[data-id]');
            row.dispatchEvent(new MouseEvent('contextmenu', {bubbles: true, cancelable: true, clientX: x, clientY: y,
                                                              button: 2})); }""",
        [row["x"] + 10, size["height"] - 3],
    )
    expect(page.locator(EXPLORER_MENU)).to_be_visible()
    box = _inside_window(page, EXPLORER_MENU)
    assert box["y"] + box["height"] <= size["height"] - 3 + 1, "flipped up"
    screenshot(page, "explorer_menu_flipped_up")
    page.mouse.click(stage["x"] + stage["width"] - 20, stage["y"] + 20)  # click-away: on the canvas
    expect(page.locator(EXPLORER_MENU)).to_have_count(0)
