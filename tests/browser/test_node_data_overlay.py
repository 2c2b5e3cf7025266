"""Model Explorer node data into the canvas in a real JupyterLab (issue 40): `dld diff --node-data` of a real export
whose nodes have no names (keys: Model Explorer's ids, `node`, `node_1`, …) opened with the "Open Node Data…" command
on a designer tab colours every node, the changed one orange and the rest grey, with its legend saying all keys
matched. Screenshot: test-artifacts/screenshots/node_data_overlay.png."""

from __future__ import annotations

import onnx
from onnx import numpy_helper
from playwright.sync_api import Page, expect

from dld_jupyter.cli.main import main
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import screenshot
from tests.browser.tab_driver import TAB, open_workspace
from tests.browser.test_canvas import cy_eval
from tests.browser.test_current_designer import open_tab
from tests.model_compare.test_node_data_keys import unnamed

FILLS = "return cy.nodes('.op').map(n => ({nd: n.hasClass('cmp'), fill: n.style('background-color')}));"


def test_open_node_data_round_trips_into_the_canvas_overlay(jupyter: JupyterServer, page: Page) -> None:
    model = unnamed()
    onnx.save(model, str(jupyter.root_dir / "nd_a.onnx"))
    weight = next(t for t in model.graph.initializer if numpy_helper.to_array(t).ndim == 4)
    weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight) * 1.5, weight.name))
    onnx.save(model, str(jupyter.root_dir / "nd_b.onnx"))
    out = jupyter.root_dir / "nd_diff.json"
    assert main(["diff", str(jupyter.root_dir / "nd_a.onnx"), str(jupyter.root_dir / "nd_b.onnx"),
                 "--node-data", str(out)]) == 0
    open_workspace(page, jupyter)
    open_tab(page, "nd_b.onnx")
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:open-node-data')", timeout=60_000)
    assert page.evaluate("() => window.jupyterapp.commands.label('dld:open-node-data')") == "Open Node Data…"
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-node-data'); }")
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill(str(out))
    dialog.locator(".jp-mod-accept").click()
    page.wait_for_selector(f"{TAB} .dld-canvas[data-node_data='1']", timeout=60_000)
    nodes = len(model.graph.node)
    expect(page.locator(f"{TAB} .dld-nd-legend")).to_contain_text(f"{nodes} of {nodes} keys matched a node")
    fills = cy_eval(page, FILLS)
    assert fills and all(f["nd"] for f in fills)  # every drawn op node has its value
    assert [f["fill"] for f in fills].count("rgb(253,174,97)") == 1  # the changed Conv, the diff's orange
    assert {f["fill"] for f in fills} == {"rgb(253,174,97)", "rgb(224,224,224)"}
    screenshot(page, "node_data_overlay", f"{TAB} .dld-canvas")
    page.locator(f"{TAB} .dld-nd-legend .dld-cmp-close").click()
    page.wait_for_function(f"() => !document.querySelector('{TAB} .dld-canvas').dataset.node_data")
    assert not any(f["nd"] for f in cy_eval(page, FILLS))
