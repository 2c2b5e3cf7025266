"""The comparison overlays in a real JupyterLab (issue 30): a model converted to FP16 in its designer and checked
against its saved original (`check_against_original`) shows the divergence overlay, the first node past the
tolerance outlined and its sortable table (a click on a row focuses the node); a designer of an edited model
compared with the original (its toolbar's Compare with…) shows added and changed nodes and walks them with
Next/Previous; Convert to FP16's "Check against original" button draws the divergence of the converted model.
Screenshots: test-artifacts/screenshots/divergence_fp16.png, diff_view.png, divergence_check_button.png."""

from __future__ import annotations

import onnx
from onnx import helper
from playwright.sync_api import Page, expect

from tests import models
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_notebook, screenshot
from tests.browser.tab_driver import TAB, open_workspace
from tests.browser.test_canvas import cy_eval
from tests.browser.test_current_designer import open_tab
from tests.model_compare.test_structural_diff import with_weight

MARKS = """return cy.nodes('.op').map(n => ({id: n.id(), cmp: n.hasClass('cmp'), first: n.hasClass('cmp-first'),
  fill: n.style('background-color'), selected: n.selected()}));"""


def _edited(model: onnx.ModelProto) -> onnx.ModelProto:
    """One weight changed and one Relu inserted after the first layer's residual Add."""
    copy = with_weight(model, "/layers.1/mlp/up.weight", 1.0)
    nodes = copy.graph.node
    k = next(i for i, n in enumerate(nodes) if n.name.startswith("/layers.0/Add"))
    out = nodes[k].output[0]
    for node in nodes[k + 1 :]:
        node.input[:] = ["relu_new" if x == out else x for x in node.input]
    nodes.insert(k + 1, helper.make_node("Relu", [out], ["relu_new"], name="/layers.0/inserted_relu"))
    return copy


