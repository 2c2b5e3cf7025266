"""The designer laid out like a tool (issue 21), in a real JupyterLab: the real MobileNetV3 export opened from the
file browser in a DL Designer tab has its editors docked beside the canvas (bounding boxes), the splitter resizes
the dock (the width changes in the page and reaches the kernel), the toolbar's Panels button collapses and expands
it, the designer fills the tab without a page or tab scrollbar, and the Profile panel opens in the dock; the same
designer in a notebook cell is laid out the same, dock as high as the canvas. Screenshots:
test-artifacts/screenshots/dock_tab*.png, dock_notebook.png."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.console_errors import expect_console_error
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import (
    open_from_file_browser,
    open_notebook,
    run_all,
    run_in_kernel,
    screenshot,
    write_notebook,
)
from tests.browser.tab_driver import TAB, open_workspace, profile_from_tab, wait_canvas

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"

BOXES = """(root) => {
  const box = (sel) => { const e = root.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height, shown: r.width > 0}; };
  return {canvas: box('.dld-designer-canvas .dld-canvas'), dock: box('.dld-dock'), splitter: box('.dld-splitter'),
          toolbar: box('.dld-dock-toggle'), designer: box('.dld-designer')};
}"""

SCROLLS = """() => {
  const over = (e) => e && e.scrollHeight > e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'hidden';
  const content = document.querySelector('.jp-mod-current .jp-CodeConsole-content')
    || document.querySelector('.dld-DesignerDocument:not(.lm-mod-hidden) .jp-CodeConsole-content');
  return {page: document.scrollingElement.scrollHeight > window.innerHeight + 1, tab: over(content)};
}"""


def boxes(page: Page, root: str) -> dict[str, Any]:
    return page.locator(root).first.evaluate(BOXES)  # type: ignore[no-any-return]


def assert_docked_beside(b: dict[str, Any]) -> None:
    canvas, dock = b["canvas"], b["dock"]
    assert canvas and dock and dock["shown"], b
    assert dock["x"] >= canvas["x"] + canvas["w"] - 1, f"the dock is right of the canvas: {b}"
    assert abs(dock["y"] - canvas["y"]) <= 2, f"dock and canvas start at the same height: {b}"
    assert abs(dock["h"] - canvas["h"]) <= 3, f"the dock is as high as the canvas: {b}"
    assert canvas["w"] > dock["w"], f"the canvas takes the main area: {b}"


def close_launcher(page: Page) -> None:
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        for (const w of [...shell.widgets('main')]) if (w.title.label === 'Launcher') w.close();
        shell.collapseLeft(); }""")
    page.wait_for_timeout(500)


def kernel_value(page: Page, jupyter: JupyterServer, expression: str) -> Any:
    out = jupyter.root_dir / "dock_probe.json"
    out.unlink(missing_ok=True)
    run_in_kernel(page, f"import json as _j; open({str(out)!r}, 'w').write(_j.dumps({expression}))")
    page.wait_for_timeout(300)
    for _ in range(100):
        if out.exists() and out.read_text():
            return json.loads(out.read_text())
        page.wait_for_timeout(100)
    raise AssertionError(f"the kernel never answered {expression}")


def test_dock_in_a_designer_tab(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, MODEL.name, "Open With DL Designer")
    wait_canvas(page, 20)
    close_launcher(page)  # the designer tab gets the main area (the file browser folded)
    page.wait_for_selector(f"{TAB} .dld-dock .dld-ed-tabs", timeout=60_000)  # the editors are in the dock
    page.wait_for_timeout(500)
    before = boxes(page, TAB)
    assert_docked_beside(before)
    tab = page.locator(TAB).first.bounding_box()
    assert tab is not None
    canvas = before["canvas"]
    assert canvas["h"] > 0.6 * tab["height"], f"the canvas fills the tab's height: {before} in {tab}"
    assert canvas["y"] + canvas["h"] <= tab["y"] + tab["height"] + 1, "the designer ends inside the tab"
    assert page.evaluate(SCROLLS) == {"page": False, "tab": False}, "no page or tab scrollbar"
    screenshot(page, "dock_tab")

    splitter = before["splitter"]
    x, y = splitter["x"] + splitter["w"] / 2, splitter["y"] + splitter["h"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 80, y, steps=4)
    page.mouse.move(x - 150, y, steps=4)
    page.mouse.up()
    page.wait_for_timeout(500)
    wider = boxes(page, TAB)
    assert wider["dock"]["w"] >= before["dock"]["w"] + 140, f"dragging the splitter widens the dock: {wider}"
    assert wider["canvas"]["w"] <= before["canvas"]["w"] - 140, "and the canvas gives the room"
    assert_docked_beside(wider)
    size = kernel_value(page, jupyter, "_dld_view.side_dock.size")
    assert abs(size - wider["dock"]["w"]) <= 2, f"the kernel keeps the new width ({size} px) for the session"
    screenshot(page, "dock_tab_resized")

    toggle = page.locator(f"{TAB} .dld-dock-toggle").first
    toggle.click()
    expect(page.locator(f"{TAB} .dld-dock").first).to_be_hidden()
    page.wait_for_timeout(400)
    collapsed = boxes(page, TAB)
    assert collapsed["canvas"]["w"] >= wider["canvas"]["w"] + wider["dock"]["w"], "collapsed: the canvas widens"
    screenshot(page, "dock_tab_collapsed")
    toggle.click()
    expect(page.locator(f"{TAB} .dld-dock").first).to_be_visible()
    page.wait_for_timeout(400)
    expanded = boxes(page, TAB)
    assert abs(expanded["dock"]["w"] - wider["dock"]["w"]) <= 2, "expanded at the width it had"
    assert_docked_beside(expanded)

    page.locator(f"{TAB} button", has_text="Profile").first.click()
    page.wait_for_selector(f"{TAB} .dld-dock .dld-profile-panel", timeout=30_000)
    page.wait_for_timeout(500)
    assert_docked_beside(boxes(page, TAB))
    assert page.evaluate(SCROLLS) == {"page": False, "tab": False}, "the Profile panel scrolls inside the dock"
    screenshot(page, "dock_tab_profile")


