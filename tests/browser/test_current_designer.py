"""The current designer is the one you see (issue 26, item 1): clicking a designer tab's header makes it the
designer the sidebar, the Tools menu and the commands act on, without a click inside its canvas.
Screenshot: test-artifacts/screenshots/current_designer_tab_header.png."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.tab_driver import TAB, open_workspace

TOOLS = ".dld-designer .dld-tool-dialog"
SIDEBAR_MODEL = "#dld-jupyter-sidebar .dld-Sidebar-model"


def open_tab(page: Page, name: str) -> None:
    page.evaluate(f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: '{name}'}}); }}")
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('{TAB}')].some(t => !t.classList.contains('lm-mod-hidden')
                 && t.dataset.dirty === 'false' && t.querySelector('.dld-canvas[data-ready="1"]'))""",
        timeout=90_000,
    )


def test_tab_header_click_makes_tools_act_on_that_model(jupyter: JupyterServer, page: Page) -> None:
    for name in ("first.onnx", "second.onnx"):
        (jupyter.root_dir / name).write_bytes(SAMPLE_MODEL.read_bytes())
    open_workspace(page, jupyter)
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    open_tab(page, "first.onnx")
    open_tab(page, "second.onnx")
    expect(page.locator(SIDEBAR_MODEL)).to_have_text("second.onnx", timeout=30_000)

    # Only the tab's header is clicked: nothing inside the first designer.
    page.locator("#jp-main-dock-panel li.lm-TabBar-tab", has_text="first.onnx").click()
    expect(page.locator(SIDEBAR_MODEL)).to_have_text("first.onnx", timeout=15_000)
    # A command run at once acts on the model in front, never on the one shown before.
    page.evaluate("() => window.jupyterapp.commands.execute('dld:sanitize')")
    visible = f"{TAB}:not(.lm-mod-hidden)"
    page.wait_for_selector(f"{visible} {TOOLS} .dld-sanitize-fold", timeout=30_000)
    expect(page.locator(f"{TAB}.lm-mod-hidden {TOOLS}")).to_have_count(0)
    title = page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label")
    assert title == "first.onnx"
    screenshot(page, "current_designer_tab_header")

    # Back to the second tab by its header; the Tools menu's own entry acts there.
    page.locator("#jp-main-dock-panel li.lm-TabBar-tab", has_text="second.onnx").click()
    expect(page.locator(SIDEBAR_MODEL)).to_have_text("second.onnx", timeout=15_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Tools").click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text="Sanitize Graph").click()
    page.wait_for_selector(f"{visible} {TOOLS} .dld-sanitize-fold", timeout=30_000)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "second.onnx"
