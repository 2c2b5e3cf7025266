"""Edits that used to leave a mess (issue 26, item 4), in a real JupyterLab: Sanitize in place then Undo keeps the
layout the user saw; a graph input typed in the UI makes a model built from scratch valid, and Save As of an invalid
model says what is invalid before it writes a draft.
Screenshots: test-artifacts/screenshots/model_edits_*.png."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.tab_driver import TAB, open_workspace

IDS = f"""() => [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg)
    ._cyreg.cy.nodes().map(n => n.id()).sort().join(',')"""
REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TOOLS = ".dld-designer .dld-tool-dialog"
POSITIONS = f"""() => {{
    const reg = [...document.querySelectorAll('{TAB}:not(.lm-mod-hidden) .dld-canvas *')].find(e => e._cyreg);
    return Object.fromEntries(reg._cyreg.cy.nodes().map(n => [n.data('name') + '|' + n.data('kind'),
        [Math.round(n.position('x')), Math.round(n.position('y'))]]));
}}"""


def open_tab(page: Page, name: str) -> None:
    page.evaluate(f"() => {{ void window.jupyterapp.commands.execute('dld:open-file', {{path: '{name}'}}); }}")
    page.wait_for_function(
        f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'"
        f" && document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')",
        timeout=90_000,
    )


def test_sanitize_then_undo_keeps_the_layout(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(REAL / "gru_scripted.onnx", jupyter.root_dir / "gru_mess.onnx")
    open_workspace(page, jupyter)
    open_tab(page, "gru_mess.onnx")
    before = page.evaluate(POSITIONS)
    ids = page.evaluate(IDS)
    assert len({tuple(p) for p in before.values()}) == len(before)
    screenshot(page, "model_edits_before_sanitize")

    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:sanitize')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:sanitize')")
    page.wait_for_selector(f"{TOOLS} .dld-sanitize-fold", timeout=30_000)
    dialog = page.locator(TOOLS).first
    dialog.locator(".dld-tool-destination label", has_text="Apply to this model").click()
    dialog.locator(".dld-tool-finish").click()
    page.wait_for_selector(f"{TOOLS} .dld-tool-status", timeout=180_000)
    page.wait_for_function(f"() => ({IDS})() !== '{ids}'", timeout=30_000)  # the swapped model's nodes are drawn
    after = page.evaluate(POSITIONS)
    assert len({tuple(p) for p in after.values()}) == len(after), f"nodes on one spot after Sanitize: {after}"
    assert {k: after[k] for k in after if k in before} == {k: before[k] for k in after if k in before}
    screenshot(page, "model_edits_after_sanitize")

    page.locator(f"{TAB} .dld-designer button[title^='Undo']").click()
    page.wait_for_function(f"() => ({IDS})() === '{ids}'", timeout=30_000)  # the file's node objects are back
    assert page.evaluate(POSITIONS) == before, "Undo brings every node, the four I/O diamonds too, back in place"
    screenshot(page, "model_edits_after_undo")