def test_divergence_overlay_after_fp16(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(models.transformer_like(layers=2), str(jupyter.root_dir / "model.onnx"))
    cells = [
        "import numpy as np, dld_jupyter as dld\nd = dld.open('model.onnx', grouping='none')\nd",
        "from dld_jupyter.transforms.fp16 import convert_to_fp16\nconvert_to_fp16(d.document, compare=False)\n"
        "ids = np.random.default_rng(0).integers(0, 128, (1, 16))\n"
        "r = d.check_against_original(inputs={'input_ids': ids}, tolerance=1e-3)\nprint(r.headline())",
    ]
    run_notebook(page, jupyter, "divergence.ipynb", cells, timeout_s=300)
    page.wait_for_selector(".dld-canvas[data-divergence='1']", timeout=60_000)
    expected = kernel_value(page, jupyter, "{'first': d.canvas.overlays.get('divergence').payload()['first'], "
                                           "'first_name': r.first.candidate_node, 'rows': len(r.rows), "
                                           "'over': sum(1 for x in r.rows if x.over)}")
    marks = cy_eval(page, MARKS)
    assert expected["first"] and [m["id"] for m in marks if m["first"]] == [expected["first"]]
    assert sum(m["cmp"] for m in marks) >= 0.9 * len(marks)
    legend = page.locator(".dld-canvas .dld-div-legend")
    expect(legend).to_contain_text(f"First past it: {expected['first_name']}")
    rows = page.locator(".dld-div-results .dld-div-table tbody tr")
    expect(rows).to_have_count(expected["rows"])
    expect(page.locator(".dld-div-results .dld-div-table tbody tr.over")).to_have_count(expected["over"])
    # Sort by max abs (descending on the first click): the first row is the worst.
    page.locator(".dld-div-results .dld-div-table th[data-column='max_abs']").click()
    values = [float(t) for t in rows.locator("td:nth-child(4)").all_inner_texts()]
    assert values == sorted(values, reverse=True), values[:5]
    page.locator(".dld-div-results .dld-div-table th[data-column='max_abs']").click()
    values = [float(t) for t in rows.locator("td:nth-child(4)").all_inner_texts()]
    assert values == sorted(values), values[:5]
    # A click on a row focuses its node: the kernel selects it (the first node past the tolerance here).
    page.locator(f".dld-div-results .dld-div-table tbody tr[data-node='{expected['first_name']}']").click()
    page.wait_for_function(
        "(id) => document.querySelector('.dld-stage')._cyreg.cy.getElementById(id).selected()",
        arg=expected["first"], timeout=20_000)
    screenshot(page, "divergence_fp16", ".dld-canvas")
    page.locator(".dld-canvas .dld-div-legend .dld-cmp-close").click()
    page.wait_for_function("() => !document.querySelector('.dld-canvas').dataset.divergence")
    assert not any(m["cmp"] for m in cy_eval(page, MARKS))
    page.wait_for_timeout(300)
    assert kernel_value(page, jupyter, "d.canvas.overlays.get('divergence').shown") is False


def test_diff_view_with_next_and_previous(jupyter: JupyterServer, page: Page) -> None:
    model = models.transformer_like(layers=2)
    onnx.save(model, str(jupyter.root_dir / "original.onnx"))
    onnx.save(_edited(model), str(jupyter.root_dir / "edited.onnx"))
    cells = ["import dld_jupyter as dld\nd = dld.open('edited.onnx', grouping='none')\nd"]
    run_notebook(page, jupyter, "diff.ipynb", cells, timeout_s=300)
    # The toolbar's Compare with…: the other model's path in the path box.
    page.get_by_placeholder("path/to/model.onnx or image.png").fill("original.onnx")
    page.get_by_role("button", name="Compare with…").click()
    page.wait_for_selector(".dld-canvas[data-diff='1']", timeout=60_000)
    expected = kernel_value(page, jupyter, "d.canvas.overlays.get('diff').payload()")
    # the Relu added; both readers of the Add it now follows rewired, and the MatMul of the changed weight
    assert sorted(expected["marks"].values()) == ["added", "changed", "changed", "changed"], expected["marks"]
    marks = {m["id"]: m for m in cy_eval(page, MARKS)}
    for node, mark in expected["marks"].items():
        colour = {"added": "rgb(44,123,182)", "changed": "rgb(253,174,97)"}[mark]
        assert marks[node]["cmp"] and marks[node]["fill"] == colour, (node, marks[node])
    assert sum(m["cmp"] for m in marks.values()) == 4
    legend = page.locator(".dld-canvas .dld-diff-legend")
    expect(legend).to_contain_text("1 added, 3 changed")

    def selected() -> list[str]:
        return [m["id"] for m in cy_eval(page, MARKS) if m["selected"]]

    order = expected["order"]
    for step, want in (("next", order[0]), ("next", order[1]), ("next", order[2]), ("next", order[3]),
                       ("next", order[0]), ("prev", order[3])):
        legend.locator(f".dld-diff-{step}").click()
        page.wait_for_function(
            "(id) => document.querySelector('.dld-stage')._cyreg.cy.getElementById(id).selected()", arg=want,
            timeout=20_000)
        assert selected() == [want]
    expect(legend.locator(".dld-diff-at")).to_have_text("4 / 4")
    screenshot(page, "diff_view", ".dld-canvas")


def test_check_against_original_button_after_fp16_in_place(jupyter: JupyterServer, page: Page) -> None:
    """Convert to FP16 (applied to this model) from its dialog, then its "Check against original" button: the saved
    file is the reference, the canvas shows the converted model coloured, with the first node past the tolerance."""
    onnx.save(models.transformer_like(layers=1), str(jupyter.root_dir / "tool_model.onnx"))
    cells = ["import dld_jupyter as dld\nd = dld.open('tool_model.onnx', grouping='none')\nd",
             "dialog = d.tools_panel('convert_fp16', in_place=True, compare=False)"]
    run_notebook(page, jupyter, "check.ipynb", cells, timeout_s=300)
    dialog = page.locator(".dld-tool-dialog")
    dialog.locator(".dld-tool-finish").click()
    check = dialog.locator(".dld-tool-check")
    expect(check).to_be_visible(timeout=120_000)
    check.click()
    page.wait_for_selector(".dld-canvas[data-divergence='1']", timeout=120_000)
    expect(dialog.locator(".dld-tool-check-result")).to_contain_text("tensors past it")
    probe = "(lambda o: [o.side, o.payload()['first'], o.divergence.first.candidate_node])"
    expected = kernel_value(page, jupyter, probe + "(d.canvas.overlays.get('divergence'))")
    assert expected[0] == "candidate" and expected[1]
    assert [m["id"] for m in cy_eval(page, MARKS) if m["first"]] == [expected[1]]
    expect(page.locator(".dld-canvas .dld-div-legend")).to_contain_text(f"First past it: {expected[2]}")
    screenshot(page, "divergence_check_button")



def test_lab_commands_compare_and_check_a_designer_tab(jupyter: JupyterServer, page: Page) -> None:
    """The JupyterLab commands (palette: Compare Model With…, Check Against Original) act on the designer tab in
    front: the first asks for the other model's path, the second runs the saved file against the open model."""
    model = models.transformer_like(layers=2)
    onnx.save(model, str(jupyter.root_dir / "lab_original.onnx"))
    onnx.save(_edited(model), str(jupyter.root_dir / "lab_edited.onnx"))
    open_workspace(page, jupyter)
    open_tab(page, "lab_edited.onnx")
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:compare-with')", timeout=60_000)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:compare-with'); }")
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill(str(jupyter.root_dir / "lab_original.onnx"))
    dialog.locator(".jp-mod-accept").click()
    page.wait_for_selector(f"{TAB} .dld-canvas[data-diff='1']", timeout=60_000)
    expect(page.locator(f"{TAB} .dld-diff-legend")).to_contain_text("1 added, 3 changed")
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:check-against-original'); }")
    page.wait_for_selector(f"{TAB} .dld-canvas[data-divergence='1']", timeout=120_000)
    expect(page.locator(f"{TAB} .dld-div-legend")).to_contain_text("No node past the tolerance")
