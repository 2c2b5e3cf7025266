"""The layer documentation browser in a real JupyterLab (issue 41, seed 000 "Help > Layer Documentation"):
Help → ONNX Operator Documentation opens a main-area panel with every operator listed; searching "Conv" puts the
Conv operator first, and choosing it shows its description, inputs, attributes (group with its default,
kernel_shape, pads, strides, dilations, auto_pad) and type constraints; an older version is one click away. The
server's `/dld/operators` refuses an unauthenticated request and says why an operator does not exist.
Screenshots: test-artifacts/screenshots/operator_docs_*.png."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import onnx.defs
import pytest
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.tab_driver import open_workspace

PANEL = ".dld-docs"


def test_help_menu_opens_the_operator_documentation(jupyter: JupyterServer, page: Page) -> None:
    open_workspace(page, jupyter)
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

    # the server side: authenticated only, and an unknown operator said as such
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{jupyter.url}/dld/operators", timeout=30)
    assert refused.value.code == 403
    with pytest.raises(urllib.error.HTTPError) as missing:
        jupyter.api("/dld/operators?name=conv&domain=ai.onnx")
    assert missing.value.code == 404
    assert "no operator 'conv' in domain 'ai.onnx'" in json.loads(missing.value.read())["message"]
