"""A 20,000-node model in a real JupyterLab: its overview is drawn from the file's outline while the kernel builds
the document, a note says so, and once the model has loaded the overview expands and edits like any other."""

from __future__ import annotations

import onnx
from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.test_canvas import cy_eval, expand_by_double_click, intent, open_model, replies, wait_replies
from tests.models import generated_graph

DOCUMENT_STATE = "() => document.querySelector('.dld-canvas').dataset.document"


def test_big_model_overview_first_then_the_document(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(generated_graph(20_000), jupyter.root_dir / "g20k.onnx")
    open_model(page, jupyter, "progressive.ipynb", "g20k.onnx")
    groups = cy_eval(page, "return cy.nodes('.group').map(n => n.id());")
    assert 5 <= len(groups) <= 60
    state = page.evaluate(DOCUMENT_STATE)
    assert state in ("loading", "1")
    if state == "loading":  # the note is up while the document is built (about two seconds here)
        assert "Loading the model" in page.locator(".dld-loading").inner_text()
        screenshot(page, "canvas_progressive_loading")
    page.wait_for_function(f"() => ({DOCUMENT_STATE})() === '1'", timeout=120_000)
    assert page.locator(".dld-loading").count() == 0
    page.wait_for_function(  # the status line says it loaded, and the editor panels are there
        "() => !document.querySelector('.dld-designer').innerText.includes('20,000 nodes')"
        " && document.querySelector('.dld-designer').innerText.includes('Initializers')", timeout=20_000)
    # Loaded: a group expands in place, and an edit inside it goes to the document.
    first = groups[0]
    expand_by_double_click(page, first)
    if not cy_eval(page, "return cy.getElementById(arg).descendants().some(n => !n.hasClass('group'));", first):
        sub = cy_eval(page, "return cy.getElementById(arg).children()[0].id();", first)  # a bucket: open one more
        before = replies(page)
        intent(page, "expand", {"group": sub})
        wait_replies(page, before)
    inner = cy_eval(page, "return cy.getElementById(arg).descendants().filter(n => !n.hasClass('group'))[0].id();",
                    first)
    reply = intent(page, "rename", {"node": inner, "name": "renamed_in_overview"})
    assert reply["ok"], reply
    page.wait_for_function(
        "(id) => document.querySelector('.dld-stage')._cyreg.cy.getElementById(id).data('label')"
        ".includes('renamed_in_overview')", arg=inner, timeout=20_000)
    screenshot(page, "canvas_progressive_loaded")


def test_a_big_model_that_fails_to_load_says_so_in_the_notebook(jupyter: JupyterServer, page: Page) -> None:
    model = generated_graph(20_000)
    model.graph.input[0].type.tensor_type.elem_type = 999  # passes the checks of opening; onnx-ir refuses it
    onnx.save(model, jupyter.root_dir / "broken20k.onnx")
    open_model(page, jupyter, "progressive_broken.ipynb", "broken20k.onnx")  # the overview is still drawn
    page.wait_for_selector(".dld-toast-error", timeout=120_000)
    assert "broken20k.onnx" in page.locator(".dld-toast-error").first.inner_text()
    page.wait_for_function(
        "() => document.querySelector('.dld-designer').innerText.includes('could not be loaded')"
        " && document.querySelector('.dld-designer').innerText.includes(\"[Designer 'broken20k']\")",
        timeout=20_000)
    assert page.locator(".dld-loading").count() == 0
    screenshot(page, "canvas_progressive_failed")
