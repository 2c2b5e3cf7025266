"""The layer documentation browser in a real JupyterLab (issue 41, seed 000 "Help > Layer Documentation"):
Help → ONNX Operator Documentation opens a main-area panel with every operator listed; searching "Conv" puts the
Conv operator first, and choosing it shows its description, inputs, attributes (group with its default,
kernel_shape, pads, strides, dilations, auto_pad) and type constraints; an older version is one click away; a page
reload brings the tab back at that operator. The
server's `/dld/operators` refuses an unauthenticated request and says why an operator does not exist. A canvas's
Go To Documentation panel opens the browser at its node's operator.
Screenshots: test-artifacts/screenshots/operator_docs_*.png."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import onnx.defs
import pytest
from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas, wait_workspace_has

PANEL = ".dld-docs"


def test_help_menu_opens_the_operator_documentation(jupyter: JupyterServer, page: Page) -> None:
    workspace = open_workspace(page, jupyter)
    page.locator(".lm-MenuBar-itemLabel", has_text="Help").click()
    page.locator(".lm-Menu-itemLabel", has_text="ONNX Operator Documentation").click()
    every = len({(s.domain, s.name) for s in onnx.defs.get_all_schemas()})
    page.wait_for_function(f"() => document.querySelectorAll('{PANEL} .dld-docs-item').length >= {every}",
                           timeout=60_000)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "ONNX Operator Documentation"

    search = page.locator(f"{PANEL} .dld-docs-search")
    search.fill("Conv")
    first = page.locator(f"{PANEL} .dld-docs-item").first
    expect(first).to_have_attribute("data-name", "Conv")
    expect(first).to_have_attribute("data-domain", "ai.onnx")
    names = page.locator(f"{PANEL} .dld-docs-item .dld-docs-name").all_inner_texts()
    assert names and all("conv" in n.lower() for n in names[:10]), names
    search.press("Enter")
    expect(page.locator(f"{PANEL} .dld-docs-title")).to_have_text("Conv")
    attributes = page.locator(f"{PANEL} .dld-docs-attributes dt")
    expect(attributes.first).to_be_visible()
    terms = attributes.all_inner_texts()
    expected_terms = ("group : int (default 1)", "kernel_shape : ints (optional)", "pads : ints (optional)",
                      "auto_pad : string (default 'NOTSET')", "strides : ints (optional)",
                      "dilations : ints (optional)")
    for expected in expected_terms:
        assert expected in terms, terms
    body = page.locator(f"{PANEL} .dld-docs-body")
    expect(body).to_contain_text("The convolution operator consumes an input tensor and a filter")
    expect(body).to_contain_text("B : T (optional)")
    expect(body).to_contain_text("T : tensor(bfloat16), tensor(float16), tensor(float), tensor(double)")
    screenshot(page, "operator_docs_conv")

    page.locator(f"{PANEL} .dld-docs-version-button", has_text="1").last.click()  # Conv as opset 1 defines it
    expect(page.locator(f"{PANEL} .dld-docs-version-button.dld-docs-active")).to_have_text("1")
    expect(body).to_contain_text("T : tensor(float16), tensor(float), tensor(double)")
    expect(body).not_to_contain_text("tensor(bfloat16)")

    attributes.filter(has_text="auto_pad").scroll_into_view_if_needed()
    screenshot(page, "operator_docs_conv_v1")

    # a page reload brings the tab back at the operator it showed
    wait_workspace_has(jupyter, workspace, "dld-operator-docs:operator-docs")
    open_workspace(page, jupyter, workspace, reset=False)
    expect(page.locator(f"{PANEL} .dld-docs-title")).to_have_text("Conv", timeout=60_000)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "ONNX Operator Documentation"

    # the server side: authenticated only, and an unknown operator said as such
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{jupyter.url}/dld/operators", timeout=30)
    assert refused.value.code == 403
    with pytest.raises(urllib.error.HTTPError) as missing:
        jupyter.api("/dld/operators?name=conv&domain=ai.onnx")
    assert missing.value.code == 404
    assert "no operator 'conv' in domain 'ai.onnx'" in json.loads(missing.value.read())["message"]


CY = "[...document.querySelectorAll('.dld-DesignerDocument .dld-canvas *')].find(e => e._cyreg)._cyreg.cy"


def test_go_to_documentation_opens_the_browser_at_the_operator(jupyter: JupyterServer, page: Page) -> None:
    """A canvas's Go To Documentation panel has "Open in ONNX Operator Documentation", which opens the browser at
    that node's operator, at the version the model's opset has, its list entry scrolled into view (the canvas
    reaches JupyterLab through a DOM event, common/operator_docs_event.ts)."""
    (jupyter.root_dir / "docs.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    open_workspace(page, jupyter)
    open_from_file_browser(page, "docs.onnx", "Open With DL Designer")
    wait_canvas(page, 10)
    point = page.evaluate(
        f"() => {{ const cy = {CY}; const n = cy.nodes().filter(n => n.data('kind') === 'op')[0]; cy.center(n);"
        " const p = n.renderedPosition(); const r = cy.container().getBoundingClientRect();"
        " return {x: r.left + p.x, y: r.top + p.y}; }"
    )
    page.mouse.click(point["x"], point["y"], button="right")
    item = page.locator(".dld-menu-item", has_text="Go to documentation")
    label = item.first.inner_text()
    op_type = label[label.index("(") + 1: label.rindex(")")]
    item.first.click()
    opener = page.locator(f"{TAB} .dld-doc .dld-doc-browser")
    expect(opener).to_be_visible(timeout=30_000)
    screenshot(page, "operator_docs_from_canvas_panel")
    opener.click()
    expect(page.locator(f"{PANEL} .dld-docs-title")).to_have_text(op_type, timeout=60_000)
    expect(page.locator(f"{PANEL} .dld-docs-meta")).to_contain_text("ai.onnx")
    expect(page.locator(f"{PANEL} .dld-docs-item.dld-docs-current")).to_have_attribute("data-name", op_type)
    expect(page.locator(f"{PANEL} .dld-docs-item.dld-docs-current")).to_be_in_viewport()
    # the version the model's opset has (the canvas panel's title says it), not the newest
    version = page.locator(f"{TAB} .dld-doc-head").first.inner_text().split("since opset ")[1].split(")")[0]
    expect(page.locator(f"{PANEL} .dld-docs-version-button.dld-docs-active")).to_have_text(version)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "ONNX Operator Documentation"
    screenshot(page, "operator_docs_from_canvas")
