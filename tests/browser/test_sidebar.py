"""The JupyterLab sidebar bound to a live designer: palette, layer explorer, Open With, restart recovery."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import (
    open_from_file_browser,
    open_notebook,
    run_all,
    run_notebook,
    screenshot,
    wait_kernel_idle,
    write_notebook,
)
from tests.browser.sidebar_driver import PANEL, expect_layers, open_sidebar

SAMPLE = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def kernel_node_count(page: Page) -> int:
    """Nodes the canvas shows (cytoscape elements of kind op)."""
    return int(
        page.evaluate(
            "() => { const c = document.querySelector('.dld-canvas'); const cy = c && c.querySelector('[data-cy]')"
            " ; const reg = [...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg);"
            " return reg ? reg._cyreg.cy.nodes().length : -1; }"
        )
    )


def cy_selected_ids(page: Page) -> list[str]:
    return list(
        page.evaluate(
            "() => { const reg = [...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg);"
            " return reg ? reg._cyreg.cy.$(':selected').map(n => n.id()) : []; }"
        )
    )


def test_sidebar_follows_a_notebook_designer(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "resnet8.onnx")
    run_notebook(page, jupyter, "sidebar.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('resnet8.onnx')\nd",
    ])
    page.wait_for_selector(".dld-canvas", timeout=60_000)
    open_sidebar(page)
    panel = page.locator(PANEL)
    expect_layers(page, "29 of 29 layers", 30_000)
    expect(panel.locator(".dld-Sidebar-model")).to_contain_text("resnet8")

    # Filter the explorer: case-insensitive substring of the name.
    panel.locator(".dld-Explorer-filter").fill("LAYER2")
    expect(panel.locator(".dld-Explorer-count")).to_contain_text("of 29 layers")
    shown = panel.locator(".dld-Explorer-row[data-id]")
    assert shown.count() > 0
    for text in shown.locator(".dld-col-name").all_inner_texts():
        assert "layer2" in text.lower()
    screenshot(page, "sidebar_explorer_filtered")

    # Select in the explorer: the canvas selects the same node.
    first = shown.first
    node_id = first.get_attribute("data-id")
    first.click()
    page.wait_for_function(
        "(id) => { const reg = [...document.querySelectorAll('.dld-canvas *')].find(e => e._cyreg);"
        " return reg && reg._cyreg.cy.$(':selected').map(n => n.id()).includes(id); }",
        arg=node_id,
        timeout=15_000,
    )

    # Drag a Relu from the palette onto the canvas: the document gains a node.
    panel.locator(".dld-Explorer-filter").fill("")
    panel.locator(".dld-Sidebar-tab", has_text="Palette").click()
    panel.locator(".dld-Palette-filter").fill("relu")
    relu = panel.locator(".dld-Palette-item[data-name='Relu']").first
    expect(relu).to_be_visible()
    relu.drag_to(page.locator(".dld-canvas").first)
    panel.locator(".dld-Sidebar-tab", has_text="Layers").click()
    expect(panel.locator(".dld-Explorer-count")).to_contain_text("30 of 30 layers", timeout=15_000)
    screenshot(page, "sidebar_palette_drop")

    # Lab commands run registered operations in the kernel (a request each, answered by a reply).
    run_command = "(id) => window.jupyterapp.commands.execute(id)"
    page.evaluate(run_command, "dld:undo")
    expect(panel.locator(".dld-Explorer-count")).to_contain_text("29 of 29 layers", timeout=15_000)
    page.evaluate(run_command, "dld:redo")
    expect(panel.locator(".dld-Explorer-count")).to_contain_text("30 of 30 layers", timeout=15_000)
    page.evaluate(run_command, "dld:redo")  # nothing left to redo: the reply's error shows in the sidebar
    expect(panel.locator(".dld-Sidebar-error")).to_contain_text("DL Designer sidebar:", timeout=15_000)

    # Restart the kernel: the sidebar says so, then binds again once the cell runs again.
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    expect(panel.locator(".dld-Sidebar-status")).to_be_visible(timeout=30_000)
    wait_kernel_idle(page)
    screenshot(page, "sidebar_after_restart")
    time.sleep(1)
    run_all(page)
    expect_layers(page, "29 of 29 layers", 60_000)


def test_open_with_dl_designer_from_the_file_browser(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "opened.onnx")
    write_notebook(jupyter.root_dir / "host.ipynb", ["1"])
    open_notebook(page, jupyter, "host.ipynb")
    open_from_file_browser(page, "opened.onnx", "Open With DL Designer")
    page.wait_for_selector(".dld-DesignerDocument .dld-canvas", timeout=90_000)
    expect(page.locator(".lm-TabBar-tab", has_text="opened.onnx").first).to_be_visible()
    page.locator(".dld-DesignerDocument .dld-canvas").first.click()  # work in it, as a user would
    open_sidebar(page)
    # first that the sidebar follows the designer tab (JupyterLab's current widget), then that it bound its designer
    tab_id = page.evaluate("() => document.querySelector('.dld-DesignerDocument').id")
    assert tab_id, "the designer tab's panel has no id to compare with"
    expect(page.locator(PANEL)).to_have_attribute("data-follows", tab_id, timeout=30_000)
    expect_layers(page, "29 of 29 layers", 60_000)
    screenshot(page, "open_with_dl_designer")
