"""Navigation (issue 26, item 3), in a real JupyterLab: a double-click in the layer explorer centres the node on the
canvas at a readable zoom, its collapsed group expanded.
Screenshots: test-artifacts/screenshots/navigation_*.png."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import run_in_kernel, screenshot
from tests.browser.real_reports import MODEL, mobilenet_reports
from tests.browser.tab_driver import TAB, open_workspace, wait_workspace_has

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
PANEL = "#dld-jupyter-sidebar"
TARGET = "/features/features.10/block/block.1/block.1.0/Conv"
WHERE = f"""(id) => {{
    const reg = [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg);
    const cy = reg._cyreg.cy, node = cy.getElementById(id);
    if (node.empty()) return null;
    const at = node.renderedPosition();
    return {{x: at.x / cy.width(), y: at.y / cy.height(), h: node.renderedHeight(), zoom: cy.zoom(),
             selected: node.selected(), animated: cy.animated()}};
}}"""


def test_explorer_double_click_centres_the_node(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", jupyter.root_dir / "navigate.onnx")
    open_workspace(page, jupyter)
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'navigate.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    panel = page.locator(PANEL)
    expect(panel.locator(".dld-Sidebar-model")).to_have_text("navigate.onnx", timeout=30_000)
    panel.locator(".dld-Explorer-filter").fill("features.10/block/block.1/block.1.0/Conv")
    row = panel.locator(".dld-Explorer-row[data-id]", has_text="block.1.0/Conv").first
    node_id = row.get_attribute("data-id")
    before = page.evaluate(WHERE, node_id)
    screenshot(page, "navigation_before_double_click")

    row.dblclick()
    centred = "w && w.selected && !w.animated && Math.abs(w.x - 0.5) < 0.1 && Math.abs(w.y - 0.5) < 0.1"
    page.wait_for_function(f"(id) => {{ const w = ({WHERE})(id); return {centred}; }}", arg=node_id, timeout=30_000)
    after = page.evaluate(WHERE, node_id)
    screenshot(page, "navigation_after_double_click")
    assert before is None or before != after
    assert abs(after["x"] - 0.5) < 0.1 and abs(after["y"] - 0.5) < 0.1, f"the node is centred: {after}"
    assert after["h"] >= 24, f"the node is drawn at a readable size: {after}"


IN_VIEW = f"""() => {{
    const panel = [...document.querySelectorAll('{TAB}')].find(p => p.querySelector('.dld-designer'));
    const cy = [...panel.querySelectorAll('.dld-canvas *')].find(e => e._cyreg)._cyreg.cy;
    const b = cy.nodes().renderedBoundingBox();
    // across: how much of the graph's width (or of the canvas, when wider) the canvas shows (a tall graph scrolls)
    const seen = Math.max(0, Math.min(b.x2, cy.width()) - Math.max(b.x1, 0));
    const share = seen / Math.min(cy.width(), b.x2 - b.x1);
    return {{share, width: panel.getBoundingClientRect().width, canvas: cy.width(), box: [b.x1, b.x2]}};
}}"""
REPORT_TABS = f"[...document.querySelectorAll('{TAB}')].filter(p => p.querySelector('.dld-r-link'))"


def test_reports_share_one_area_and_the_graph_stays_in_view(jupyter: JupyterServer, page: Page) -> None:
    """Each profile's report opens as a tab in the report area beside the designer (not one more split column), and
    the graph stays in sight when the designer narrows."""
    first, second = mobilenet_reports(jupyter.root_dir)
    open_workspace(page, jupyter)
    page.evaluate(f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: '{MODEL}'}}); }}")
    page.wait_for_function(f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'"
                           f" && document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    assert page.evaluate(IN_VIEW)["share"] > 0.9
    run_in_kernel(page, f"_dld_view.open_report_tab({first.name!r})")
    page.wait_for_function(f"() => {REPORT_TABS}.length === 1", timeout=60_000)
    page.wait_for_timeout(800)
    split = page.evaluate(IN_VIEW)
    assert split["share"] > 0.9, f"the graph stays in view after the split: {split}"
    screenshot(page, "navigation_first_report")

    run_in_kernel(page, f"_dld_view.open_report_tab({second.name!r})")
    page.wait_for_function(f"() => {REPORT_TABS}.length === 2", timeout=60_000)
    page.wait_for_timeout(800)
    after = page.evaluate(IN_VIEW)
    boxes = page.evaluate(f"() => {REPORT_TABS}.map(p => p.parentElement.getBoundingClientRect().x)")
    screenshot(page, "navigation_second_report")
    assert abs(after["width"] - split["width"]) <= 2, f"the designer keeps its width: {split} {after}"
    assert len(set(boxes)) == 1, f"both reports share one tab area: {boxes}"


def test_a_tool_opens_in_view_and_a_background_tab_is_fitted_when_shown(jupyter: JupyterServer, page: Page) -> None:
    """A Tools dialog opened while the dock is scrolled down is scrolled into view; a designer tab restored in the
    background after a reload (laid out with no size) shows its graph when first brought to the front."""
    for name in ("back.onnx", "front.onnx"):
        shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", jupyter.root_dir / name)
    workspace = open_workspace(page, jupyter)
    for name in ("back.onnx", "front.onnx"):
        page.evaluate(f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: '{name}'}}); }}")
        page.wait_for_function(f"""() => [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden)')].some(t =>
            t.dataset.dirty === 'false' && t.querySelector('.dld-canvas[data-ready="1"]'))""", timeout=90_000)
        page.wait_for_timeout(500)
    dock = f"{TAB}:not(.lm-mod-hidden) .dld-dock"
    page.locator(f"{TAB}:not(.lm-mod-hidden) button", has_text="Profile").first.click()  # a long dock: profile form
    page.wait_for_selector(f"{dock} .dld-profile-panel", timeout=30_000)
    page.wait_for_timeout(500)
    page.evaluate(f"() => {{ const d = document.querySelector('{dock}'); d.scrollTop = d.scrollHeight; }}")
    assert page.evaluate(f"() => document.querySelector('{dock}').scrollTop") > 0
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:sanitize')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:sanitize')")
    page.wait_for_selector(f"{dock} .dld-tool-dialog .dld-tool-finish", timeout=30_000)
    page.wait_for_timeout(500)
    where = page.evaluate(f"""() => {{ const d = document.querySelector('{dock}').getBoundingClientRect();
        const t = document.querySelector('{dock} .dld-tool-dialog').getBoundingClientRect();
        return {{dock: [d.top, d.bottom], tool: [t.top, t.bottom]}}; }}""")
    screenshot(page, "navigation_tool_in_view")
    assert where["dock"][0] - 2 <= where["tool"][0] < where["dock"][1] - 40, f"the dialog shows in the dock: {where}"

    wait_workspace_has(jupyter, workspace, "dld-jupyter:tab:back.onnx")
    wait_workspace_has(jupyter, workspace, "dld-jupyter:tab:front.onnx")
    open_workspace(page, jupyter, workspace, reset=False)
    page.wait_for_function(f"() => document.querySelectorAll('{TAB} .dld-canvas[data-ready=\"1\"]').length === 2",
                           timeout=120_000)
    page.locator("#jp-main-dock-panel li.lm-TabBar-tab", has_text="back.onnx").click()
    page.wait_for_timeout(800)
    shown = page.evaluate(IN_VIEW.replace("find(p => p.querySelector('.dld-designer'))",
                                          "find(p => !p.classList.contains('lm-mod-hidden'))"))
    screenshot(page, "navigation_background_tab_shown")
    assert shown["share"] > 0.9, f"the background tab's graph is in view when shown: {shown}"


def test_leaving_simple_interface_keeps_the_designer_size(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", jupyter.root_dir / "simple.onnx")
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'simple.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    page.wait_for_timeout(800)
    size = f"""() => {{ const c = document.querySelector('{TAB}:not(.lm-mod-hidden) .dld-designer-canvas .dld-canvas')
        .getBoundingClientRect(); return [Math.round(c.width), Math.round(c.height)]; }}"""
    before = page.evaluate(size)
    page.evaluate("() => window.jupyterapp.commands.execute('application:set-mode', {mode: 'single-document'})")
    page.wait_for_timeout(1000)
    page.evaluate("() => window.jupyterapp.commands.execute('application:set-mode', {mode: 'multiple-document'})")
    page.wait_for_timeout(1500)
    after = page.evaluate(size)
    screenshot(page, "navigation_after_simple_interface")
    assert abs(after[0] - before[0]) <= 4 and abs(after[1] - before[1]) <= 4, f"{before} -> {after}"
    assert page.evaluate(IN_VIEW.replace("find(p => p.querySelector('.dld-designer'))",
                                         "find(p => !p.classList.contains('lm-mod-hidden'))"))["share"] > 0.9
