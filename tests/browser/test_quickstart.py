"""README command 1's notebook runs top to bottom in a real JupyterLab and shows the designer and the report.
Its screenshot is the README's picture of the real UI: written into docs/ only on request (DLD_UPDATE_SCREENSHOTS=1),
so the README's test command leaves the git tree as it found it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot
from tests.browser.sidebar_driver import expect_layers

REPO = Path(__file__).resolve().parents[2]


def test_quickstart_notebook_in_jupyterlab(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REPO / "notebooks" / "01_quickstart.ipynb", jupyter.root_dir / "01_quickstart.ipynb")
    open_notebook(page, jupyter, "01_quickstart.ipynb")
    run_all(page, timeout_s=300)
    expect(page.locator(".dld-canvas").first).to_be_visible(timeout=60_000)
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    page.locator(".dld-canvas").first.click(position={"x": 5, "y": 5})
    expect_layers(page, "layers", 30_000)
    page.locator(".dld-canvas").first.scroll_into_view_if_needed()
    path = screenshot(page, "quickstart_designer")
    if os.environ.get("DLD_UPDATE_SCREENSHOTS") == "1":
        shutil.copy(path, REPO / "docs" / "screenshots" / "designer.png")
    report = page.locator(".dld-report, .dld-report-viewer").first
    report.scroll_into_view_if_needed()
    screenshot(page, "quickstart_report")
