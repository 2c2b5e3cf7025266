"""More canvas gestures in a real JupyterLab, with the mouse and keyboard: a local function expanded in place and
collapsed (double-click), copy/paste (Ctrl+C / Ctrl+V), a graph input made by double-clicking a free terminal,
"Go to source / destination" from a link's context menu, and Arrange from the toolbar."""

from __future__ import annotations

import onnx
from playwright.sync_api import Page

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.test_canvas import cy_eval, node_by, open_model, rendered, replies, wait_replies
from tests.widgets.test_function_bodies import model_with_functions


def wait_cy(page: Page, condition: str) -> None:
    """Wait until `condition` (JavaScript with `cy` bound) holds in the page."""
    page.wait_for_function(
        f"() => {{ const cy = document.querySelector('.dld-stage')._cyreg.cy; return {condition}; }}")


def double_click_node(page: Page, node_id: str, dy: float = 0.0) -> None:
    at = rendered(page, node_id)
    before = replies(page)
    page.mouse.dblclick(at["x"], at["y"] + dy)
    wait_replies(page, before)


def test_local_function_expands_in_place_and_collapses(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(model_with_functions(), jupyter.root_dir / "functions.onnx")
    open_model(page, jupyter, "canvas_functions.ipynb", "functions.onnx")
    block = node_by(page, "name", "block1")
    assert cy_eval(page, "const n = cy.getElementById(arg); return n.hasClass('function') && n.data('color');", block)
    assert "f(x)" in cy_eval(page, "return cy.getElementById(arg).data('label');", block)
    cy_eval(page, "cy.zoom(1); cy.center(cy.getElementById(arg));", block)
    double_click_node(page, block)
    wait_cy(page, f"cy.getElementById('{block}').isParent()")
    inside = cy_eval(page, "return cy.getElementById(arg).children().map(n => n.data('label'));", block)
    assert any("Mul" in label for label in inside) and any("Add" in label for label in inside), inside
    # Outer links still end at the box; the body's own links are drawn inside.
    assert cy_eval(page, "return cy.getElementById(arg).connectedEdges().length;", block) >= 2
    cy_eval(page, "cy.fit(cy.getElementById(arg), 40);", block)
    page.wait_for_timeout(300)
    screenshot(page, "canvas_function_expanded", ".dld-canvas")
    # A body node is read-only: renaming it is refused in the widget, the model is unchanged.
    body_op = cy_eval(
        page, "return cy.getElementById(arg).children().filter(n => n.data('label').includes('Mul'))[0].id();", block)
    reply = page.evaluate(
        "async (id) => document.querySelector('.dld-stage')._dld.channel.intent('rename', {node: id, name: 'z'})",
        body_op)
    assert not reply["ok"] and "read-only" in reply["error"]
    page.wait_for_selector(".dld-toast", timeout=10_000)
    # Double-click the box's label band to collapse it again.
    box = rendered(page, block)
    before = replies(page)
    page.mouse.dblclick(box["x"], box["y"] - box["h"] / 2 + 8)
    wait_replies(page, before)
    wait_cy(page, f"!cy.getElementById('{block}').isParent()")
    assert cy_eval(page, "return cy.nodes().filter(n => n.id().startsWith('f:')).length;") == 0


def test_copy_paste_graph_input_goto_and_arrange(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(model_with_functions(), jupyter.root_dir / "functions2.onnx")
    open_model(page, jupyter, "canvas_more.ipynb", "functions2.onnx")
    relu = node_by(page, "op_type", "Relu")
    cy_eval(page, "cy.zoom(1); cy.center(cy.getElementById(arg));", relu)
    page.wait_for_timeout(200)
    at = rendered(page, relu)
    page.mouse.click(at["x"], at["y"])
    wait_cy(page, f"cy.getElementById('{relu}').selected()")
    count = cy_eval(page, "return cy.nodes().length;")
    wait_cy(page, "document.activeElement && document.activeElement.closest('.dld-canvas') !== null")  # keys reach it
    before = replies(page)
    page.keyboard.press("Control+c")
    wait_replies(page, before)
    page.mouse.move(at["x"] + 260, at["y"])  # paste lands under the pointer: beside the original
    before = replies(page)
    page.keyboard.press("Control+v")
    wait_replies(page, before)
    wait_cy(page, f"cy.nodes().length === {count + 1}")
    pasted = cy_eval(
        page, "return cy.nodes().filter(n => n.data('label').includes('Relu') && n.id() !== arg)[0].id();", relu)

    # Double-click the pasted Relu's free input terminal: a graph input is created and linked to it.
    cy_eval(page, "cy.center(cy.getElementById(arg));", pasted)
    page.wait_for_timeout(200)
    box = rendered(page, pasted)
    inputs_before = cy_eval(page, "return cy.nodes('.input').length;")
    before = replies(page)
    page.mouse.dblclick(box["x"], box["y"] - box["h"] / 2)
    wait_replies(page, before)
    wait_cy(page, f"cy.nodes('.input').length === {inputs_before + 1}")
    assert cy_eval(page, "return cy.getElementById(arg).incomers('node.input').length;", pasted) == 1
    screenshot(page, "canvas_graph_input_from_terminal", ".dld-canvas")

    # Go to source / destination from a link's context menu.
    edge = cy_eval(
        page, "return cy.getElementById(arg).connectedEdges().filter(e => e.target().id() === arg)[0].id();", relu)
    src = cy_eval(page, "return cy.getElementById(arg).source().id();", edge)
    cy_eval(page, "cy.fit(cy.getElementById(arg), 80); cy.elements().unselect();", edge)
    page.wait_for_timeout(300)
    mid = cy_eval(page, """const m = cy.getElementById(arg).renderedMidpoint(); const r = stage.getBoundingClientRect();
        return {x: r.left + m.x, y: r.top + m.y};""", edge)
    page.mouse.click(mid["x"], mid["y"], button="right")
    page.locator(".dld-menu-item", has_text="Go to source").click()
    wait_cy(page, f"cy.getElementById('{src}').selected()")
    page.wait_for_timeout(400)  # the view moved to the source: find the link again
    mid = cy_eval(page, """const m = cy.getElementById(arg).renderedMidpoint(); const r = stage.getBoundingClientRect();
        return {x: r.left + m.x, y: r.top + m.y};""", edge)
    page.mouse.click(mid["x"], mid["y"], button="right")
    page.locator(".dld-menu-item", has_text="Go to destination").click()
    wait_cy(page, f"cy.getElementById('{relu}').selected()")

    # Arrange from the toolbar: the pasted node (placed by hand) gets a layered position, one undo step.
    moved_before = cy_eval(page, "return cy.getElementById(arg).position();", pasted)
    history = page.locator(".dld-designer button", has_text="Arrange")
    before = int(page.evaluate("() => Number(document.querySelector('.dld-canvas').dataset.version || 0)"))
    history.click()
    page.wait_for_function("(v) => Number(document.querySelector('.dld-canvas').dataset.version || 0) > v", arg=before)
    assert cy_eval(page, "return cy.getElementById(arg).position();", pasted) != moved_before
    cy_eval(page, "cy.fit(undefined, 30);")  # the whole arranged graph, not the last go-to view
    page.wait_for_timeout(300)
    screenshot(page, "canvas_arranged", ".dld-canvas")