def test_dock_in_a_notebook_cell(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    cells = [
        f"import dld_jupyter as dld\nd = dld.open({MODEL.name!r}, height='520px')\nd",
        f"b = dld.open({MODEL.name!r}, height='360px', dock='bottom')\nb",
    ]
    write_notebook(jupyter.root_dir / "dock.ipynb", cells)
    open_notebook(page, jupyter, "dock.ipynb")
    run_all(page, timeout_s=180)
    page.wait_for_selector(".jp-Notebook .dld-dock .dld-ed-tabs", timeout=60_000)
    page.locator(".jp-Notebook .dld-designer").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    b = boxes(page, ".jp-Notebook .jp-OutputArea-output:has(.dld-designer)")
    assert_docked_beside(b)
    assert abs(b["canvas"]["h"] - 520) <= 3, f"in a cell the canvas keeps its height option: {b}"
    dock_scroll = page.locator(".jp-Notebook .dld-dock").first.evaluate(
        "(e) => ({overflow: getComputedStyle(e).overflowY, client: e.clientHeight})"
    )
    assert dock_scroll["overflow"] == "auto" and dock_scroll["client"] <= 522, dock_scroll
    page.locator(".jp-Notebook .dld-designer").first.scroll_into_view_if_needed()
    screenshot(page, "dock_notebook")

    # the bottom dock (second cell): below the canvas, as wide; the splitter resizes its height
    bottom_root = ".jp-Notebook .jp-OutputArea-output:has(.dld-dock-bottom)"
    page.wait_for_selector(f"{bottom_root} .dld-dock .dld-ed-tabs", timeout=60_000)
    page.locator(f"{bottom_root} .dld-dock").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    bb = boxes(page, bottom_root)
    assert bb["dock"]["y"] >= bb["canvas"]["y"] + bb["canvas"]["h"] - 1, f"the dock is below the canvas: {bb}"
    assert abs(bb["dock"]["w"] - bb["canvas"]["w"]) <= 3 and abs(bb["canvas"]["h"] - 360) <= 3, bb
    splitter = bb["splitter"]
    x, y = splitter["x"] + splitter["w"] / 2, splitter["y"] + splitter["h"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 60, steps=4)
    page.mouse.up()
    page.wait_for_timeout(400)
    taller = boxes(page, bottom_root)
    assert taller["dock"]["h"] >= bb["dock"]["h"] + 55, f"dragging the splitter up makes the dock taller: {taller}"
    page.locator(bottom_root).first.scroll_into_view_if_needed()
    screenshot(page, "dock_notebook_bottom")


SELECTED = """() => {
  const panel = [...document.querySelectorAll('.dld-DesignerDocument')].find(p => p.querySelector('.dld-designer'));
  const cy = [...panel.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy;
  const stage = panel.querySelector('.dld-designer-canvas .dld-canvas').getBoundingClientRect();
  const nodes = cy.nodes(':selected').map(n => { const b = n.renderedBoundingBox();
    return {id: n.id(), x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2}; });
  return {nodes, width: cy.width(), height: cy.height(), stage: {w: stage.width, h: stage.height},
          current: window.jupyterapp.shell.currentWidget.node === panel};
}"""


def test_profile_report_opens_split_beside_and_links_focus_the_designer(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, MODEL.name, "Open With DL Designer")
    wait_canvas(page, 20)
    close_launcher(page)
    page.locator(f"{TAB} button", has_text="Profile").first.click()
    page.wait_for_selector(f"{TAB} .dld-dock .dld-profile-panel", timeout=30_000)
    report_tab = profile_from_tab(page)
    designer_tab = page.locator(".dld-DesignerDocument:has(.dld-designer)").first
    d, r = designer_tab.bounding_box(), report_tab.first.bounding_box()
    assert d and r and d["width"] > 200 and r["width"] > 200, (d, r)
    assert r["x"] >= d["x"] + d["width"] - 2 and abs(r["y"] - d["y"]) <= 2, f"the report is split beside: {d} {r}"
    report_kernel = page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id")
    designer_kernel = page.evaluate(
        """() => [...window.jupyterapp.shell.widgets('main')].find(w => w.node.querySelector('.dld-designer'))
                 .sessionContext.session.kernel.id"""
    )
    assert report_kernel == designer_kernel, "the report tab runs on the designer's kernel"
    label = page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label")
    # named after its file: the model's default report, numbered when an earlier test of the session left one
    assert re.fullmatch(r"mobilenet_v3_small_w05(-\d+)?\.dld-report\.json", label), label
    screenshot(page, "dock_report_split")

    # the designer tab in the background (another tab over it in its area), then a layer's name link
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    page.evaluate(
        """() => { const shell = window.jupyterapp.shell;
                   const report = [...shell.widgets('main')].find(w => w.node.querySelector('.dld-r-link'));
                   shell.activateById(report.id); }"""
    )
    link = report_tab.first.locator(".dld-r-link").nth(5)
    name = link.inner_text()
    link.click()
    page.wait_for_function(f"() => ({SELECTED})().current && ({SELECTED})().nodes.length > 0", timeout=30_000)
    page.wait_for_timeout(600)  # the centring animation
    state = page.evaluate(SELECTED)
    assert state["current"], "the link activates the designer tab"
    for node in state["nodes"]:
        assert node["x1"] >= 0 and node["x2"] <= state["width"], f"{name}: the node is inside the canvas: {state}"
        assert node["y1"] >= 0 and node["y2"] <= state["height"], f"{name}: the node is inside the canvas: {state}"
    selected = kernel_value(
        page, jupyter, "[n.name for n in _dld_view.document.nodes() if n.id in _dld_view.canvas.selection]"
    )
    assert selected and all(n in name or name in n for n in selected), f"the link {name!r} selected {selected}"
    screenshot(page, "dock_report_link_focused")

    # profiling again keeps the first report (issue 42: a run never replaces a report it was not told to): the new
    # one, numbered, opens in a tab of its own and the first tab still shows the first report
    page.evaluate("() => { for (const e of document.querySelectorAll('.dld-r-link')) e.dataset.old = '1'; }")
    old_links = page.locator(".dld-DesignerDocument .dld-r-link[data-old]").count()
    page.locator(f"{TAB} .dld-profile-panel button", has_text="Profile").first.click()
    page.wait_for_function(
        """() => [...document.querySelectorAll('.dld-DesignerDocument .dld-r-link')].some(e => !e.dataset.old)""",
        timeout=240_000,
    )
    expect(page.locator(".dld-DesignerDocument")).to_have_count(3)
    expect(page.locator(".dld-DesignerDocument .dld-r-link[data-old]")).to_have_count(old_links)
    reports = jupyter.root_dir.glob("mobilenet_v3_small_w05*.dld-report.json")
    newest = max(reports, key=lambda path: path.stat().st_mtime_ns)
    assert newest.name != label and (jupyter.root_dir / label).is_file(), (newest, label)
    expect(page.locator(".lm-TabBar-tab", has_text=newest.name)).to_have_count(1)

    # closing the designer tab (its kernel shut down) closes the report tab that shared it; the new report took the
    # focus, so the designer tab is closed by its title. JupyterLab's debugger logs the request that kernel never
    # answered (its own, from the shutdown this step makes).
    expect_console_error(page, r"Canceled future for (debug_request|create_subshell_request) message")
    page.evaluate("""() => { for (const w of window.jupyterapp.shell.widgets('main'))
                               if (w.title.label.endsWith('.onnx')) w.close(); }""")
    expect(page.locator(".dld-DesignerDocument")).to_have_count(0, timeout=30_000)


def test_a_subgraph_designer_fills_the_tab_too(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL.parent / "gru_scripted.onnx", jupyter.root_dir / "gru.onnx")
    open_workspace(page, jupyter)
    open_from_file_browser(page, "gru.onnx", "Open With DL Designer")
    wait_canvas(page, 3)
    close_launcher(page)
    run_in_kernel(
        page, "_dld_view.open_subgraph(next(n.id for n in _dld_view.document.nodes() if n.op_type == 'Loop'), 'body')"
    )
    page.wait_for_selector(f"{TAB} .dld-child-designer .dld-dock .dld-ed-tabs", timeout=60_000)
    page.wait_for_timeout(800)
    b = boxes(page, f"{TAB} .dld-child-designer")
    assert_docked_beside(b)
    tab = page.locator(TAB).first.bounding_box()
    assert tab is not None
    assert b["canvas"]["h"] > 0.5 * tab["height"], f"the subgraph's canvas fills the tab: {b} in {tab}"
    assert b["canvas"]["y"] + b["canvas"]["h"] <= tab["y"] + tab["height"] + 1, "and ends inside it"
    assert page.evaluate(SCROLLS) == {"page": False, "tab": False}, "no page or tab scrollbar"
    screenshot(page, "dock_tab_subgraph")
