"""Named layouts of the designer's panels in a real JupyterLab (issue 41, seed 000 "save, apply or reset layouts"):
the real MobileNetV3 in a DL Designer tab, its dock widened by dragging the splitter and the Initializers tab in
front, the DL Designer side bar open and dragged to 340 px; View → DL Designer Layouts → Save Layout… keeps it as
"Wide editors" (in the settings file the kernel writes, in the Apply submenu and the palette); then the side bar is
narrowed and folded, the panels moved below the canvas (Dock Panels Below the Canvas) and another tab brought
forward; Apply → Wide editors brings every part back, the side bar's width included; Reset Layout gives the default
arrangement; Delete Layout forgets it. Screenshots: test-artifacts/screenshots/layouts_*.png."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
SIDEBAR_MODEL = "#dld-jupyter-sidebar .dld-Sidebar-model"

STATE = """(root) => {
  const box = (sel) => { const e = root.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  const shell = window.jupyterapp.shell;
  const dock = root.querySelector('.dld-dock');
  return {canvas: box('.dld-designer-canvas .dld-canvas'), dock: box('.dld-dock'),
          shown: !!dock && getComputedStyle(dock).display !== 'none',
          tab: (root.querySelector('.dld-dock .dld-ed-tab.dld-ed-active') || {}).dataset?.tab ?? null,
          leftCollapsed: shell.leftCollapsed, left: shell.saveLayout().leftArea?.currentWidget?.id ?? null,
          leftWidth: document.querySelector('#jp-left-stack')?.getBoundingClientRect().width ?? null};
}"""


def state(page: Page) -> dict[str, Any]:
    return page.locator(TAB).first.evaluate(STATE)  # type: ignore[no-any-return]


def layouts_menu(page: Page, *labels: str) -> None:
    """View → DL Designer Layouts → labels… (submenus hovered, the last label clicked)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="View").click()
    for label in ("DL Designer Layouts", *labels[:-1]):
        page.locator(".lm-Menu-itemLabel", has_text=label).hover()
        page.wait_for_timeout(400)
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text=labels[-1]).click()


def beside(s: dict[str, Any]) -> bool:
    canvas, dock = s["canvas"], s["dock"]
    return bool(s["shown"]) and dock["x"] >= canvas["x"] + canvas["w"] - 1 and abs(dock["y"] - canvas["y"]) <= 2


def below(s: dict[str, Any]) -> bool:
    canvas, dock = s["canvas"], s["dock"]
    return bool(s["shown"]) and dock["y"] >= canvas["y"] + canvas["h"] - 1 and abs(dock["w"] - canvas["w"]) <= 3


def drag_left_bar_to(page: Page, width: int) -> None:
    """Drag the handle between JupyterLab's left side bar and the main area until the bar is `width` px wide."""
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle:not(.lm-mod-hidden)").first
    box = handle.bounding_box()
    stack = page.locator("#jp-left-stack").bounding_box()
    assert box is not None and stack is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (stack["x"] + width - x) / 2, y, steps=3)
    page.mouse.move(stack["x"] + width, y, steps=3)
    page.mouse.up()


def wait_for(page: Page, test: str, timeout: int = 30_000) -> dict[str, Any]:
    """Wait until `test` (a JS expression of `s`, the state) holds, and return the state."""
    page.wait_for_function(f"() => {{ const s = ({STATE})(document.querySelector('{TAB}')); return {test}; }}",
                           timeout=timeout)
    page.wait_for_timeout(300)  # the layout settles (one frame of flex)
    return state(page)


