"""Wide results open as main-area tabs (issue 42), in a real JupyterLab: a 2 x 2 x 2 sweep (batch 1,2 x fp32/fp16 x
two files of the real MobileNetV3-small export, 8 points on ONNX Runtime CPU) run from a designer tab's Sweep form
opens its results in a tab split beside the designer: the table, and the Pareto chart with every point and its label
inside the plot area, no two labels overlapping; the dock keeps the form. A divergence shown by a designer tab (the
real export against its FP16 conversion) opens its per-node table in a tab beside it, at the first node past the
tolerance; a click on a row selects that node on the designer's canvas; then Compare with… a copy with one weight
changed opens its table of changes in the same area. Screenshots: results_tab_sweep.png, results_tab_sweep_chart.png,
results_tab_divergence.png, results_tab_diff.png; a results tab comes back after a page reload
(results_tab_after_reload.png)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import onnx
from playwright.sync_api import Page, expect

from dld_jupyter.document import Document
from dld_jupyter.transforms.fp16 import convert_to_fp16
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, run_in_kernel, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_workspace_has
from tests.model_compare.test_structural_diff import with_weight

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
RESULTS = f"{TAB}:has(.dld-sweep-results)"
# Every point's dot and label, as drawn, against the plot's rectangle (client pixels), and whether labels overlap.
GEOMETRY = f"""() => {{
    const tab = document.querySelector('{RESULTS}');
    const plot = tab.querySelector('.dld-pareto-plot').getBoundingClientRect();
    const inside = (r) => r.left >= plot.left - 0.5 && r.right <= plot.right + 0.5 && r.top >= plot.top - 0.5
                          && r.bottom <= plot.bottom + 0.5;
    const points = [...tab.querySelectorAll('.dld-pareto-point')].map((g) => {{
        const dot = g.querySelector('circle').getBoundingClientRect();
        const label = g.querySelector('.dld-pareto-label');
        const box = label.getBoundingClientRect();
        return {{id: g.dataset.point, label: label.textContent, dot: inside(dot), text: inside(box),
                 box: [box.left, box.top, box.right, box.bottom], visible: dot.width > 0 && box.width > 0}};
    }});
    const overlaps = [];
    for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) {{
        const [a, b] = [points[i].box, points[j].box];
        if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) overlaps.push([points[i].label, points[j].label]);
    }}
    const rows = [...tab.querySelectorAll('table.dld-sweep tr.dld-sweep-done')]
        .map((r) => r.getBoundingClientRect().height);
    const main = [...window.jupyterapp.shell.widgets('main')].some((w) => w.node === tab);
    return {{points, overlaps, plot: [plot.width, plot.height], rows, main, width: tab.getBoundingClientRect().width}};
}}"""


def test_a_sweep_from_a_designer_tab_opens_its_results_beside_it(jupyter: JupyterServer, page: Page) -> None:
    root = jupyter.root_dir
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", root / "sweep.onnx")
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", root / "sweep_copy.onnx")
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'sweep.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    run_in_kernel(page, "_p = _dld_view.tools_panel('sweep', batch='1,2', precision='fp32,fp16', iterations=3, "
                        "out='sweep-out')\n_p.models.value = 'sweep.onnx\\nsweep_copy.onnx'")
    form = page.locator(f"{TAB} .dld-sweep-panel")
    expect(form).to_be_visible(timeout=30_000)
    form.locator(".dld-run-progress button.mod-primary").click()
    results = page.locator(RESULTS)
    expect(results).to_be_visible(timeout=120_000)
    expect(form.locator(".dld-run-progress")).to_contain_text("8 done", timeout=600_000)
    expect(results.locator("table.dld-sweep tr.dld-sweep-done")).to_have_count(8, timeout=30_000)
    expect(results.locator(".dld-pareto-point")).to_have_count(8, timeout=30_000)
    expect(form.locator(".dld-sweep-results")).to_have_count(0)  # the dock keeps the form only

    drawn = page.evaluate(GEOMETRY)
    assert drawn["main"], "the results are a main-area tab"
    assert drawn["width"] > 500, f"the results tab has room: {drawn['width']} px"
    assert all(p["visible"] and p["dot"] and p["text"] for p in drawn["points"]), drawn["points"]
    assert not drawn["overlaps"], drawn["overlaps"]
    labels = sorted(p["label"] for p in drawn["points"])
    assert labels == sorted(f"{m} b{b} {p}" for m in ("sweep", "sweep_copy") for b in (1, 2) for p in ("fp32", "fp16"))
    assert max(drawn["rows"]) < 40, f"each table row is one line high: {drawn['rows']}"
    screenshot(page, "results_tab_sweep")
    results.locator(".dld-pareto").scroll_into_view_if_needed()
    screenshot(page, "results_tab_sweep_chart", RESULTS + " .dld-pareto")


DIVERGENCE = f"{TAB}:has(.dld-div-results)"


def test_divergence_and_diff_tables_from_a_designer_tab_open_beside_it(jupyter: JupyterServer, page: Page) -> None:
    root = jupyter.root_dir
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", root / "div.onnx")
    document = Document.open(root / "div.onnx")
    convert_to_fp16(document, compare=False)
    document.save(root / "div_fp16.onnx")
    model = onnx.load(str(REAL / "mobilenet_v3_small_w05.onnx"))
    conv = next(n.name for n in model.graph.node if n.op_type == "Conv" and n.name.startswith("/features/features.3"))
    weight = next(n.input[1] for n in model.graph.node if n.name == conv)
    onnx.save(with_weight(model, weight, 1.0), str(root / "div_other.onnx"))
    open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'div.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    run_in_kernel(page, "import dld_jupyter as _dld\n_r = _dld.diverge('div.onnx', 'div_fp16.onnx', tolerance=1e-4)\n"
                        "_dld_view.show_divergence(_r, side='reference', source='FP16 conversion')")
    tab = page.locator(DIVERGENCE)
    expect(tab).to_be_visible(timeout=60_000)
    first = tab.locator(".dld-div-table tbody tr.first")
    expect(first).to_have_count(1, timeout=30_000)
    expect(page.locator(f"{TAB} .dld-canvas .dld-div-table")).to_have_count(0)  # nothing floats over the canvas
    placed = page.evaluate(f"""() => {{
        const tab = document.querySelector('{DIVERGENCE}');
        const main = [...window.jupyterapp.shell.widgets('main')];
        const designer = main.find((w) => w.node.querySelector('.dld-designer'));
        return {{main: main.some((w) => w.node === tab), width: tab.getBoundingClientRect().width,
                 title: main.find((w) => w.node === tab).title.label,
                 beside: designer.node.getBoundingClientRect().right <= tab.getBoundingClientRect().left + 1}};
    }}""")
    assert placed["main"] and placed["beside"] and placed["width"] > 500, placed
    assert placed["title"] == "Divergence: FP16 conversion"
    name = first.get_attribute("data-node")
    expect(first).to_be_in_viewport()  # scrolled to it
    screenshot(page, "results_tab_divergence")
    first.click()
    selected = "[n.name for n in _dld_view.document.nodes() if n.id in _dld_view.canvas.selection]"
    deadline = time.monotonic() + 30
    while kernel_value(page, jupyter, selected) != [name] and time.monotonic() < deadline:
        time.sleep(0.3)
    assert kernel_value(page, jupyter, selected) == [name], "a row's click selects its node on the designer's canvas"

    # Compare with… a copy with one weight changed: its table of changes opens in the same area, beside the designer.
    run_in_kernel(page, "_dld_view.compare_with('div_other.onnx')")
    changes = page.locator(f"{TAB}:has(.dld-diff-results)")
    expect(changes).to_be_visible(timeout=60_000)
    row = changes.locator(".dld-diff-table tbody tr.changed")
    expect(row).to_have_count(1, timeout=30_000)
    expect(row).to_contain_text(conv)
    expect(page.locator(DIVERGENCE)).to_be_hidden()  # a tab of the same area, behind the new one
    screenshot(page, "results_tab_diff")
    row.click()
    deadline = time.monotonic() + 30
    while kernel_value(page, jupyter, selected) != [conv] and time.monotonic() < deadline:
        time.sleep(0.3)
    assert kernel_value(page, jupyter, selected) == [conv]


def test_a_results_tab_comes_back_after_a_page_reload(jupyter: JupyterServer, page: Page) -> None:
    """The results tab is restored by the workspace like a report tab: after a reload it shows the same live view
    (its kernel still holds it), and the designer beside it is still the tab in front."""
    root = jupyter.root_dir
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", root / "reload.onnx")
    workspace = open_workspace(page, jupyter)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:open-file', {path: 'reload.onnx'}); }")
    page.wait_for_function(f"() => document.querySelector('{TAB} .dld-canvas[data-ready=\"1\"]')", timeout=90_000)
    run_in_kernel(page, "_p = _dld_view.tools_panel('sweep', batch='1,2', iterations=2, out='reload-sweep')\n_p.run()")
    results = page.locator(RESULTS)
    expect(results.locator(".dld-pareto-point")).to_have_count(2, timeout=240_000)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "reload.onnx"
    wait_workspace_has(jupyter, workspace, "Sweep reload-sweep")
    open_workspace(page, jupyter, workspace, reset=False)
    expect(page.locator(RESULTS).locator(".dld-pareto-point")).to_have_count(2, timeout=90_000)
    expect(page.locator(RESULTS).locator("table.dld-sweep tr.dld-sweep-done")).to_have_count(2)
    screenshot(page, "results_tab_after_reload")
