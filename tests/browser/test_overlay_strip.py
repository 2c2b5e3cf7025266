"""The overlay manager in a real JupyterLab (issue 42), on the real MobileNetV3 export: heat (a real ONNX Runtime CPU
profile), then divergence (against its FP16 conversion, tolerance 1e-4: the first node past it comes after 41 rows
of weight plumbing), then diff (against a copy with one weight changed) leave one strip of three chips, the diff
owning the node colours: no heat colour and no divergence colour left under it (cytoscape's classes and fills), one
legend. Picking, hiding and clearing from the strip move the colours; the divergence table opens scrolled to its
first node past the tolerance, highlighted; the heat tooltip hides when the overlays change and at an analysis step;
an edit clears the divergence (the strip's note says so) and keeps the heat of the nodes it did not touch; an
in-place FP16 conversion clears the heat instead of a "0.0 µs" legend; the JupyterLab command Clear Canvas Overlays
clears them all. Screenshots:
test-artifacts/screenshots/overlays_diff_owner.png, overlays_divergence_table.png, overlays_cleared_note.png."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import onnx
from playwright.sync_api import Page, expect

from dld_jupyter.document import Document
from dld_jupyter.transforms.fp16 import convert_to_fp16
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_in_kernel, run_notebook, screenshot
from tests.browser.test_canvas import cy_eval
from tests.browser.test_heat import center_on, hover
from tests.model_compare.test_structural_diff import with_weight

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
CANVAS = ".dld-canvas"
STRIP = f"{CANVAS} .dld-overlay-strip"
TABLE = ".dld-div-results .dld-div-table"  # the divergence table, below the designer in a notebook
ORANGE, RED, GREEN = "rgb(253,174,97)", "rgb(215,48,39)", "rgb(166,217,106)"

PAINT = """return cy.nodes('.op').map(n => ({id: n.id(), heat: n.hasClass('heat'), none: n.hasClass('heat-none'),
  cmp: n.hasClass('cmp'), fill: n.style('background-color')}));"""


def paint(page: Page) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in cy_eval(page, PAINT)}


def owner_is(page: Page, name: str) -> None:
    page.wait_for_selector(f"{CANVAS}[data-overlay-owner='{name}']", timeout=60_000)


def chips(page: Page) -> list[tuple[str, bool, bool]]:
    """(overlay, owner, hidden) of each chip of the strip, in its order."""
    found = page.locator(f"{STRIP} .dld-ov-chip").evaluate_all(
        "cs => cs.map(c => [c.dataset.overlay, c.classList.contains('owner'), c.classList.contains('hidden')])")
    return [(name, owner, hidden) for name, owner, hidden in found]


def chip(page: Page, name: str, button: str) -> None:
    page.locator(f"{STRIP} .dld-ov-chip[data-overlay='{name}'] .dld-ov-{button}").click()


def legends(page: Page) -> dict[str, int]:
    return {cls: page.locator(f"{CANVAS} .{cls}").count()
            for cls in ("dld-heat-legend", "dld-diff-legend", "dld-div-legend")}


def prepare(root: Path) -> str:
    """The model, its FP16 conversion and a copy with one convolution weight changed; that weight's Conv name."""
    shutil.copy(MODEL, root / "mobilenet.onnx")
    document = Document.open(root / "mobilenet.onnx")
    convert_to_fp16(document, compare=False)
    document.save(root / "mobilenet_fp16.onnx")
    model = onnx.load(str(MODEL))
    conv = next(n for n in model.graph.node if n.op_type == "Conv" and n.name.startswith("/features/features.3"))
    onnx.save(with_weight(model, conv.input[1], 1.0), str(root / "other.onnx"))
    return conv.name


