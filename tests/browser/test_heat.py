"""Heat on the canvas in a real JupyterLab: the real MobileNetV3 export opened with `dld.open`, profiled from the
designer's Profile panel with ONNX Runtime CPU (few passes), judged from cytoscape's state: op nodes carry the
scale's colours (the costliest layer the darkest), the legend is visible with its ends in ms, hovering shows the
layer's figures, a node added after profiling is neutral and says why, the metric switch and the close X reach
Python, selecting a layer in the report viewer selects its nodes on the canvas, and a view that connects late (a new
view of the output) gets the heat after its snapshot (the overlays' hello). Screenshots, light and dark
theme: test-artifacts/screenshots/heat_canvas_light.png, heat_canvas_dark.png, and heat_canvas_neutral.png."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_in_kernel, run_notebook, screenshot
from tests.browser.test_canvas import cy_eval

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
CANVAS = ".dld-canvas[data-ready='1']"

HEAT_STATE = """
const ops = cy.nodes('.op');
const overlay = dld.overlays.get('heat');
const heat = overlay.data;
const values = heat ? heat.values[overlay.metric] : null;
const rows = ops.map(n => { const i = heat ? heat.index.get(n.id()) : undefined;
  return {id: n.id(), name: dld.store.nodes.get(n.id()).name, heat: n.hasClass('heat'), none: n.hasClass('heat-none'),
          fill: n.style('background-color'), data: n.data('heat') || null,
          value: i === undefined || !values ? null : values[i]}; });