def test_save_move_apply_and_reset_a_layout(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    try:
        open_workspace(page, jupyter)
        page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
        open_from_file_browser(page, MODEL.name, "Open With DL Designer")
        wait_canvas(page, 20)
        page.evaluate("""() => { for (const w of [...window.jupyterapp.shell.widgets('main')])
                                   if (w.title.label === 'Launcher') w.close(); }""")
        page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
        expect(page.locator(SIDEBAR_MODEL)).to_have_text(MODEL.name, timeout=30_000)
        page.wait_for_selector(f"{TAB} .dld-dock .dld-ed-tabs", timeout=60_000)

        # arrange: the side bar 340 px wide, the dock 80 px wider (at most half the designer), Initializers in front
        drag_left_bar_to(page, 340)
        wait_for(page, "Math.abs(s.leftWidth - 340) <= 6")
        start = wait_for(page, "s.dock && s.dock.w > 100")
        splitter = page.locator(f"{TAB} .dld-splitter").first.bounding_box()
        assert splitter is not None
        x, y = splitter["x"] + splitter["width"] / 2, splitter["y"] + splitter["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x - 40, y, steps=4)
        page.mouse.move(x - 80, y, steps=4)
        page.mouse.up()
        page.locator(f"{TAB} .dld-dock .dld-ed-tab[data-tab='initializers']").click()
        wide = wait_for(page, f"s.dock.w >= {start['dock']['w'] + 75} && s.tab === 'initializers'")
        assert beside(wide) and not wide["leftCollapsed"] and wide["left"] == "dld-jupyter-sidebar", wide
        screenshot(page, "layouts_arranged")

        layouts_menu(page, "Save Layout…")
        page.locator(".jp-Dialog input").fill("Wide editors")
        page.locator(".jp-Dialog .jp-mod-accept").click()
        # saved by the kernel into the user's settings, read back by the Lab: the Apply submenu lists it
        page.locator(".lm-MenuBar-itemLabel", has_text="View").click()
        page.locator(".lm-Menu-itemLabel", has_text="DL Designer Layouts").hover()
        page.locator(".lm-Menu-itemLabel", has_text="Apply Layout").hover()
        expect(page.locator(".lm-Menu-itemLabel", has_text="Wide editors")).to_be_visible(timeout=15_000)
        screenshot(page, "layouts_apply_menu")
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        raw: Any = jupyter.api("/lab/api/settings/dld-jupyter:plugin")
        saved = {entry["name"]: entry for entry in raw["settings"]["layouts"]}
        dock = saved["Wide editors"]["dock"]
        assert dock["side"] == "right" and dock["shown"] and dock["tab"] == "initializers", saved
        assert abs(dock["size"] - wide["dock"]["w"]) <= 3, f"the dragged width is what was saved: {saved}"
        left = saved["Wide editors"]["shell"]["left"]
        assert left["collapsed"] is False and left["current"] == "dld-jupyter-sidebar", saved
        assert abs(left["width"] - wide["leftWidth"]) <= 2, f"the side bar's width is saved: {saved}"
        page.keyboard.press("Control+Shift+C")  # and the command palette has it
        palette = page.locator(".jp-ModalCommandPalette")
        palette.locator(".lm-CommandPalette-input").fill("Apply Layout")
        expect(palette.locator(".lm-CommandPalette-item", has_text="Apply Layout: Wide editors")).to_be_attached()
        page.keyboard.press("Escape")

        # move: the side bar narrower then folded, the panels below the canvas, another tab
        drag_left_bar_to(page, 250)
        wait_for(page, "Math.abs(s.leftWidth - 250) <= 6")
        layouts_menu(page, "Dock Panels Below the Canvas")
        page.locator(f"{TAB} .dld-dock .dld-ed-tab[data-tab='tensor']").click()
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        moved = wait_for(page, "s.dock.y >= s.canvas.y + s.canvas.h - 1 && s.tab === 'tensor' && s.leftCollapsed")
        assert below(moved), moved
        screenshot(page, "layouts_moved")

        # apply it back: every part returns
        layouts_menu(page, "Apply Layout", "Wide editors")
        back = wait_for(page, "s.dock.x >= s.canvas.x + s.canvas.w - 1 && s.tab === 'initializers' && !s.leftCollapsed"
                              f" && Math.abs(s.leftWidth - {wide['leftWidth']}) <= 3")
        assert beside(back) and abs(back["dock"]["w"] - wide["dock"]["w"]) <= 3, (back, wide)
        assert back["left"] == "dld-jupyter-sidebar", back
        screenshot(page, "layouts_applied")

        # reset: the default arrangement
        page.locator(f"{TAB} .dld-dock-toggle").first.click()  # hidden first: reset shows the panels again
        wait_for(page, "!s.shown")
        layouts_menu(page, "Reset Layout")
        reset = wait_for(page, "s.shown && s.tab === 'parameters' && Math.abs(s.dock.w - 380) <= 3")
        assert beside(reset) and not reset["leftCollapsed"], reset
        screenshot(page, "layouts_reset")

        # delete it: gone from the settings and from the Apply submenu
        layouts_menu(page, "Delete Layout", "Wide editors")
        page.locator(".lm-MenuBar-itemLabel", has_text="View").click()
        page.locator(".lm-Menu-itemLabel", has_text="DL Designer Layouts").hover()
        page.locator(".lm-Menu-itemLabel", has_text="Apply Layout").hover()
        apply_menu = page.locator("#dld-jupyter-apply-layout-menu")
        expect(apply_menu.locator(".lm-Menu-itemLabel", has_text="Save Layout…")).to_be_visible(timeout=15_000)
        expect(apply_menu.locator(".lm-Menu-itemLabel", has_text="Wide editors")).to_have_count(0)
        page.keyboard.press("Escape")
        raw = jupyter.api("/lab/api/settings/dld-jupyter:plugin")
        assert raw["settings"]["layouts"] == [], raw["settings"]
    finally:
        jupyter.api("/lab/api/settings/dld-jupyter:plugin", method="PUT", body={"raw": json.dumps({"layouts": []})})
