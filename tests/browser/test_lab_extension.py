"""The prebuilt labextension loads in a real JupyterLab and Notebook 7: its sidebar panel is there and says
what to do when no designer is active."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, screenshot, write_notebook


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