return {rows, range: overlay.range, metric: overlay.metric};
"""

GROUP_SUMS = (
    "(lambda g, nm: {gid: d.heat.group_value([nm[n] for n, p in g.path.items() if n in nm and p[: len(path)] == path])"
    " for gid, path in g.by_id.items()})(d.canvas.view.grouping, __import__("
    "'dld_jupyter.widgets.canvas.overlays.heat_payload', fromlist=['node_names']).node_names(d.document))"
)


def heat_state(page: Page) -> dict[str, Any]:
    return cy_eval(page, HEAT_STATE)  # type: ignore[no-any-return]


def hover(page: Page, node_id: str) -> None:
    """Put the mouse on a node (its rendered centre, page coordinates)."""
    at = cy_eval(
        page,
        """const p = cy.getElementById(arg).renderedPosition();
        const r = document.querySelector('.dld-stage').getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y};""",
        node_id,
    )
    page.mouse.move(at["x"] - 30, at["y"] - 30)
    page.mouse.move(at["x"], at["y"], steps=3)


def center_on(page: Page, node_id: str) -> None:
    cy_eval(page, "const n = cy.getElementById(arg); cy.zoom(1); cy.center(n); return true;", node_id)


def test_heat_on_the_canvas(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    cells = [
        f"import dld_jupyter as dld\nd = dld.open({MODEL.name!r}, grouping='scopes')\nd",
        "panel = d.profile_panel(run=True, iterations=8, warmup=1, threads=1)\n"
        "result = panel.wait(240)\nassert result is not None and result.ok, result and result.error",
    ]
    run_notebook(page, jupyter, "heat.ipynb", cells, timeout_s=300)
    page.wait_for_selector(".dld-canvas[data-heat='time']", timeout=60_000)
    legend = page.locator(".dld-canvas .dld-heat-legend")
    expect(legend).to_be_visible()
    # the report this run wrote (numbered past one an earlier test of the session left: report_names)
    report_path = Path(kernel_value(page, jupyter, "result.report_path"))
    report = json.loads(report_path.read_text())
    layers = report["layers"]

    # Every op node on the canvas: coloured from the scale, or neutral; the costliest the darkest colour.
    state = heat_state(page)
    names = kernel_value(page, jupyter, "{n.id: n.name for n in d.document.nodes()}")  # the canvas shows short names
    rows = state["rows"]
    for r in rows:
        r["name"] = names[r["id"]]
    assert rows and all(r["heat"] != r["none"] for r in rows), rows[:5]
    timed = [r for r in rows if r["heat"]]
    assert len(timed) >= 0.9 * len(rows)  # weight aliases are hidden; every drawn op ran in some layer
    assert all(r["fill"] == r["data"] and r["fill"].startswith("rgb(") for r in timed)
    top = max(timed, key=lambda r: r["value"])
    by_name = {n: la for la in layers for n in la["onnx_nodes"]}
    assert abs(top["value"] - sum(la["median_ms"] for la in layers if top["name"] in la["onnx_nodes"])) < 1e-9, top
    # Collapsed groups: the sum of their members' distinct layers, as the kernel computes it.
    groups = cy_eval(
        page,
        """const heat = dld.overlays.get('heat').data; return cy.nodes('.group.collapsed').map(n =>
        ({id: n.id(), heat: n.hasClass('heat'), value: heat.values.time[heat.index.get(n.id())]}));""",
    )
    expected = kernel_value(page, jupyter, GROUP_SUMS)
    assert groups and all(g["heat"] for g in groups), groups
    for g in groups:
        assert abs(g["value"] - expected[g["id"]]) < 1e-9, (g, expected[g["id"]])
    # One scale over what the canvas shows (ops and collapsed groups): the largest is the darkest.
    largest = max([*timed, *groups], key=lambda r: r["value"])
    assert largest["value"] == state["range"]["max"]
    assert cy_eval(page, "return cy.getElementById(arg).style('background-color');", largest["id"]) == "rgb(68,1,84)"
    labels = [legend.locator(f".dld-heat-{end}").inner_text() for end in ("min", "mid", "max")]
    assert all(label.endswith(" ms") for label in labels), labels  # one unit for the whole scale
    low, high = (float(label.split()[0]) for label in (labels[0], labels[2]))
    assert abs(high - state["range"]["max"]) <= 0.0005 + 0.005 * high and low <= high, (labels, state["range"])

    # Hover: the layer's name and figures.
    center_on(page, top["id"])
    page.wait_for_timeout(200)
    hover(page, top["id"])
    tip = page.locator(".dld-canvas .dld-heat-tip")
    expect(tip).to_be_visible()
    text = tip.inner_text()
    layer = by_name[top["name"]]
    assert layer["name"] in text and "Median" in text and "of the layer sum" in text, text
    assert ("95 % CI of the median" in text) == bool(layer["ci_ms"]) and layer["ci_ms"], (text, layer["ci_ms"])
    heavy = max(groups, key=lambda g: g["value"])  # a collapsed group: its sum and its largest layers
    center_on(page, heavy["id"])
    page.wait_for_timeout(200)
    hover(page, heavy["id"])
    expect(tip).to_contain_text("(group)")
    expect(tip).to_contain_text("Sum of ")
    expect(tip).to_contain_text("Largest: ")
    center_on(page, top["id"])
    page.wait_for_timeout(200)
    hover(page, top["id"])
    expect(tip).to_contain_text("Median")
    screenshot(page, "heat_canvas_light", ".dld-canvas")

    # A node added after profiling: neutral, and it says why.
    run_in_kernel(page, "new_node = d.document.add_node('Relu', name='added_after_profile')")
    page.wait_for_function(
        "() => { const s = document.querySelector('.dld-stage'); const cy = s._cyreg.cy;"
        " return cy.nodes('.heat-none').length > 0; }",
        timeout=20_000,
    )
    added = cy_eval(page, "return cy.nodes('.heat-none').map(n => n.id());")
    assert added == [kernel_value(page, jupyter, "new_node")]
    center_on(page, added[0])
    page.wait_for_timeout(200)
    hover(page, added[0])
    expect(tip).to_contain_text("No time: not in this report")
    screenshot(page, "heat_canvas_neutral", ".dld-canvas")

    # Selecting a layer in the report viewer selects its nodes on the canvas.
    fused = next(i for i, la in enumerate(layers) if len(la["onnx_nodes"]) > 1)
    viewer_row = page.locator(f".dld-report .dld-vt-row[data-pos='{fused}']").first
    page.locator(".dld-report .dld-r-filter").first.fill(layers[fused]["name"])
    viewer_row.locator(".dld-vt-td").nth(2).click()
    ids = {name: node for node, name in names.items()}
    page.wait_for_function(
        """(want) => { const cy = document.querySelector('.dld-stage')._cyreg.cy;
             const got = cy.nodes(':selected').map(n => n.id()).sort();
             return JSON.stringify(got) === JSON.stringify([...want].sort()); }""",
        arg=[ids[n] for n in layers[fused]["onnx_nodes"]],
        timeout=20_000,
    )

    # The metric switch and the close X: Python knows.
    legend.locator("button[data-metric='share']").click()
    expect(legend.locator(".dld-heat-max")).to_contain_text("%")
    assert kernel_value(page, jupyter, "d.heat_metric") == "share"
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
    page.wait_for_timeout(500)
    background = legend.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background != "rgb(255, 255, 255)", background  # the legend follows the theme
    screenshot(page, "heat_canvas_dark", ".dld-canvas")
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
    legend.locator(".dld-heat-close").click()
    expect(legend).to_have_count(0)
    assert cy_eval(page, "return cy.nodes('.heat, .heat-none').length;") == 0
    assert kernel_value(page, jupyter, "d.heat is None") is True

    # A view that connects late (a new view of the designer's output) gets the heat right after its snapshot.
    run_in_kernel(page, f"d.show_heat({str(report_path)!r})")
    page.wait_for_selector(".dld-canvas[data-heat='time']", timeout=20_000)
    page.evaluate(
        "() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0;"
        " return window.jupyterapp.commands.execute('notebook:create-output-view'); }"
    )
    expect(page.locator(".dld-canvas[data-ready='1']")).to_have_count(2, timeout=60_000)
    expect(page.locator(".dld-canvas[data-heat='time'] .dld-heat-legend")).to_have_count(2, timeout=30_000)