def test_heat_then_divergence_then_diff_leave_one_strip_and_no_stale_colour(jupyter: JupyterServer,
                                                                           page: Page) -> None:
    changed_conv = prepare(jupyter.root_dir)
    cells = [
        "import dld_jupyter as dld\nd = dld.open('mobilenet.onnx', grouping='none')\nd",
        "report = d.profile(iterations=3, warmup=1, threads=1, output='mobilenet.dld-report.json')\n"
        "d.show_heat(report)",
        "r = dld.diverge('mobilenet.onnx', 'mobilenet_fp16.onnx', tolerance=1e-4)\n"
        "d.show_divergence(r, side='reference', source='FP16 conversion')",
        "d.compare_with('other.onnx')",
    ]
    run_notebook(page, jupyter, "overlays.ipynb", cells, timeout_s=300)
    owner_is(page, "diff")
    page.wait_for_selector(f"{CANVAS} .dld-diff-legend", timeout=30_000)

    # Heat, divergence, diff: one strip, the diff owns the colours; nothing of the others is left on the nodes.
    assert chips(page) == [("heat", False, False), ("divergence", False, False), ("diff", True, False)]
    marks = kernel_value(page, jupyter, "d.canvas.overlays.get('diff').marks")
    ids = kernel_value(page, jupyter, "{n.name: n.id for n in d.document.nodes()}")
    assert marks == {ids[changed_conv]: "changed"}, marks
    nodes = paint(page)
    assert [n for n, p in nodes.items() if p["cmp"]] == list(marks)
    assert nodes[ids[changed_conv]]["fill"] == ORANGE
    assert not any(p["heat"] or p["none"] for p in nodes.values())
    assert not any(p["fill"] in (RED, GREEN) for p in nodes.values())
    assert legends(page) == {"dld-heat-legend": 0, "dld-diff-legend": 1, "dld-div-legend": 0}
    assert kernel_value(page, jupyter, "[(o.name, o.visible, o.owns_colour) for o in d.overlays.active]") == [
        ["heat", True, False], ["divergence", True, False], ["diff", True, True]]
    screenshot(page, "overlays_diff_owner", CANVAS)

    # Picked in the strip: the divergence's colours; its table (below the designer, never over the canvas: issue 42)
    # opened at the first node past the tolerance.
    chip(page, "divergence", "name")
    owner_is(page, "divergence")
    page.wait_for_selector(f"{TABLE} tbody tr.first", timeout=30_000)
    first = kernel_value(page, jupyter, "[r.first.node, r.rows.index(r.first)]")
    nodes = paint(page)
    coloured = [p for p in nodes.values() if p["cmp"]]
    assert len(coloured) >= 0.9 * len(nodes) and all(p["fill"] in (RED, GREEN) for p in coloured), coloured[:3]
    assert not any(p["heat"] or p["none"] for p in nodes.values())
    assert legends(page) == {"dld-heat-legend": 0, "dld-diff-legend": 0, "dld-div-legend": 1}
    assert page.locator(f"{CANVAS} .dld-div-table").count() == 0
    table = page.locator(TABLE)
    row = table.locator("tbody tr.first")
    expect(row).to_have_count(1)
    assert row.get_attribute("data-node") == first[0] and first[1] == 41
    assert table.locator("tbody tr").nth(first[1]).get_attribute("data-node") == first[0]  # execution order
    # Scrolled to it: the first row right below the sticky header cells, the 41 rows before it one scroll up.
    top = table.evaluate("""t => { const r = t.querySelector('tbody tr.first').getBoundingClientRect();
        const h = t.querySelector('thead th').getBoundingClientRect(); return [r.top - h.bottom, t.scrollTop]; }""")
    assert abs(top[0]) <= 2 and top[1] > 0, top
    screenshot(page, "overlays_divergence_table", ".dld-div-results")

    # Hidden from its eye: the diff, shown after the heat, takes the colours back; cleared from its X: the heat.
    chip(page, "divergence", "eye")
    owner_is(page, "diff")
    assert chips(page) == [("heat", False, False), ("divergence", False, True), ("diff", True, False)]
    assert legends(page)["dld-div-legend"] == 0
    chip(page, "diff", "clear")
    owner_is(page, "heat")
    page.wait_for_selector(f"{CANVAS}[data-heat='time'] .dld-heat-legend", timeout=30_000)
    assert chips(page) == [("heat", True, False), ("divergence", False, True)]
    nodes = paint(page)
    assert not any(p["cmp"] for p in nodes.values())
    assert sum(p["heat"] for p in nodes.values()) >= 0.9 * len(nodes)
    assert kernel_value(page, jupyter, "[d.overlays.owner, d.canvas.overlays.get('diff').shown]") == ["heat", False]

    # The heat tooltip hides when the overlays change (the pointer still on the node), and when the pointer goes to
    # the analysis panel's Step (it stayed stuck there).
    timed = next(n for n, p in nodes.items() if p["heat"] and n != ids[changed_conv])
    tip = page.locator(f"{CANVAS} .dld-heat-tip")

    def tip_on(node: str) -> None:
        page.mouse.move(1, 1)  # entering the canvas again: cytoscape reads where it sits now (the dock opened)
        center_on(page, node)
        hover(page, node)
        expect(tip).to_be_visible()

    tip_on(timed)
    run_in_kernel(page, "d.overlays.hide('divergence')")  # hidden already: the strip is sent again all the same
    expect(tip).to_be_hidden()
    run_in_kernel(page, "d.launch_analysis()")
    page.wait_for_selector(f"{STRIP} .dld-ov-chip[data-overlay='analysis']", timeout=120_000)
    order = kernel_value(page, jupyter, "d.analysis.order_ids")
    at = next(i for i, node in enumerate(order) if i > 45 and node in nodes)  # past the weight plumbing, drawn
    run_in_kernel(page, f"d.set_breakpoints([{order[at]!r}])")
    page.wait_for_function("(id) => document.querySelector('.dld-canvas').dataset.analysisPosition === id",
                           arg=order[at], timeout=120_000)
    assert chips(page) == [("heat", True, False), ("divergence", False, True), ("analysis", False, False)]
    tip_on(timed)  # the node the tooltip last showed: cytoscape sends no second mouseover, a move shows it
    page.locator(".dld-analysis-panel .dld-an-step").click()
    page.wait_for_function("(id) => document.querySelector('.dld-canvas').dataset.analysisPosition === id",
                           arg=order[at + 1], timeout=120_000)
    expect(tip).to_be_hidden()
    run_in_kernel(page, "d.stop_analysis()")
    page.wait_for_function("() => !document.querySelector('.dld-canvas').dataset.analysis", timeout=60_000)

    # An edit: the divergence (hidden) is cleared and the note says so; the heat keeps the nodes it did not touch.
    timed_before = {n for n, p in paint(page).items() if p["heat"]}
    run_in_kernel(page, f"d.document.rename_node({timed!r}, 'renamed_after_profile')")
    note = page.locator(f"{STRIP} .dld-ov-note")
    expect(note).to_contain_text("Divergence cleared: the model changed after it was drawn")
    assert chips(page) == [("heat", True, False)]
    page.wait_for_function("(id) => document.querySelector('.dld-stage')._cyreg.cy.getElementById(id)"
                           ".hasClass('heat-none')", arg=timed, timeout=30_000)
    assert {n for n, p in paint(page).items() if p["heat"]} == timed_before - {timed}
    tip_on(timed)
    expect(tip).to_contain_text("No time: not in this report: added or changed after it was profiled")

    # Converted to FP16 in place: every node replaced, the heat is cleared (no "0.0 µs … 0.0 µs" legend).
    run_in_kernel(page, "from dld_jupyter.transforms.fp16 import convert_to_fp16\n"
                        "convert_to_fp16(d.document, compare=False)")
    expect(note).to_contain_text("Heat cleared: the model changed after it was drawn (profile")
    expect(page.locator(f"{CANVAS} .dld-heat-legend")).to_have_count(0)
    expect(page.locator(f"{STRIP} .dld-ov-chip")).to_have_count(0)
    assert cy_eval(page, "return cy.nodes('.heat, .heat-none, .cmp').length;") == 0
    assert kernel_value(page, jupyter, "[d.overlays.active, d.heat is None]") == [[], True]
    screenshot(page, "overlays_cleared_note", CANVAS)
    note.locator(".dld-ov-dismiss").click()
    expect(page.locator(STRIP)).to_have_count(0)
    assert kernel_value(page, jupyter, "d.overlays.note") == ""

    # The JupyterLab command (palette, View menu) clears every overlay of the current designer at once.
    run_in_kernel(page, "d.show_heat('mobilenet.dld-report.json')")
    owner_is(page, "heat")
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:clear-overlays')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:clear-overlays')")
    expect(page.locator(STRIP)).to_have_count(0)
    assert cy_eval(page, "return cy.nodes('.heat, .heat-none, .cmp').length;") == 0
    assert kernel_value(page, jupyter, "[d.overlays.active, d.heat is None]") == [[], True]
