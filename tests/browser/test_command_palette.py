"""Every DL Designer command can be found by typing its name in JupyterLab's command palette."""

from __future__ import annotations

import json
import sys

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, screenshot, write_notebook

# The labels users type (js/src/lab/commands.ts, tools_menu.ts): one per command family is enough to find a
# missing registration, every one of them is cheaper to keep true.
LABELS = [
    "Save ONNX Model",
    "Undo Model Edit",
    "Redo Model Edit",
    "Arrange Nodes",
    "Show Grid",
    "Show All Constants",
    "New ONNX Model",
    "Start Activity",
    "Global Model Modifications",
    "Convert Model to FP16",
    "Sanitize Graph",
    "Custom Tools",
    "Compare Model With",
    "Check Against Original",
    "Save Layout",
    "Reset Layout",
    "Dock Panels Below the Canvas",
]


def test_every_command_is_in_the_palette(jupyter: JupyterServer, page: Page) -> None:
    write_notebook(jupyter.root_dir / "palette.ipynb", ["1 + 1"])
    open_notebook(page, jupyter, "palette.ipynb")
    labels = page.evaluate(
        """() => {
            const ids = window.jupyterapp.commands.listCommands().filter((id) => id.startsWith('dld:'));
            return ids.map((id) => window.jupyterapp.commands.label(id));
        }"""
    )
    missing_commands = [label for label in LABELS if not any(text.startswith(label) for text in labels)]
    assert not missing_commands, f"not registered: {missing_commands} (registered: {labels})"
    page.keyboard.press("Control+Shift+C")
    palette = page.locator(".jp-ModalCommandPalette")
    search = palette.locator(".lm-CommandPalette-input")
    expect(search).to_be_visible()
    for label in LABELS:
        search.fill(label)
        # Typing filters the palette: the item is rendered for this query. JupyterLab hides disabled items, and the
        # designer commands are disabled until a designer is active, so "found" is checked as rendered.
        item = palette.locator(".lm-CommandPalette-item[data-command^='dld:']", has_text=label).first
        expect(item).to_be_attached(timeout=10_000)
        expect(palette.locator(".lm-CommandPalette-header", has_text="DL Designer").first).to_be_attached()
    search.fill("DL Designer")
    screenshot(page, "command_palette_dl_designer")


def test_user_tools_are_in_the_palette(jupyter: JupyterServer, page: Page) -> None:
    """Each user tool of the settings is a palette entry ("User Tool: <name>"), also one written by Python (Custom
    Tools) while Lab runs: the palette reads the settings again when it opens."""
    tool = {"name": "Strip Doc Strings", "application": sys.executable, "arguments": ["-c", "pass", "$Model"]}
    jupyter.api("/lab/api/settings/dld-jupyter:plugin", method="PUT", body={"raw": json.dumps({"userTools": [tool]})})
    write_notebook(jupyter.root_dir / "palette_tools.ipynb", ["1 + 1"])
    open_notebook(page, jupyter, "palette_tools.ipynb")
    page.keyboard.press("Control+Shift+C")
    palette = page.locator(".jp-ModalCommandPalette")
    search = palette.locator(".lm-CommandPalette-input")
    search.fill("Strip Doc")
    expect(palette.locator(".lm-CommandPalette-item", has_text="User Tool: Strip Doc Strings")).to_be_attached(
        timeout=30_000
    )
    page.keyboard.press("Escape")
    # A tool added behind Lab's back (as Python's save_tools does: the user settings file) shows at the next opening.
    added = {"name": "Quantize Later", "application": sys.executable, "arguments": ["-c", "pass", "$Model"]}
    settings = jupyter.log_path.parent / "user-settings" / "dld-jupyter" / "plugin.jupyterlab-settings"  # start_server
    settings.write_text(json.dumps({"userTools": [tool, added]}))
    page.keyboard.press("Control+Shift+C")
    search.fill("Quantize Later")
    expect(palette.locator(".lm-CommandPalette-item", has_text="User Tool: Quantize Later")).to_be_attached(
        timeout=30_000
    )
    screenshot(page, "command_palette_user_tools")
    jupyter.api("/lab/api/settings/dld-jupyter:plugin", method="PUT", body={"raw": json.dumps({"userTools": []})})
