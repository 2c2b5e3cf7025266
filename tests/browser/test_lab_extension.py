"""The prebuilt labextension loads in a real JupyterLab and Notebook 7: its sidebar panel is there and says
what to do when no designer is active."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook


def test_sidebar_panel_in_jupyterlab(jupyter: JupyterServer, page: Page) -> None:
    write_notebook(jupyter.root_dir / "empty.ipynb", ["1 + 1"])
    open_notebook(page, jupyter, "empty.ipynb")
    tab = page.locator("li.lm-TabBar-tab[data-id='dld-jupyter-sidebar']")
    expect(tab).to_have_count(1)
    tab.click()
    panel = page.locator("#dld-jupyter-sidebar")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("DL Designer")
    expect(panel).to_contain_text("No designer is active")
    screenshot(page, "lab_sidebar_empty")


def test_sidebar_panel_in_notebook7(jupyter: JupyterServer, page: Page) -> None:
    write_notebook(jupyter.root_dir / "empty7.ipynb", ["1 + 1"])
    open_notebook(page, jupyter, "empty7.ipynb", app="notebook")
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    panel = page.locator("#dld-jupyter-sidebar")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("No designer is active")
    screenshot(page, "notebook7_sidebar_empty")


def test_designer_canvas_renders_in_notebook7(jupyter: JupyterServer, page: Page) -> None:
    from dld_jupyter.models import SAMPLE_MODEL

    (jupyter.root_dir / "nb7.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    write_notebook(jupyter.root_dir / "designer7.ipynb", ["import dld_jupyter as dld\nd = dld.open('nb7.onnx')\nd"])
    open_notebook(page, jupyter, "designer7.ipynb", app="notebook")
    run_all(page)
    canvas = page.locator(".dld-canvas").first
    expect(canvas).to_be_visible(timeout=60_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-canvas *')].some(e => e._cyreg && e._cyreg.cy.nodes().length > 20)",
        timeout=60_000,
    )
    screenshot(page, "notebook7_designer")
